#include "msort.h"

void msort(int *a, int *tmp, int lo, int hi) {
  if (hi - lo <= 16) return small_sort(a, lo, hi);
  int mid = lo + (hi - lo) / 2;
#pragma omp task
  msort(a, tmp, lo, mid);
  msort(a, tmp, mid, hi);
#pragma omp taskwait
  merge(a, tmp, lo, mid, hi);
}

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 1000000);
  std::printf("%lld\n", timed([&] {
                std::vector<int> a(n), tmp(n);
#pragma omp parallel for
                for (int i = 0; i < n; i++) a[i] = input(i);
#pragma omp parallel
#pragma omp single
                msort(a.data(), tmp.data(), 0, n);
                return checksum(a);
              }));
}
