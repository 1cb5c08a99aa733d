#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include "msort.h"

void msort(int *a, int *tmp, int lo, int hi) {
  if (hi - lo <= 16) return small_sort(a, lo, hi);
  int mid = lo + (hi - lo) / 2;
  tbb::task_group g;
  g.run([=] { msort(a, tmp, lo, mid); });
  msort(a, tmp, mid, hi);
  g.wait();
  merge(a, tmp, lo, mid, hi);
}

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 1000000);
  std::printf("%lld\n", timed([&] {
                std::vector<int> a(n), tmp(n);
                tbb::parallel_for(0, n, [&](int i) { a[i] = input(i); });
                msort(a.data(), tmp.data(), 0, n);
                return checksum(a);
              }));
}
