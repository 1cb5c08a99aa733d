// Variables: the variables a piece of ANF uses, assigns or declares.
#include "ir/vars.h"

#include "ir/effects.h"

namespace kite::vars {
namespace {

using anf::Stmt;
using ast::Expr;

class Collector : public anf::Visitor {
 public:
  Collector(Use use, VarSet &out) : use_(use), out_(out) {}
  using Visitor::visit;
  void visit(const Expr &e) override {
    if (use_ != Use::Any) return;  // expressions declare nothing
    if (e.var) out_.insert(e.var);
    Visitor::visit(e);
  }
  void visit(const Stmt &st) override {
    // What the statement binds (and for Written, assigns); a loop's element
    // is the collection's.
    if (use_ == Use::Written) {
      effects::for_each_written(st, effects::Element::AsCollection,
                                [&](const ast::VarDecl *v) { out_.insert(v); });
    } else {
      for (const ast::VarDecl *v : anf::bound_vars(st))
        if (v != st.elem_var) out_.insert(v);
    }
    Visitor::visit(st);
  }

 private:
  Use use_;
  VarSet &out_;
};

}  // namespace

void collect(const anf::StmtList &list, Use use, VarSet &out) { Collector(use, out).visit(list); }

void collect(const Stmt &st, Use use, VarSet &out) { Collector(use, out).visit(st); }

void collect(const Expr &e, VarSet &out) { Collector(Use::Any, out).visit(e); }

LoopVars loop_vars(const anf::Task &task, const anf::Stmt &loop, bool chunk) {
  LoopVars out;
  if (loop.index_var) out.used = {loop.index_var, loop.coll_var};
  if (loop.expr && !chunk) collect(*loop.expr, out.used);
  collect(loop.body, Use::Any, out.used);
  // The element of an enclosing loop is that loop's collection at its
  // index: those two.
  for (const ast::VarDecl *v : VarSet(out.used)) {
    const Stmt *outer = task.element_of(v);
    if (outer && outer != &loop) {
      out.used.insert(outer->coll_var);
      out.used.insert(outer->index_var);
    }
  }
  if (loop.index_var) out.written = {loop.index_var, loop.coll_var};
  collect(loop.body, Use::Written, out.written);
  return out;
}

}  // namespace kite::vars
