#include "tree.h"
#include "omp_root.h"

Tree *build(int depth, int start) {
  if (depth == 0) return leaf(start);
  int half = 1 << (depth - 1);
  Tree *l, *r;
#pragma omp task shared(l)
  l = build(depth - 1, start);
  r = build(depth - 1, start + half);
#pragma omp taskwait
  return node(l, r);
}

long sum(Tree *t) {
  if (t->leaf) return t->value;
  long a, b;
#pragma omp task shared(a)
  a = sum(t->l);
  b = sum(t->r);
#pragma omp taskwait
  return a + b;
}

int main(int argc, char **argv) {
  int depth = arg(argc, argv, 1, 20);
  std::printf("%ld\n", timed([&] {
    return omp_root([&] { return sum(build(depth, 0)); });
  }));
}
