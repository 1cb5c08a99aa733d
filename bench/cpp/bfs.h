// The graph of bench/kite/bfs.kite: node u has degree(u) out-edges (d on
// average) and edge e goes to node target(e); compressed rows: the edges of
// u are targets[off[u] .. off[u+1] - 1]. The result line is the number of
// nodes reached from node 0, the number of levels, the sum of distances.
#pragma once
#include <string>
#include <vector>

#include "common.h"

inline int degree(int u, int d) { return 1 + (int)((kite_hash(u) & 0x7fffffff) % (2 * d - 1)); }
inline int target(int e, int n) { return (int)((kite_hash(4294967296LL + e) & 0x7fffffff) % n); }

inline std::string result(const std::vector<int> &dist, int levels) {
  long reached = 0, total = 0;
  for (int x : dist)
    if (x >= 0) reached++, total += x;
  return std::to_string(reached) + " " + std::to_string(levels) + " " + std::to_string(total);
}
