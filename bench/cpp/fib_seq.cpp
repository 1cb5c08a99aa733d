#include "common.h"

int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 30);
  std::printf("%d\n", timed([&] { return fib(n); }));
}
