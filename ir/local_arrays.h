// Local arrays (an escape analysis for ir/cps.h): the arrays a task makes
// with `new` outside loops and only indexes, loops over, measures and
// prints, which no other task can reach, so that they go back to the heap
// when the task ends (Task::local_arrays, `--dump-cps`: "frees ...").
#pragma once

#include <vector>

#include "ir/anf.h"

namespace kite::cps {

// The local arrays of task t, in the order they are declared.
std::vector<const ast::VarDecl *> local_arrays(const anf::Task &t);

}  // namespace kite::cps
