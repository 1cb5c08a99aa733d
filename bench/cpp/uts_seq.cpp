#include "uts.h"

long node(int64_t s, int m, int q);

// The children of node s, then their counts summed; s itself counts 1.
long children(int64_t s, int k, int m, int q) {
  std::vector<long> counts(k);
  for (int i = 0; i < k; i++) counts[i] = node(child(s, i), m, q);
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
  std::printf("%ld\n", timed([&] { return children(0, b0, m, q); }));
}
