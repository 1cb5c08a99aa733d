// The residency probe's search (host/launch.cpp runs it with probe
// launches): how many work-groups of a persistent kernel are resident at
// once, found by launching grids that pass only where all of their groups
// run at the same time.
#pragma once

#include <cstdint>
#include <functional>

namespace kite::host {

// The largest grid in [1, most] for which `passes` holds, 0 if none, given
// that it holds for every smaller grid where it holds for a larger one.
// `cap_first` (a GPU, where `most` is kite-run's cap and most kernels have
// that many resident): `most` is tried first, one launch where it passes.
// Otherwise, or where it fails, the grid doubles from `units` (one group
// per compute unit) to the first failure, and the search bisects between
// the last pass and it, in steps of `units` (residency is normally a
// whole number of groups per compute unit) unless even `units` fails.
uint32_t search_resident(uint32_t units, uint32_t most, bool cap_first,
                         const std::function<bool(uint32_t)> &passes);

}  // namespace kite::host
