#include "tree.h"

int main(int argc, char **argv) {
  int depth = arg(argc, argv, 1, 20);
  std::printf("%ld\n", timed([&] { return sum_seq(build_seq(depth, 0)); }));
}
