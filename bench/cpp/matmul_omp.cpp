#include "matmul.h"

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 512);
  std::printf("%lld\n", timed([&] {
                std::vector<int> a((size_t)n * n), b((size_t)n * n);
                std::vector<int64_t> c((size_t)n * n);
#pragma omp parallel for
                for (long k = 0; k < (long)n * n; k++) inputs(n, a, b, k);
      // Rows and the elements of a row in parallel, as Kite's nested maps.
#pragma omp parallel for collapse(2)
                for (int i = 0; i < n; i++)
                  for (int j = 0; j < n; j++)
                    c[(size_t)i * n + j] = product(a.data(), b.data(), n, i, j);
                return checksum(c);
              }));
}
