#include "tree.h"
#include <tbb/task_group.h>

Tree *build(int depth, int start) {
  if (depth == 0) return leaf(start);
  int half = 1 << (depth - 1);
  Tree *l, *r;
  tbb::task_group g;
  g.run([&] { l = build(depth - 1, start); });
  r = build(depth - 1, start + half);
  g.wait();
  return node(l, r);
}

long sum(Tree *t) {
  if (t->leaf) return t->value;
  long a, b;
  tbb::task_group g;
  g.run([&] { a = sum(t->l); });
  b = sum(t->r);
  g.wait();
  return a + b;
}

int main(int argc, char **argv) {
  int depth = arg(argc, argv, 1, 20);
  std::printf("%ld\n", timed([&] { return sum(build(depth, 0)); }));
}
