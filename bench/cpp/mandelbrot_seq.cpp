#include "mandelbrot.h"

int main(int argc, char **argv) {
  int w = arg(argc, argv, 1, 1024), h = arg(argc, argv, 2, 1024), limit = arg(argc, argv, 3, 1000);
  std::printf("%lld\n", timed([&] {
                std::vector<int> counts((size_t)w * h);
                for (int p = 0; p < w * h; p++) counts[p] = pixel(p, w, h, limit);
                return total(counts);
              }));
}
