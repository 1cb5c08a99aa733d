// Graph flattening (§3.3.4, left as future work by the paper): a parallel
// `if` whose branches touch disjoint variables becomes two `if`s on the
// same condition, one per branch, so that what follows one branch need not
// wait for the other. The condition is read by both before
// either branch runs: it calls nothing, and neither branch may determine
// it. Each half is marked (ntg::Node::flattened) and holds an empty graph
// in place of the other's branch.
#pragma once

#include "ir/ntg.h"

namespace kite::flatten {

// Splits the `if`s of every task's graphs that can be, and numbers the
// nodes and graphs again, in the order of the statements they come from.
void split_ifs(ntg::Program &graphs);

}  // namespace kite::flatten
