#include "omp_root.h"
#include "tree.h"

Tree *build(int depth, int start) {
#ifdef WITH_CUTOFF
  if (depth <= kTreeCutoff) return build_seq(depth, start);
#endif
  if (depth == 0) return leaf(start);
  int half = 1 << (depth - 1);
  Tree *l, *r;
#pragma omp task shared(l)
  l = build(depth - 1, start);
  r = build(depth - 1, start + half);
#pragma omp taskwait
  return node(l, r);
}

// depth: the subtree's (the tree is complete, so the caller knows it).
long sum(Tree *t, int depth) {
#ifdef WITH_CUTOFF
  if (depth <= kTreeCutoff) return sum_seq(t);
#endif
  if (t->leaf) return t->value;
  long a, b;
#pragma omp task shared(a)
  a = sum(t->l, depth - 1);
  b = sum(t->r, depth - 1);
#pragma omp taskwait
  return a + b;
}

int main(int argc, char **argv) {
  int depth = arg(argc, argv, 1, 20);
  std::printf("%ld\n",
              timed([&] { return omp_root([&] { return sum(build(depth, 0), depth); }); }));
}
