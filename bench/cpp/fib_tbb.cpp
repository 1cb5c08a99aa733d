#include <tbb/task_group.h>

#include "fib.h"

int fib(int n) {
#ifdef WITH_CUTOFF
  if (n < kFibCutoff) return fib_seq(n);
#endif
  if (n < 2) return n;
  int a, b;
  tbb::task_group g;
  g.run([&] { a = fib(n - 1); });
  b = fib(n - 2);
  g.wait();
  return a + b;
}

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 30);
  std::printf("%d\n", timed([&] { return fib(n); }));
}
