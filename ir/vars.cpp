// Variables: the variables a piece of the AST uses, assigns or declares.
#include "ir/vars.h"

#include "ir/ntg.h"

namespace kite::vars {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;

class Collector : public ast::Visitor {
 public:
  Collector(Use use, VarSet &out) : use_(use), out_(out) {}
  using Visitor::visit;
  void visit(const Expr &e) override {
    if (use_ != Use::Any) return;  // expressions declare nothing
    if (e.var) out_.insert(e.var);
    Visitor::visit(e);
  }
  void visit(const Stmt &st) override {
    if (use_ == Use::Written && st.target && st.target->kind == ExprKind::Name && st.target->var)
      out_.insert(st.target->var);
    for (const ast::VarDecl *v : ast::declared_vars(st)) out_.insert(v);
    if (st.index_var) out_.insert(st.index_var.get());
    if (st.coll_var) out_.insert(st.coll_var.get());
    for (auto &b : st.branches)
      if (b.binder_var) out_.insert(b.binder_var);
    Visitor::visit(st);
  }

 private:
  Use use_;
  VarSet &out_;
};

}  // namespace

void collect(const ast::StmtList &list, Use use, VarSet &out) { Collector(use, out).visit(list); }

void collect(const Expr &e, VarSet &out) { Collector(Use::Any, out).visit(e); }

}  // namespace kite::vars
