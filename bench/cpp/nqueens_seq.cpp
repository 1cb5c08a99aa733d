#include "nqueens.h"

// Same algorithm as examples/nqueens.kite: rows filled one at a time, the
// board as three bitmasks, one count per column of this row, then summed.
int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 10);
  std::printf("%d\n", timed([&] { return solve_seq(n, 0, 0, 0); }));
}
