// The sequential peer of examples/fib.kite: plain recursive fib in C++.
#include <chrono>
#include <cstdio>
#include <cstdlib>

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 30;
  auto start = std::chrono::steady_clock::now();
  int r = fib(n);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("%d\n", r);
  std::fprintf(stderr, "sequential C++: %.1f ms\n", ms);
  return 0;
}
