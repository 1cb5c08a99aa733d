#include "cilksort.h"

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 1000000);
  std::printf("%lld\n", timed([&] {
                std::vector<int> a(n), tmp(n);
                for (int i = 0; i < n; i++) a[i] = input(i);
                cilksort_seq(a.data(), tmp.data(), 0, n);
                return checksum(a);
              }));
}
