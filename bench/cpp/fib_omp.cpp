#include "fib.h"
#include "omp_root.h"

int fib(int n) {
#ifdef WITH_CUTOFF
  if (n < kFibCutoff) return fib_seq(n);
#endif
  if (n < 2) return n;
  int a, b;
#pragma omp task shared(a)
  a = fib(n - 1);
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 30);
  std::printf("%d\n", timed([&] { return omp_root([&] { return fib(n); }); }));
}
