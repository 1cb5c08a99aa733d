#include "uts.h"

long node(int64_t s, int m, int q);

// One task per child (as Kite's map), a taskwait, then the sum.
long children(int64_t s, int k, int m, int q) {
  std::vector<long> counts(k);
  for (int i = 0; i < k; i++) {
#pragma omp task shared(counts)
    counts[i] = node(child(s, i), m, q);
  }
#pragma omp taskwait
  long total = 1;
  for (long c : counts) total += c;
  return total;
}

long node(int64_t s, int m, int q) {
  return has_children(s, q) ? children(s, m, m, q) : 1;
}

int main(int argc, char **argv) {
  int b0 = arg(argc, argv, 1, 2000), m = arg(argc, argv, 2, 8),
      q = arg(argc, argv, 3, 124875);
  std::printf("%ld\n", timed([&] {
    long r;
#pragma omp parallel
#pragma omp single
    r = children(0, b0, m, q);
    return r;
  }));
}
