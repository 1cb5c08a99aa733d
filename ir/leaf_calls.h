// Leaf answers (an optimisation of §3.3.4's kind): a task
// whose body starts with
//
//   if (c) { return e; } else { ... }     (or the mirror: return e in else)
//
// where c and e only compute from its parameters (no task call, no
// allocation, no print, no element, field or closure read) answers a call
// whose arguments make that branch run without becoming a task: the caller
// evaluates c, and then e, on the arguments where it would have queued the
// call, and hands e on as the call's result. Everything the callee would
// have done is the same; fib(n)'s calls of fib(1) and fib(0), half its
// tasks, and UTS's childless nodes, most of its tasks, cost no record, no
// queue entry and no block of their own.
//
// A task that starts with `case (u) { f x: return e; ... }`, u a union
// parameter and e computing from the parameters and x, answers the same
// way where u holds field f: unions never change once made, so the caller
// reads the tag and the value the callee would (tree sum's leaves).
//
// The pass finds each task's answer (ntg::TaskGraph::leaf); the lowering
// copies it to cps::Task::leaf, and cps::answered_at_call says which calls
// use it (not tail calls, and not calls a loop has detached). The runtime
// may still leave some to the callee: on wide workers, calls in direct
// maps and answers by `case` (KITE_ANSWER_IN_MAPS, KITE_ANSWER_BY_CASE in
// runtime-cl/device/config.cl).
#pragma once

#include "ir/ntg.h"

namespace kite::leaf_calls {

// Finds every task's leaf answer, if it has one.
void find(ntg::Program &graphs);

}  // namespace kite::leaf_calls
