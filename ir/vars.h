// Variables: the variables a piece of ANF uses, assigns or declares, in
// id order.
//
// The backend holds the variables of a loop that calls no task in C
// variables (used), stores back the ones it assigns (written), and keeps
// an iteration's own variables out of its record (declared); ir/bounds
// asks which variables a loop leaves alone. One walk serves them all.
#pragma once

#include <set>

#include "ir/anf.h"

namespace kite::vars {

// Variables in id order, so that generated code does not depend on where
// they happen to be allocated (ir/anf numbers them).
struct ById {
  bool operator()(const ast::VarDecl *a, const ast::VarDecl *b) const { return a->id < b->id; }
};
using VarSet = std::set<const ast::VarDecl *, ById>;

enum class Use {
  Declared,  // declared: by a declaration, a loop (its index and collection), a case binder
  Written,   // declared, or assigned as a whole (x <- e)
  Any,       // declared, or named anywhere
};

// Adds to `out` the variables that the statements of `list`, and the
// statements nested in them, use as `use` says.
void collect(const anf::StmtList &list, Use use, VarSet &out);
// The same for one statement.
void collect(const anf::Stmt &st, Use use, VarSet &out);
// Adds to `out` every variable `e` names.
void collect(const ast::Expr &e, VarSet &out);

// The variables of a loop that calls no task, which the backend holds in C
// variables while it runs: those its body names (an enclosing loop's element
// counting as that loop's collection and index), its index and collection,
// and, unless `chunk` (a map's or a reduction's chunk, whose record holds
// only what the iterations read), what its collection expression names.
// `written`: those the body assigns as a whole, with the index and the
// collection: stored back after the loop.
struct LoopVars {
  VarSet used, written;
};
LoopVars loop_vars(const anf::Task &task, const anf::Stmt &loop, bool chunk);

}  // namespace kite::vars
