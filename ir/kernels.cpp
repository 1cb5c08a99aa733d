// Map kernels: which maps may run as an OpenCL kernel of their own.
#include "ir/kernels.h"

#include "frontend/check.h"

namespace kite::kernels {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtList;

bool in_expr(const Expr &e) {
  switch (e.kind) {
    case ExprKind::New:
    case ExprKind::Construct:
    case ExprKind::Tuple:
    case ExprKind::AnonTask:
    case ExprKind::Future: return true;
    case ExprKind::Call:
      if (e.children[0]->builtin == int(Builtin::print_)) return true;
      break;
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::BoolLit:
    case ExprKind::StringLit:  // only in a print, which allocates nothing
    case ExprKind::Name:       // constants are scalars
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Field:
    case ExprKind::Index:
    case ExprKind::Range: break;
  }
  for (auto &c : e.children)
    if (c && in_expr(*c)) return true;
  for (auto &f : e.fields)
    if (f.value && in_expr(*f.value)) return true;
  return false;
}

bool in_list(const StmtList &list) {
  for (auto &st : list) {
    if (st->expr && in_expr(*st->expr)) return true;
    if (st->target && in_expr(*st->target)) return true;
    if (in_list(st->body) || in_list(st->else_body)) return true;
    for (auto &b : st->branches)
      if (in_list(b.body)) return true;
  }
  return false;
}

}  // namespace

bool allocates_or_prints(const Stmt &map) { return in_list(map.body); }

}  // namespace kite::kernels
