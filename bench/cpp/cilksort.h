// The parts of bench/kite/cilksort.kite that every peer shares: the
// sequential pieces below the cutoffs (insertion sort of at most 32
// elements, a plain merge of at most 128), the binary search that splits a
// merge, and, from msort.h, the input and the checksum of the result.
#pragma once
#include "msort.h"

constexpr int kSortCutoff = 32, kMergeCutoff = 128;

inline void insertion_sort(int *a, int lo, int hi) {
  for (int k = lo + 1; k <= hi - 1; k++) {
    int x = a[k], j = k;
    while (j > lo && a[j - 1] > x) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = x;
  }
}

// The first index k in [lo, hi] with k == hi or a[k] >= v.
inline int lower_bound(const int *a, int lo, int hi, int v) {
  while (lo < hi) {
    int m = lo + (hi - lo) / 2;
    if (a[m] < v)
      lo = m + 1;
    else
      hi = m;
  }
  return lo;
}

// Merges src[lo1 .. hi1 - 1] and src[lo2 .. hi2 - 1] into dst[d ..].
inline void seq_merge(const int *src, int *dst, int lo1, int hi1, int lo2, int hi2, int d) {
  int i = lo1, j = lo2;
  for (int k = d; k <= d + (hi1 - lo1) + (hi2 - lo2) - 1; k++)
    dst[k] = (j >= hi2 || (i < hi1 && src[i] <= src[j])) ? src[i++] : src[j++];
}

// The parallel merge's split of the larger run (lo1 .. hi1 - 1, after the
// caller swapped the runs if needed) at its middle: m1, and m2 where the
// middle value goes in the other run.
struct Split {
  int m1, m2;
};
inline Split split(const int *src, int lo1, int hi1, int lo2, int hi2) {
  int m1 = lo1 + (hi1 - lo1) / 2;
  return {m1, lower_bound(src, lo2, hi2, src[m1])};
}

// The whole algorithm sequentially: the sequential peer, and the cutoff
// peers below their cutoff.
inline void cilkmerge_seq(const int *src, int *dst, int lo1, int hi1, int lo2, int hi2, int d) {
  if (hi1 - lo1 < hi2 - lo2) return cilkmerge_seq(src, dst, lo2, hi2, lo1, hi1, d);
  if (hi1 - lo1 + hi2 - lo2 <= kMergeCutoff) return seq_merge(src, dst, lo1, hi1, lo2, hi2, d);
  auto [m1, m2] = split(src, lo1, hi1, lo2, hi2);
  cilkmerge_seq(src, dst, lo1, m1, lo2, m2, d);
  cilkmerge_seq(src, dst, m1, hi1, m2, hi2, d + (m1 - lo1) + (m2 - lo2));
}

inline void cilksort_seq(int *a, int *tmp, int lo, int hi) {
  if (hi - lo <= kSortCutoff) return insertion_sort(a, lo, hi);
  int q = (hi - lo) / 4, b = lo + q, c = b + q, d = c + q;
  cilksort_seq(a, tmp, lo, b);
  cilksort_seq(a, tmp, b, c);
  cilksort_seq(a, tmp, c, d);
  cilksort_seq(a, tmp, d, hi);
  cilkmerge_seq(a, tmp, lo, b, b, c, lo);
  cilkmerge_seq(a, tmp, c, d, d, hi, c);
  cilkmerge_seq(tmp, a, lo, c, c, hi, lo);
}

// The cutoff peers (-DWITH_CUTOFF): sorts and merges of at most this many
// elements run sequentially.
constexpr int kParallelCutoff = 4096;
