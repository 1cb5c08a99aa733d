#include <tbb/task_group.h>

#include "nqueens.h"

// One task per free column of this row (as Kite's map), then a wait.
int solve(int n, int cols, int left, int right) {
#ifdef WITH_CUTOFF
  if (below_cutoff(cols)) return solve_seq(n, cols, left, right);
#endif
  if (cols == (1 << n) - 1) return 1;
  int counts[32] = {};
  tbb::task_group g;
  for (int i = 0; i < n; i++) {
    int bit = 1 << i;
    if (column_free(cols, left, right, bit))
      g.run([=, &counts] {
        counts[i] = solve(n, cols | bit, (left | bit) << 1, (right | bit) >> 1);
      });
  }
  g.wait();
  return sum_counts(counts, n);
}

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 10);
  std::printf("%d\n", timed([&] { return solve(n, 0, 0, 0); }));
}
