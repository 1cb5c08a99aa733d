#include "uts.h"
#include "omp_root.h"

// One task per child (as Kite's map), a taskwait, then the sum.
long children(int64_t s, int k, int m, int q) {
  std::vector<long> counts(k);
  for (int i = 0; i < k; i++) {
#pragma omp task shared(counts)
    counts[i] = node(child(s, i), m, q);
  }
#pragma omp taskwait
  return subtree_total(counts);
}

int main(int argc, char **argv) {
  UtsArgs a = uts_args(argc, argv);
  std::printf("%ld\n", timed([&] {
    return omp_root([&] { return children(0, a.b0, a.m, a.q); });
  }));
}
