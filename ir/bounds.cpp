// Bounds: the array indices of a loop proved in bounds by one check before it.
#include "ir/bounds.h"

#include "frontend/types.h"
#include "ir/vars.h"

namespace kite::bounds {
namespace {

using anf::Stmt;
using anf::StmtKind;
using ast::BinaryOp;
using ast::Expr;
using ast::ExprKind;
using ast::VarDecl;

// Whether the statements are straight-line code: no loop, no case, no
// return, no task call.
bool straight_line(const anf::StmtList &list) {
  for (auto &st : list) {
    switch (st->kind) {
      case StmtKind::Let:
      case StmtKind::Set:
      case StmtKind::Do:
        break;
      case StmtKind::If:
        if (!straight_line(st->body) || !straight_line(st->else_body)) return false;
        break;
      case StmtKind::Call:
      case StmtKind::Return:
      case StmtKind::Then:
      case StmtKind::Case:
      case StmtKind::For:
      case StmtKind::Map:
      case StmtKind::While:
        return false;
    }
  }
  return true;
}

bool is_int(const Expr &e) { return e.type && e.type->forced()->kind == TypeKind::Int; }

class Affine {
 public:
  Affine(const anf::Task &task, const Stmt &loop, const vars::VarSet &written)
      : task_(task), loop_(loop), written_(written) {}

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
      const Stmt *other = task_.element_of(e.var);
      if (other && other->coll_var->type->forced()->kind != TypeKind::Range) return false;
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
    if (array.kind != ExprKind::Name || !array.var || task_.element_of(array.var) ||
        written_.count(array.var) || array.type->forced()->kind != TypeKind::Array)
      return false;
    bool varies = false;
    return affine(*index.children[1], varies);
  }

 private:
  const anf::Task &task_;
  const Stmt &loop_;
  const vars::VarSet &written_;
};

}  // namespace

bool is_loop_var(const Stmt &loop, const VarDecl *v) {
  if (v == loop.index_var) return true;
  return v == loop.elem_var && loop.coll_var &&
         loop.coll_var->type->forced()->kind == TypeKind::Range;
}

std::vector<const Expr *> hoistable(const anf::Task &task, const Stmt &loop) {
  std::vector<const Expr *> out;
  if (loop.kind != StmtKind::For || !loop.index_var || !loop.coll_var) return out;
  if (!straight_line(loop.body)) return out;
  vars::VarSet written = {loop.index_var, loop.coll_var};
  if (loop.elem_var) written.insert(loop.elem_var);
  vars::collect(loop.body, vars::Use::Written, written);
  // The loop's own variables vary; hoistable() asks is_loop_var first.
  Affine affine(task, loop, written);
  anf::for_each_expr(loop.body, [&](const Expr &e) {
    if (e.kind == ExprKind::Index && affine.hoistable(e)) out.push_back(&e);
  });
  return out;
}

}  // namespace kite::bounds
