#include <tbb/parallel_for.h>

#include "mandelbrot.h"

int main(int argc, char **argv) {
  int w = arg(argc, argv, 1, 1024), h = arg(argc, argv, 2, 1024), limit = arg(argc, argv, 3, 1000);
  std::printf("%lld\n", timed([&] {
                std::vector<int> counts((size_t)w * h);
                tbb::parallel_for(0, w * h, [&](int p) { counts[p] = pixel(p, w, h, limit); });
                return total(counts);
              }));
}
