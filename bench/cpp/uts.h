// The binomial tree of bench/kite/uts.kite: child i of the node with state s
// has state hash(s + i + 1); a non-root node has m children when
// hash(s) % 10^6 < q, else none; the root has b0.
#pragma once
#include <vector>

#include "common.h"

inline int64_t child(int64_t s, int i) { return kite_hash(s + i + 1); }
inline bool has_children(int64_t s, int q) { return (kite_hash(s) & 0x7fffffff) % 1000000 < q; }

// Each peer defines how the children of a node are counted (in parallel or
// not); the rest of the tree walk is shared.
long children(int64_t s, int k, int m, int q);

inline long node(int64_t s, int m, int q) { return has_children(s, q) ? children(s, m, m, q) : 1; }

// The node itself plus its children's subtree counts.
inline long subtree_total(const std::vector<long> &counts) {
  long total = 1;
  for (long c : counts) total += c;
  return total;
}

struct UtsArgs {
  int b0, m, q;
};
inline UtsArgs uts_args(int argc, char **argv) {
  return {arg(argc, argv, 1, 2000), arg(argc, argv, 2, 8), arg(argc, argv, 3, 124875)};
}

// Node s's subtree counted sequentially (the cutoff peers' leaves).
inline long node_seq(int64_t s, int m, int q) {
  if (!has_children(s, q)) return 1;
  long total = 1;
  for (int i = 0; i < m; i++) total += node_seq(child(s, i), m, q);
  return total;
}

// The cutoff peers (-DWITH_CUTOFF): nodes this many levels below the root
// count their subtrees sequentially. The tree is unbalanced (a node's
// subtree is empty or, rarely, huge), so a depth is all an expert can
// choose by; tuned on a 2-core EPYC. The others spawn every call.
#ifdef WITH_CUTOFF
constexpr int kUtsCutoff = 3;
#else
constexpr int kUtsCutoff = 1 << 30;
#endif
