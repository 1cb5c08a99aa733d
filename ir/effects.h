// What evaluating an expression does besides giving its value, which
// variables a statement writes, and what a loop's element stands for: the
// one answer every pass asks, from "does this expression only compute?"
// (leaf_calls, sink) to "may it run in another order, or in a kernel?"
// (reductions, kernels, fast_clones), "what does this statement assign?"
// (vars, the backend's plan, local_arrays), "what does writing this element
// write?" (ntg's edges, -Wunordered-read) and "what may the program write
// through this variable, and which of its fields?" (-Wunordered-read).
// Each pass reads the fields it cares about; where two passes want
// different answers, an option of the query names the difference and says
// why. Built-ins answer from their table (frontend/builtins.h).
#pragma once

#include <functional>
#include <map>
#include <set>
#include <vector>

#include "frontend/ast.h"
#include "ir/anf.h"

namespace kite::effects {

struct Effects {
  bool calls = false;        // calls a task, named or a task value
  bool makes_tasks = false;  // an anonymous task (a closure) or `task e` (a future)
  bool allocates = false;    // new, a struct or union value, an allocating built-in
  bool tuples = false;       // makes a tuple, a record on the heap that is never written
  bool prints = false;       // a printing built-in
  bool writes = false;       // an array element, by a writing built-in (the atomics)
  bool reads = false;        // a field, an element or a length: memory a task may write
  bool ranges = false;       // makes a range
  // The names it reads: variables, top-level constants and task values, but
  // not the callee of a call (a built-in, a task or a task value it calls).
  std::vector<const ast::Expr *> names;

  // Whether it does nothing but compute from its names, literals and the
  // values of fields, elements and lengths (which `reads` says it reads):
  // evaluated again, it gives the same value and fails (a division by
  // zero, an index out of bounds) the same way, unless a task wrote what
  // it reads in between.
  bool only_reads() const {
    return !calls && !makes_tasks && !allocates && !tuples && !prints && !writes;
  }
};

// What evaluating e may do. A string literal (only ever an argument of
// print) adds nothing to the print's; an anonymous task's body is its own
// task's.
Effects of(const ast::Expr &e);

// Whether e only computes: literals, names that `name_ok` accepts, operators
// and pure built-ins applied to such; no field, element or length read, and
// no range (a value its askers, leaf answers and sinking, never move).
// Evaluated twice, it gives the same value and fails (a division by zero)
// the same way.
bool only_computes(const ast::Expr &e, const std::function<bool(const ast::Expr &)> &name_ok);

// Whether a loop writes its element (an `x <- e` of the element writes it
// either way).
enum class Element {
  // No: binding the element names its collection's element at the index,
  // which the loop's collection and index stand for. The backend holds a
  // loop's variables in C variables and stores back those written
  // (vars::Use::Written): the collection and the index, not the element.
  AsCollection,
  // Yes, a variable bound anew at each iteration: the plan's count of the
  // statements that write a variable (assigned_once) must not take an
  // element its body assigns once for a variable written once.
  AsVariable,
};

// Calls fn on each variable that statement st itself (not a statement
// nested in it) writes as a whole: what it binds (a declaration's
// variables, a loop's index, collection and element as `element` says, a
// case binder) and its target when that is a variable (x <- e).
void for_each_written(const anf::Stmt &st, Element element,
                      const std::function<void(const ast::VarDecl *)> &fn);

// Whether a value of type t is a heap value (docs/language.md, Data): an
// array, struct, union or tuple, passed by reference, so that a task given
// it, or a second name (`b = a`), reaches the value itself. Only such an
// argument is shared with the task called (written_through), and only such
// a variable has second names (-Wunordered-read).
bool heap_value(const Type &t);

// A write through a variable that selects no one field of its value: an
// element of an array, or the whole value (given to a task value).
constexpr int kAnyField = -1;

// Where expression e is reached from: the variable it is reached through by
// fields and indices, and the field of that variable's value the first
// access selects (ast::Expr::field; kAnyField for an index, or for the
// variable itself, which `whole` says). `p.items[i]`: p, items; `a[i]`: a,
// any; `a`: a, whole. No variable when e starts from anything else.
struct Reach {
  const ast::VarDecl *var = nullptr;
  int field = kAnyField;
  bool whole = false;
};
Reach reach(const ast::Expr &e);

// The variable expression e is reached through (reach(e).var): `a` of
// `a`, `a[i]`, `p.items[i]`; null when it starts from anything else. It is
// what writing through e writes (an assignment's target, an atomic's
// element, a heap value given to a task): Figure 7's flvs (ir/ntg), a
// loop's collection (element_collections) and the program's writes
// (written_through).
const ast::VarDecl *reached_through(const ast::Expr &e);

// The variables the loop element with id `var` of `task` stands for when a
// statement writes or reads it: the variable its collection is reached
// through (Figure 7's flvs: `a` for `for (x = a)`, `p` for `for (x =
// p.items)`, `m` for `for (x = m[0][j])`), and in turn what that variable
// stands for when it is an enclosing loop's element; none when `var` is no
// loop's element. Writing the element writes that variable's heap value,
// so it orders as `p.items[i] <- e` would: the task graphs' edges (ntg's
// link), -Wunordered-read's writes through second names (ir/lint) and
// written_through ask this.
std::vector<int> element_collections(const anf::Task &task, int var);

// The variables, of every task, whose heap value (heap_value) the program
// may write through, each with the fields of the value written: an
// assignment to an element or a field (`a[i] <- e`, `r.f <- e`) or to a
// loop's element, an atomic built-in's element, and a heap value given to
// a task that writes its parameter, or to a task value (which may write
// anything it is given). Each such write writes the variable its
// expression is reached through (reach), at the field its first access
// selects (`r.f[i] <- e`, `atomic_add(r.f[i], 1)`: f of r), and, when that
// variable is a loop's element, what the element stands for
// (element_collections), at the field its collection is reached by (`for
// (x = r.f)`: f of r): assigning the element writes those alone. A value
// given whole to a task is written at the fields the task writes of its
// parameter, any field (kAnyField) for a task value. In an anonymous task
// a field of its closure stands for the variable it captured
// (ir/closures.h): what the task writes, its maker's variable holds.
// Whether a task writes its parameter, and which fields, depends on the
// tasks it calls, so the answer is a fixed point over the program: the
// field-level answer to "what does this call write of what it is given?"
// (-Wunordered-read asks it for a read of a field after a call).
using Written = std::map<const ast::VarDecl *, std::set<int>>;
Written written_through(const anf::Program &program);

}  // namespace kite::effects
