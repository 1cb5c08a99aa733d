#include "tree.h"

// A tree of the given depth whose leaves are start, start + 1, ...
Tree *build(int depth, int start) {
  if (depth == 0) return leaf(start);
  int half = 1 << (depth - 1);
  Tree *l = build(depth - 1, start);
  Tree *r = build(depth - 1, start + half);
  return node(l, r);
}

long sum(Tree *t) { return t->leaf ? t->value : sum(t->l) + sum(t->r); }

int main(int argc, char **argv) {
  int depth = arg(argc, argv, 1, 20);
  std::printf("%ld\n", timed([&] { return sum(build(depth, 0)); }));
}
