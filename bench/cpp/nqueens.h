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
