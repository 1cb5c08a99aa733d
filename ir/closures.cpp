// Closure conversion: anonymous tasks read what they capture from their closure.
#include "ir/closures.h"

#include <algorithm>
#include <functional>
#include <set>

namespace kite {

using namespace ast;

namespace {

// The variables a task owns: its parameters and everything bound in it.
// (ir/vars orders its sets by the ids ir/ntg gives later; this runs before.)
void own_vars(const StmtList &list, std::set<const VarDecl *> &out) {
  struct Own : Visitor {
    explicit Own(std::set<const VarDecl *> &o) : out(o) {}
    using Visitor::visit;
    void visit(const Expr &) override {}  // expressions bind nothing
    void visit(const Stmt &s) override {
      for (VarDecl *v : bound_vars(s)) out.insert(v);
      Visitor::visit(s);
    }
    std::set<const VarDecl *> &out;
  };
  Own(out).visit(list);
}

}  // namespace

void convert_closures(Program &program, TypeContext &types) {
  // 1. Captures, innermost tasks first (ir/lift lifted them in that order).
  for (auto &t : program.tasks) {
    if (!t->is_anonymous) continue;
    std::set<const VarDecl *> own(t->param_vars.begin(), t->param_vars.end());
    own_vars(t->body, own);
    std::vector<VarDecl *> caps;
    auto add = [&](VarDecl *v) {
      if (!own.count(v) && std::find(caps.begin(), caps.end(), v) == caps.end()) caps.push_back(v);
    };
    rewrite_exprs(t->body, [&](ExprPtr &e) {
      if (e->kind == ExprKind::Name && e->var) add(e->var);
      if (e->kind == ExprKind::AnonTask)
        for (VarDecl *v : e->task->captures) add(v);
    });
    t->captures = caps;
  }
  // 2. Where an anonymous task is made, its children name what it captures.
  for (auto &t : program.tasks)
    rewrite_exprs(t->body, [&](ExprPtr &e) {
      if (e->kind != ExprKind::AnonTask) return;
      e->children.clear();
      for (VarDecl *v : e->task->captures) e->children.push_back(name_of(v, e->loc));
    });
  // 3. Inside, a captured variable reads slot k + 1 of the closure (slot 0
  //    holds the task's id).
  for (auto &t : program.tasks) {
    if (!t->is_anonymous) continue;
    std::vector<Type *> slots = {types.long_t()};
    for (VarDecl *v : t->captures) slots.push_back(v->type);
    auto env = std::make_unique<VarDecl>();
    env->loc = t->loc;
    env->name = "_closure";
    env->type = types.tuple(slots);
    env->is_param = true;
    env->is_temp = true;
    t->env = env.get();
    t->locals.push_back(std::move(env));
    rewrite_exprs(t->body, [&](ExprPtr &e) {
      if (e->kind != ExprKind::Name || !e->var) return;
      auto at = std::find(t->captures.begin(), t->captures.end(), e->var);
      if (at == t->captures.end()) return;
      auto read = make_expr(ExprKind::Field, e->loc);
      read->field = int(at - t->captures.begin()) + 1;
      read->text = e->var->name;
      read->type = e->var->type;
      read->children.push_back(name_of(t->env, e->loc));
      e = std::move(read);
    });
  }
}

}  // namespace kite
