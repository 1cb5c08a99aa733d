#include "host/residency.h"

#include <algorithm>

namespace kite::host {

uint32_t search_resident(uint32_t units, uint32_t most, bool cap_first,
                         const std::function<bool(uint32_t)> &passes) {
  units = std::max<uint32_t>(units, 1);
  most = std::max(most, units);
  uint32_t good = 0, bad = most + 1;
  if (cap_first) {
    if (passes(most)) return most;
    bad = most;
  }
  for (uint32_t g = units; g < bad; g *= 2) {
    if (!passes(g)) {
      bad = g;
      break;
    }
    good = g;
  }
  const uint32_t step = good >= units ? units : 1;
  while (bad - good > step) {
    uint32_t mid = good + (bad - good) / 2 / step * step;
    if (mid <= good) mid = good + step;
    if (mid >= bad) break;
    if (passes(mid)) {
      good = mid;
    } else {
      bad = mid;
    }
  }
  return good;
}

}  // namespace kite::host
