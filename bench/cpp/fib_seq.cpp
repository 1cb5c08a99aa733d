#include "fib.h"

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 30);
  std::printf("%d\n", timed([&] { return fib_seq(n); }));
}
