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
// What a body may hold: `let` and `<-` of variables (scalars, task values,
// or references to arrays, structs, unions and tuples), `if`, `case`,
// `while`, `then` (one side run after the other), `return` and calls of
// tasks with a sequential form, by name or through a task value whose
// every possible task (anf::tasks_of_type) has one, on expressions that
// compute and read fields and elements (no allocation, print, atomic or
// anonymous task: ir/effects.h's only_reads); closures too, which read
// what they captured through their closure; `for` over ranges, run in
// order (a loop that ir/reductions made parallel folds integers, whose
// sums are the same in any order); the
// task's local arrays (cps::Task::local_arrays, of elements it holds):
// their `new`, `for` and `map` over them (a map run as a loop in order,
// whose body assigns only its own variables and the element), their
// elements read and written by index and their lengths, kept on the
// form's own stack, above the frame, and popped with it
// (backend-opencl/print_fast.cpp); and writes of elements of other arrays
// (`a[i] <- e`: the sorts' insertion sort and merge) and of structs' fields.
//
// A form that writes only its own stack can stop half way (its stack full,
// or another worker idle) and leave no trace: the call then becomes a task
// after all. One that writes other arrays (cps::Task::fast_writes, and
// every form that calls one) must never lose what it did: it runs only
// where forms keep their frames in records when they stop
// (plan::KeptForm::writes, KITE_KEEP), and until its first write it may
// still stop as the others do. docs/design.md, "Work-first", has the rule
// and its worst case.
#pragma once

#include "ir/cps.h"

namespace kite::fast_clones {

// Marks every task that has a sequential form (cps::Task::fast).
// Where a task has none, cps::Task::no_fast says why.
void find(cps::Program &blocks);

// Whether `s` writes a struct's field, or an element of an array other than
// `local_arrays` (a task's own, which its form keeps on its stack): a form
// that runs it writes memory (cps::Task::fast_writes).
bool writes_memory(const anf::Stmt &s, const std::vector<const ast::VarDecl *> &local_arrays);

}  // namespace kite::fast_clones
