// Sequential forms ("fast clones", Cilk-5's term; run unless -O0): a task
// whose body only computes and reads, and calls tasks that have a
// sequential form too, gets a second form, run in its caller's worker,
// depth first, with its frames on a stack of that worker's own: no
// record, no queue, no atomic, no fence. A call of such a task from a
// block (not a tail call, not one of a loop's detached calls or a direct
// map's) runs that form instead of becoming a task when the runtime's rule
// says the worker has work to spare (kite_fast_now in
// runtime-cl/device/fast.cl); the results and run-time errors are the
// same either way.
//
// What a body may hold: `let` and `<-` of variables (scalars, or references
// to arrays, structs, unions and tuples), `if`, `case`, `while`, `return`
// and calls of tasks with a sequential form, on expressions that compute
// and read fields and elements (no allocation, print, atomic or task
// value: ir/effects.h's only_reads); `for` over ranges, run in order (a
// loop that ir/reductions made parallel folds integers, whose sums are
// the same in any order); and the task's local arrays
// (cps::Task::local_arrays, of elements it holds): their `new`, `for` and
// `map` over them (a map run as a loop in order, whose body assigns only
// its own variables and the element), their elements read and written by
// index and their lengths. The form keeps those arrays on its own stack,
// above the frame, and pops them with it (backend-opencl/print_fast.cpp).
// So the form never writes memory that anything else reads, and a run of
// it that stops half way (its stack full, or another worker idle) leaves
// no trace: the call then becomes a task after all. docs/design.md,
// "Work-first", has the rule and its worst case.
#pragma once

#include "ir/cps.h"

namespace kite::fast_clones {

// Marks every task that has a sequential form (cps::Task::fast).
void find(cps::Program &blocks);

}  // namespace kite::fast_clones
