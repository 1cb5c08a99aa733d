#include <tbb/task_group.h>

#include "uts.h"

long children_at(int64_t s, int k, int m, int q, int depth);

// Node s, `depth` levels below the root.
long node_at(int64_t s, int m, int q, int depth) {
  if (depth >= kUtsCutoff) return node_seq(s, m, q);
  return has_children(s, q) ? children_at(s, m, m, q, depth) : 1;
}

// One task per child (as Kite's map), a wait, then the sum.
long children_at(int64_t s, int k, int m, int q, int depth) {
  std::vector<long> counts(k);
  tbb::task_group g;
  for (int i = 0; i < k; i++)
    g.run([=, &counts] { counts[i] = node_at(child(s, i), m, q, depth + 1); });
  g.wait();
  return subtree_total(counts);
}

long children(int64_t s, int k, int m, int q) { return children_at(s, k, m, q, 0); }

int main(int argc, char **argv) {
  UtsArgs a = uts_args(argc, argv);
  std::printf("%ld\n", timed([&] { return children(0, a.b0, a.m, a.q); }));
}
