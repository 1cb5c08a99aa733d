#include "nqueens.h"

// Same algorithm as examples/nqueens.kite: rows filled one at a time, the
// board as three bitmasks, one count per column of this row, then summed.
int solve(int n, int cols, int left, int right) {
  if (cols == (1 << n) - 1) return 1;
  int counts[32] = {};
  for (int i = 0; i < n; i++) {
    int bit = 1 << i;
    if (column_free(cols, left, right, bit))
      counts[i] = solve(n, cols | bit, (left | bit) << 1, (right | bit) >> 1);
  }
  return sum_counts(counts, n);
}

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 10);
  std::printf("%d\n", timed([&] { return solve(n, 0, 0, 0); }));
}
