// The parts of bench/kite/mandelbrot.kite that every peer shares: one
// pixel's iteration count, its double arithmetic written as in the Kite
// program, operation for operation (bench/run compiles with -std=c++17,
// under which g++ contracts no a * b + c into a fused multiply-add), and
// the sum of the counts.
#pragma once
#include <vector>

#include "common.h"

// Pixel p of a w x h grid over [-2, 1] x [-1.5, 1.5].
inline int pixel(int p, int w, int h, int limit) {
  double cx = -2.0 + 3.0 * (double)(p % w) / (double)w;
  double cy = -1.5 + 3.0 * (double)(p / w) / (double)h;
  double x = 0.0, y = 0.0;
  int n = 0;
  while (n < limit && x * x + y * y <= 4.0) {
    double t = x * x - y * y + cx;
    y = 2.0 * x * y + cy;
    x = t;
    n = n + 1;
  }
  return n;
}

inline long long total(const std::vector<int> &counts) {
  long long s = 0;
  for (int k : counts) s += k;
  return s;
}
