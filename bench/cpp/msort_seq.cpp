#include "msort.h"

void msort(int *a, int *tmp, int lo, int hi) {
  if (hi - lo <= 16) return small_sort(a, lo, hi);
  int mid = lo + (hi - lo) / 2;
  msort(a, tmp, lo, mid);
  msort(a, tmp, mid, hi);
  merge(a, tmp, lo, mid, hi);
}

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 1000000);
  std::printf("%lld\n", timed([&] {
                std::vector<int> a(n), tmp(n);
                for (int i = 0; i < n; i++) a[i] = input(i);
                msort(a.data(), tmp.data(), 0, n);
                return checksum(a);
              }));
}
