#include "uts.h"

// The children of node s, then their counts summed; s itself counts 1.
long children(int64_t s, int k, int m, int q) {
  std::vector<long> counts(k);
  for (int i = 0; i < k; i++) counts[i] = node(child(s, i), m, q);
  return subtree_total(counts);
}

int main(int argc, char **argv) {
  UtsArgs a = uts_args(argc, argv);
  std::printf("%ld\n", timed([&] { return children(0, a.b0, a.m, a.q); }));
}
