// Shared pieces of the N-queens peers (examples/nqueens.kite's algorithm):
// rows filled one at a time, the board as three bitmasks, one count per
// column of the row, then summed.
#pragma once
#include "common.h"

inline bool column_free(int cols, int left, int right, int bit) {
  return !(cols & bit) && !(left & bit) && !(right & bit);
}

inline int sum_counts(const int *counts, int n) {
  int total = 0;
  for (int i = 0; i < n; i++) total += counts[i];
  return total;
}

// The sequential search, for the sequential peer and below the cutoff.
inline int solve_seq(int n, int cols, int left, int right) {
  if (cols == (1 << n) - 1) return 1;
  int counts[32] = {};
  for (int i = 0; i < n; i++) {
    int bit = 1 << i;
    if (column_free(cols, left, right, bit))
      counts[i] = solve_seq(n, cols | bit, (left | bit) << 1, (right | bit) >> 1);
  }
  return sum_counts(counts, n);
}

// The cutoff peers (-DWITH_CUTOFF): a board with this many queens placed
// is searched sequentially (12 queens: 856 boards of 3 queens).
constexpr int kQueensCutoff = 3;
inline bool below_cutoff(int cols) { return __builtin_popcount(cols) >= kQueensCutoff; }
