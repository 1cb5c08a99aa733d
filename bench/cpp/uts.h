// The binomial tree of bench/kite/uts.kite: child i of the node with state s
// has state hash(s + i + 1); a non-root node has m children when
// hash(s) % 10^6 < q, else none; the root has b0.
#pragma once
#include "common.h"
#include <vector>

inline int64_t child(int64_t s, int i) { return kite_hash(s + i + 1); }
inline bool has_children(int64_t s, int q) {
  return (kite_hash(s) & 0x7fffffff) % 1000000 < q;
}
