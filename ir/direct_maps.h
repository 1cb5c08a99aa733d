// Direct maps (an analysis for ir/cps.h): a map body is *direct* when all
// it does with the results of its calls is to store them in the iteration's
// element (`c <- f(...)`, which ANF writes `t <- f(...); c <- t`): nothing
// in the iteration waits for a call, so a record can run many iterations
// inline, each call's result going from the callee straight to its
// element, and the record counts only the calls still running (N-queens'
// and UTS's maps; `--dump-cps`: "results straight to elements").
#pragma once

#include <map>
#include <set>

#include "ir/ntg.h"

namespace kite::direct_maps {

// What the lowering does with a direct map's body: every call runs with
// nothing waiting for it, and the stores below are done by their calls.
struct Plan {
  // A call's node -> the `c <- t` that stores its result when it arrives;
  // a call not listed drops its result (`f(x);`).
  std::map<int, const anf::Stmt *> store_of;
  std::set<int> stores;  // the nodes of those stores: the lowering leaves them out
};

// Whether `map`, a Map node of the graphs of a program with `num_nodes`
// nodes, is direct; if so, its plan.
bool find(const ntg::Node &map, size_t num_nodes, Plan &plan);

}  // namespace kite::direct_maps
