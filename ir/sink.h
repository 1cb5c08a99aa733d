// Sinking (an optimisation of the CPS blocks): a block's parallel ops start
// events, and the statements after them in the block do not depend on them
// (a node that does has them among its parallel ancestors, so it runs in a
// later block). An assignment that only computes moves before the parallel
// ops it does not conflict with, so that a block more often ends with the
// op that starts its last event and its end need not be counted or
// signalled (ir/block_ends.h): UTS's `total: long = 1` after its map.
// Nothing that takes longer moves: a loop or an allocation would hold the
// calls back.
#pragma once

#include "ir/cps.h"

namespace kite::sink {

// Sinks the parallel ops of every block below the assignments that only
// compute; `graphs` are the task graphs `blocks` were lowered from.
void parallel_ops(cps::Program &blocks, const ntg::Program &graphs);

}  // namespace kite::sink
