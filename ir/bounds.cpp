// Bounds: the array indices of a loop proved in bounds by one check before it.
#include "ir/bounds.h"

#include "frontend/types.h"
#include "ir/vars.h"

namespace kite::bounds {
namespace {

using ast::BinaryOp;
using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;
using ast::VarDecl;

// Whether the statements are straight-line code: no loop, no case, no
// return, no task call.
bool straight_line(const ast::StmtList &list) {
  for (auto &st : list) {
    switch (st->kind) {
      case StmtKind::Decl:
      case StmtKind::Assign:
      case StmtKind::ExprStmt: break;
      case StmtKind::If:
      case StmtKind::Block:
        if (!straight_line(st->body) || !straight_line(st->else_body)) return false;
        break;
      case StmtKind::Return:
      case StmtKind::Then:
      case StmtKind::Case:
      case StmtKind::For:
      case StmtKind::Map:
      case StmtKind::While: return false;
    }
    if (st->expr && ast::contains_task_call(*st->expr)) return false;
    if (st->target && ast::contains_task_call(*st->target)) return false;
  }
  return true;
}

bool is_int(const Expr &e) { return e.type && e.type->forced()->kind == TypeKind::Int; }

class Affine {
 public:
  Affine(const Stmt &loop, const vars::VarSet &written)
      : loop_(loop), written_(written) {}

  // Whether e is affine in the loop's variables; `varies` says whether it
  // mentions them. Any other kind of expression (a new one included) is not.
  bool affine(const Expr &e, bool &varies) const {
    varies = false;
    if (!is_int(e)) return false;
    if (e.kind == ExprKind::IntLit) return !e.is_long;
    if (e.kind == ExprKind::Name) {
      if (!e.var) return false;
      if (is_loop_var(loop_, e.var)) {
        varies = true;
        return true;
      }
      // An element of another loop over an array is memory the body may
      // write; an enclosing range loop's element is not.
      if (e.var->alias_of && e.var->alias_of->coll_var &&
          e.var->alias_of->coll_var->type->forced()->kind != TypeKind::Range)
        return false;
      return !written_.count(e.var);
    }
    if (e.kind == ExprKind::Unary)
      return e.unop == ast::UnaryOp::Neg && affine(*e.children[0], varies);
    if (e.kind != ExprKind::Binary ||
        (e.binop != BinaryOp::Add && e.binop != BinaryOp::Sub && e.binop != BinaryOp::Mul))
      return false;
    bool va = false, vb = false;
    if (!affine(*e.children[0], va) || !affine(*e.children[1], vb)) return false;
    varies = va || vb;
    return e.binop != BinaryOp::Mul || !(va && vb);  // a product with one varying side
  }

  bool hoistable(const Expr &index) const {
    const Expr &array = *index.children[0];
    if (array.kind != ExprKind::Name || !array.var || array.var->alias_of ||
        written_.count(array.var) || array.type->forced()->kind != TypeKind::Array)
      return false;
    bool varies = false;
    return affine(*index.children[1], varies);
  }

 private:
  const Stmt &loop_;
  const vars::VarSet &written_;
};

}  // namespace

bool is_loop_var(const Stmt &loop, const VarDecl *v) {
  if (v == loop.index_var.get()) return true;
  return v == loop.elem_var.get() && loop.coll_var &&
         loop.coll_var->type->forced()->kind == TypeKind::Range;
}

std::vector<const Expr *> hoistable(const Stmt &loop) {
  std::vector<const Expr *> out;
  if (loop.kind != StmtKind::For || !loop.index_var || !loop.coll_var) return out;
  if (!straight_line(loop.body)) return out;
  vars::VarSet written = {loop.index_var.get(), loop.coll_var.get()};
  if (loop.elem_var) written.insert(loop.elem_var.get());
  vars::collect(loop.body, vars::Use::Written, written);
  // The loop's own variables vary; hoistable() asks is_loop_var first.
  Affine affine(loop, written);
  ast::for_each_expr(loop.body, [&](const Expr &e) {
    if (e.kind == ExprKind::Index && affine.hoistable(e)) out.push_back(&e);
  });
  return out;
}

}  // namespace kite::bounds
