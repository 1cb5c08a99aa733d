#include "uts.h"
#include <tbb/task_group.h>

// One task per child (as Kite's map), a wait, then the sum.
long children(int64_t s, int k, int m, int q) {
  std::vector<long> counts(k);
  tbb::task_group g;
  for (int i = 0; i < k; i++)
    g.run([=, &counts] { counts[i] = node(child(s, i), m, q); });
  g.wait();
  return subtree_total(counts);
}

int main(int argc, char **argv) {
  UtsArgs a = uts_args(argc, argv);
  std::printf("%ld\n", timed([&] { return children(0, a.b0, a.m, a.q); }));
}
