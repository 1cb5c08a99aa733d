// Tail calls (§3.3.4): a task whose last node is `return t`, where t is the
// result of a call that everything else in the task happens before, lets
// the callee finish the task: the callee's result goes straight to this
// task's caller and this task's record is freed at once. Branches of a last
// `if` or `case` (not flattened) are searched the same way. The pass marks
// such calls (ntg::Node::tail_call); the lowering (ir/cps.h) reads the mark.
#pragma once

#include "ir/ntg.h"

namespace kite::tail_calls {

// Marks the tail calls of every task's graph.
void mark(ntg::Program &graphs);

}  // namespace kite::tail_calls
