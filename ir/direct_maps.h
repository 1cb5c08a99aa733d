// Direct maps (an analysis of the task graphs for ir/cps.h): a map body is *direct* when all
// it does with the results of its calls is to store them in the iteration's
// element (`c <- f(...)`, which ANF writes `t <- f(...); c <- t`): nothing
// in the iteration waits for a call, so a record can run many iterations
// inline, each call's result going from the callee straight to its
// element, and the record counts only the calls still running (N-queens'
// and UTS's maps; `--dump-cps`: "results straight to elements").
#pragma once

#include "ir/ntg.h"

namespace kite::direct_maps {

// Finds the direct maps of the task graphs (ntg::Program::direct_maps).
void find(ntg::Program &graphs);

}  // namespace kite::direct_maps
