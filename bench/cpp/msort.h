// The parts of bench/kite/msort.kite that every peer shares: the input, the
// sequential pieces (exchange sort at 16 or fewer, merge through tmp) and
// the checksum of the result.
#pragma once
#include <vector>

#include "common.h"

inline int input(long i) { return (int)(kite_hash(i) % 1000000); }

inline void small_sort(int *a, int lo, int hi) {
  for (int k = lo; k <= hi - 2; k++)
    for (int m = k + 1; m <= hi - 1; m++)
      if (a[m] < a[k]) {
        int x = a[k];
        a[k] = a[m];
        a[m] = x;
      }
}

inline void merge(int *a, int *tmp, int lo, int mid, int hi) {
  for (int k = lo; k < hi; k++) tmp[k] = a[k];
  int i = lo, j = mid;
  for (int k = lo; k < hi; k++)
    a[k] = (j >= hi || (i < mid && tmp[i] <= tmp[j])) ? tmp[i++] : tmp[j++];
}

// The sum of a[i] * (i + 1), wrapping, as a signed 64-bit number.
inline long long checksum(const std::vector<int> &a) {
  uint64_t s = 0;
  for (size_t i = 0; i < a.size(); i++) s += (uint64_t)(int64_t)a[i] * (i + 1);
  return (long long)s;
}
