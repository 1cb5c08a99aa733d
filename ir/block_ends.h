// Block-end rules (optimisations of the CPS blocks): the events a graph's
// counter and a block's join counter need not count, because a later
// event they count implies them. imply_waited_nodes: a parallel node
// that a block of its own graph waits for (`NodeInfo::implied`;
// `--dump-cps`: "which count for it"). imply_block_ends: a block whose last
// op starts an event of its graph (`Block::end_implied`; `--dump-cps`: "its
// end implied by its last op's").
// Each function's comment has the rule and where it does not apply.
#pragma once

#include "ir/cps.h"

namespace kite::cps {

void imply_waited_nodes(Program &p);
void imply_block_ends(Program &p);

}  // namespace kite::cps
