#include <tbb/task_group.h>

#include "tree.h"

Tree *build(int depth, int start) {
#ifdef WITH_CUTOFF
  if (depth <= kTreeCutoff) return build_seq(depth, start);
#endif
  if (depth == 0) return leaf(start);
  int half = 1 << (depth - 1);
  Tree *l, *r;
  tbb::task_group g;
  g.run([&] { l = build(depth - 1, start); });
  r = build(depth - 1, start + half);
  g.wait();
  return node(l, r);
}

// depth: the subtree's (the tree is complete, so the caller knows it).
long sum(Tree *t, int depth) {
#ifdef WITH_CUTOFF
  if (depth <= kTreeCutoff) return sum_seq(t);
#endif
  if (t->leaf) return t->value;
  long a, b;
  tbb::task_group g;
  g.run([&] { a = sum(t->l, depth - 1); });
  b = sum(t->r, depth - 1);
  g.wait();
  return a + b;
}

int main(int argc, char **argv) {
  int depth = arg(argc, argv, 1, 20);
  std::printf("%ld\n", timed([&] { return sum(build(depth, 0), depth); }));
}
