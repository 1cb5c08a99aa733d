// Leaf answers: the pass that finds them (leaf_calls.h).
#include "ir/leaf_calls.h"

#include <algorithm>

#include "ir/effects.h"

namespace kite::leaf_calls {

using anf::Stmt;
using anf::StmtKind;
using ast::Expr;
using ast::ExprKind;

namespace {

// Whether e only computes from the parameters of `task`: evaluated on a
// call's arguments in the caller, it gives what the callee would, and
// fails (a division by zero) exactly where the callee would.
bool computes(const Expr &e, const ast::TaskDecl &task, const ast::VarDecl *binder = nullptr) {
  return effects::only_computes(e, [&](const Expr &name) {
    if (!name.var) return name.global != nullptr;  // a top-level constant
    return name.var == binder || std::find(task.param_vars.begin(), task.param_vars.end(),
                                           name.var) != task.param_vars.end();
  });
}

// The value of `return e` if `list` is exactly that, else null.
const Expr *returned(const anf::StmtList &list) {
  if (list.size() != 1 || list[0]->kind != StmtKind::Return || !list[0]->expr) return nullptr;
  return list[0]->expr.get();
}

ntg::LeafAnswer answer(const anf::Task &t) {
  ntg::LeafAnswer none;
  const ast::TaskDecl &decl = *t.decl;
  if (decl.env || !decl.result_type || !decl.result_type->is_scalar()) return none;
  if (t.body.empty()) return none;
  const Stmt &s = *t.body[0];
  if (s.kind == StmtKind::Case) {
    // A union parameter's field, whose branch only returns (unions never
    // change once made, so the caller reads the same tag and value).
    const Expr &u = *s.expr;
    if (u.kind != ExprKind::Name || !computes(u, decl)) return none;
    for (const anf::CaseBranch &b : s.branches) {
      const Expr *value = returned(b.body);
      if (!b.field.empty() && value && computes(*value, decl, b.binder)) {
        ntg::LeafAnswer a;
        a.value = value;
        a.scrutinee = &u;
        a.field = b.field_index;
        a.binder = b.binder;
        return a;
      }
    }
    return none;
  }
  if (s.kind != StmtKind::If || !s.has_else) return none;
  if (!computes(*s.expr, decl)) return none;
  for (bool on_false : {false, true}) {
    const Expr *value = returned(on_false ? s.else_body : s.body);
    if (value && computes(*value, decl)) return {s.expr.get(), on_false, value};
  }
  return none;
}

}  // namespace

void find(ntg::Program &graphs) {
  for (auto &t : graphs.tasks) t.leaf = answer(*t.task);
}

}  // namespace kite::leaf_calls
