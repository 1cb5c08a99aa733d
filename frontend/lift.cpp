// Lifting: anonymous tasks and `task e` become tasks of the program (lift.h).
#include "frontend/lift.h"

#include <fmt/format.h>

#include <algorithm>

namespace kite {

using namespace ast;

namespace {

class Lifter {
 public:
  explicit Lifter(TypeContext &types) : types_(types) {}

  // Lifts what `list` (or e) holds, innermost first.
  void lift(StmtList &list) {
    rewrite_exprs(list, [&](ExprPtr &x) { lift(*x); });
  }
  void lift(ExprPtr &e) {
    rewrite_exprs(e, [&](ExprPtr &x) { lift(*x); });
  }

  std::vector<std::unique_ptr<TaskDecl>> lifted;

 private:
  void lift(Expr &e) {
    if (e.kind == ExprKind::AnonTask && e.anon) {
      lift(e.anon->body);  // the tasks inside it first
      lifted.push_back(std::move(e.anon));
    } else if (e.kind == ExprKind::Future && e.type) {
      future(e);
    }
  }

  // `task e`: a call of `task (): t { return e; }`.
  void future(Expr &e) {
    Type *t = e.type->forced();
    auto anon = std::make_unique<TaskDecl>();
    anon->loc = e.loc;
    anon->is_anonymous = true;
    anon->name = fmt::format("future_{}_{}", e.loc.line, e.loc.col);
    anon->result_type = t;
    anon->type = types_.task({}, t);
    // e was checked in the task that holds it: every variable it names is
    // one of that task's, so all of them are the new task's captures; so
    // are those of the anonymous tasks made in e (lifted already, `task e`
    // inside e among them), whose closures the new task builds.
    auto capture = [&](VarDecl *v) {
      auto &caps = anon->captures;
      if (std::find(caps.begin(), caps.end(), v) == caps.end()) caps.push_back(v);
    };
    for_each_expr(*e.children[0], [&](const Expr &x) {
      if (x.kind == ExprKind::Name && x.var) capture(x.var);
      if (x.kind == ExprKind::AnonTask && x.task)
        for (VarDecl *v : x.task->captures) capture(v);
    });
    auto ret = make_stmt(StmtKind::Return, e.loc);
    ret->expr = std::move(e.children[0]);
    anon->body.push_back(std::move(ret));
    auto fn = make_expr(ExprKind::AnonTask, e.loc);
    fn->task = anon.get();
    fn->type = anon->type;
    lifted.push_back(std::move(anon));
    e.kind = ExprKind::Call;
    e.children.clear();
    e.children.push_back(std::move(fn));
  }

  TypeContext &types_;
};

}  // namespace

void lift_anonymous_tasks(Program &program, TypeContext &types) {
  Lifter l(types);
  for (auto &v : program.values)
    if (v->init) l.lift(v->init);
  for (auto &t : program.tasks) l.lift(t->body);
  for (auto &t : l.lifted) {
    t->id = int(program.tasks.size());
    program.tasks.push_back(std::move(t));
  }
}

}  // namespace kite
