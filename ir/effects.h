// What evaluating an expression does besides giving its value: the one
// answer every pass asks, from "does this expression only compute?"
// (leaf_calls, sink) to "may it run in another order, or in a kernel?"
// (reductions, kernels, fast_clones). Each pass reads the fields it cares
// about; built-ins answer from their table (frontend/builtins.h).
#pragma once

#include <functional>
#include <vector>

#include "frontend/ast.h"

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
// no range (the leaf answers and the sinking that ask deal in scalars).
// Evaluated twice, it gives the same value and fails (a division by zero)
// the same way.
bool only_computes(const ast::Expr &e, const std::function<bool(const ast::Expr &)> &name_ok);

}  // namespace kite::effects
