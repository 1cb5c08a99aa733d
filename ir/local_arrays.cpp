// Local arrays: the arrays a task makes and never lets go of.
#include "ir/local_arrays.h"

#include <set>

#include "frontend/builtins.h"
#include "ir/cps.h"
#include "ir/effects.h"

namespace kite::cps {

namespace {

// Finds the arrays of a task that never leave it (Task::local_arrays).
// Whether an array escapes is a question of its own, not one of what an
// expression does (ir/effects.h): where its name appears, not what
// evaluating it reads, writes or calls. Any appearance of its name lets the
// array escape, but as an index's array (`a[i]`, read or written), as a
// loop's collection and as an argument of a built-in that reads a length or
// prints (builtins.h): those look at the array without keeping it.
// Assigning its variable as a whole (what a statement writes, effects.h)
// lets it escape too: the task would end holding another value there.
class LocalArrays : public anf::Visitor {
 public:
  std::vector<const ast::VarDecl *> find(const anf::Task &t) {
    visit(t.body);
    std::vector<const ast::VarDecl *> out;
    for (const ast::VarDecl *v : candidates_)
      if (!escapes_.count(v)) out.push_back(v);
    return out;
  }

 private:
  using anf::Visitor::visit;
  void visit(const ast::Expr &) override {}  // use() looks at expressions
  void visit(const anf::Stmt &st) override {
    using anf::StmtKind;
    if (st.kind == StmtKind::Let && st.vars.size() == 1 && st.expr &&
        st.expr->kind == ast::ExprKind::New && st.expr->children.size() == 1 && loops_ == 0)
      candidates_.push_back(st.vars[0]);
    if (st.kind != StmtKind::Let)  // a Let declares its variables
      effects::for_each_written(st, effects::Element::AsCollection,
                                [&](const ast::VarDecl *v) { escapes_.insert(v); });
    if (st.target && st.target->kind != ast::ExprKind::Name) use(*st.target);
    bool loop = st.kind == StmtKind::For || st.kind == StmtKind::Map || st.kind == StmtKind::While;
    if (st.expr) {
      if (loop && st.kind != StmtKind::While && st.expr->kind == ast::ExprKind::Name) {
        // The loop's collection: its elements are used in the body.
      } else {
        use(*st.expr);
      }
    }
    loops_ += loop;
    anf::Visitor::visit(st);
    loops_ -= loop;
  }

  // Any appearance of a name other than those below lets the array escape.
  void use(const ast::Expr &e) {
    using ast::ExprKind;
    if (e.kind == ExprKind::Name) {
      if (e.var) escapes_.insert(e.var);
      return;
    }
    if (e.kind == ExprKind::Index && e.children[0]->kind == ExprKind::Name) {
      use(*e.children[1]);
      return;
    }
    const BuiltinInfo *b = e.kind == ExprKind::Call ? called_builtin(e) : nullptr;
    if (b && (b->length || b->prints)) {
      for (size_t i = 1; i < e.children.size(); ++i)
        if (e.children[i]->kind != ExprKind::Name) use(*e.children[i]);
      return;
    }
    for (auto &c : e.children)
      if (c) use(*c);
    for (auto &f : e.fields)
      if (f.value) use(*f.value);
  }

  int loops_ = 0;  // loops around the statement being visited
  std::vector<const ast::VarDecl *> candidates_;
  std::set<const ast::VarDecl *> escapes_;
};

}  // namespace

void find_local_arrays(Program &blocks) {
  for (Task &t : blocks.tasks) t.local_arrays = LocalArrays().find(*t.source);
}

}  // namespace kite::cps
