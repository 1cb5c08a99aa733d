#include <tbb/parallel_for.h>

#include "matmul.h"

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 512);
  std::printf("%lld\n", timed([&] {
                std::vector<int> a((size_t)n * n), b((size_t)n * n);
                std::vector<int64_t> c((size_t)n * n);
                tbb::parallel_for(0L, (long)n * n, [&](long k) { inputs(n, a, b, k); });
                // A loop over the rows whose body loops over the row, both parallel, as
                // Kite's nested maps.
                tbb::parallel_for(0, n, [&](int i) {
                  tbb::parallel_for(0, n, [&](int j) {
                    c[(size_t)i * n + j] = product(a.data(), b.data(), n, i, j);
                  });
                });
                return checksum(c);
              }));
}
