#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include "cilksort.h"

void cilkmerge(const int *src, int *dst, int lo1, int hi1, int lo2, int hi2, int d) {
#ifdef WITH_CUTOFF
  if (hi1 - lo1 + hi2 - lo2 <= kParallelCutoff)
    return cilkmerge_seq(src, dst, lo1, hi1, lo2, hi2, d);
#endif
  if (hi1 - lo1 < hi2 - lo2) return cilkmerge(src, dst, lo2, hi2, lo1, hi1, d);
  if (hi1 - lo1 + hi2 - lo2 <= kMergeCutoff) return seq_merge(src, dst, lo1, hi1, lo2, hi2, d);
  auto [m1, m2] = split(src, lo1, hi1, lo2, hi2);
  tbb::parallel_invoke([=] { cilkmerge(src, dst, lo1, m1, lo2, m2, d); },
                       [=] { cilkmerge(src, dst, m1, hi1, m2, hi2, d + (m1 - lo1) + (m2 - lo2)); });
}

void cilksort(int *a, int *tmp, int lo, int hi) {
#ifdef WITH_CUTOFF
  if (hi - lo <= kParallelCutoff) return cilksort_seq(a, tmp, lo, hi);
#endif
  if (hi - lo <= kSortCutoff) return insertion_sort(a, lo, hi);
  int q = (hi - lo) / 4, b = lo + q, c = b + q, d = c + q;
  tbb::parallel_invoke([=] { cilksort(a, tmp, lo, b); }, [=] { cilksort(a, tmp, b, c); },
                       [=] { cilksort(a, tmp, c, d); }, [=] { cilksort(a, tmp, d, hi); });
  tbb::parallel_invoke([=] { cilkmerge(a, tmp, lo, b, b, c, lo); },
                       [=] { cilkmerge(a, tmp, c, d, d, hi, c); });
  cilkmerge(tmp, a, lo, c, c, hi, lo);
}

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 1000000);
  std::printf("%lld\n", timed([&] {
                std::vector<int> a(n), tmp(n);
                tbb::parallel_for(0, n, [&](int i) { a[i] = input(i); });
                cilksort(a.data(), tmp.data(), 0, n);
                return checksum(a);
              }));
}
