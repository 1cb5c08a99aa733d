// The parts of bench/kite/matmul.kite that every peer shares: the two input
// matrices, one inner product (in a 64-bit sum, as the Kite program's
// long) and the checksum of the result.
#pragma once
#include <vector>

#include "common.h"

// Entry k of A (row-major), and of B from k + n*n on: -99 .. 99.
inline void inputs(int n, std::vector<int> &a, std::vector<int> &b, long k) {
  a[k] = (int)(kite_hash(k) % 100);
  b[k] = (int)(kite_hash((long)n * n + k) % 100);
}

// Row i of A times column j of B.
inline int64_t product(const int *a, const int *b, int n, int i, int j) {
  int64_t s = 0;
  for (int k = 0; k <= n - 1; k++) s += (int64_t)a[i * n + k] * (int64_t)b[k * n + j];
  return s;
}

// The sum of c[k] * (k + 1), wrapping, as a signed 64-bit number.
inline long long checksum(const std::vector<int64_t> &c) {
  uint64_t s = 0;
  for (size_t k = 0; k < c.size(); k++) s += (uint64_t)c[k] * (k + 1);
  return (long long)s;
}
