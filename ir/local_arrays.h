// Local arrays (an escape analysis of the CPS program's tasks): the arrays a task makes
// with `new` outside loops and only indexes, loops over, measures and
// prints, which no other task can reach, so that they go back to the heap
// when the task ends (Task::local_arrays, `--dump-cps`: "frees ...").
#pragma once

#include "ir/cps.h"

namespace kite::cps {

// Finds every task's local arrays (Task::local_arrays), in the order they
// are declared.
void find_local_arrays(Program &blocks);

}  // namespace kite::cps
