// Leaf answers: the pass that finds them (leaf_calls.h).
#include "ir/leaf_calls.h"

#include <algorithm>

#include "frontend/check.h"

namespace kite::leaf_calls {

using anf::Stmt;
using anf::StmtKind;
using ast::Expr;
using ast::ExprKind;

namespace {

// Built-ins that only compute from their arguments.
bool pure_builtin(int b) {
  switch (Builtin(b)) {
    case Builtin::int_:
    case Builtin::long_:
    case Builtin::float_:
    case Builtin::double_:
    case Builtin::abs_:
    case Builtin::min_:
    case Builtin::max_:
    case Builtin::sqrt_:
    case Builtin::exp_:
    case Builtin::log_:
    case Builtin::sin_:
    case Builtin::cos_:
    case Builtin::floor_:
    case Builtin::pow_:
    case Builtin::hash_: return true;
    default: return false;
  }
}

// Whether e only computes from the parameters of `task`: evaluated on a
// call's arguments in the caller, it gives what the callee would, and
// fails (a division by zero) exactly where the callee would.
bool computes(const Expr &e, const ast::TaskDecl &task, const ast::VarDecl *binder = nullptr) {
  switch (e.kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::BoolLit: return true;
    case ExprKind::Name:
      if (e.var)
        return e.var == binder || std::find(task.param_vars.begin(), task.param_vars.end(),
                                            e.var) != task.param_vars.end();
      return e.global != nullptr;  // a top-level constant
    case ExprKind::Unary:
    case ExprKind::Binary:
      return std::all_of(e.children.begin(), e.children.end(),
                         [&](const ast::ExprPtr &c) { return computes(*c, task, binder); });
    case ExprKind::Call:
      if (e.children[0]->kind != ExprKind::Name || e.children[0]->builtin < 0 ||
          !pure_builtin(e.children[0]->builtin))
        return false;
      return std::all_of(e.children.begin() + 1, e.children.end(),
                         [&](const ast::ExprPtr &c) { return computes(*c, task, binder); });
    default: return false;
  }
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
