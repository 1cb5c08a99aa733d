// The tree of examples/tree_sum.kite: a leaf holding an int, or a node
// holding two subtrees (Kite's union tree / struct branch, both on the heap).
#pragma once
#include "common.h"

struct Tree {
  bool leaf;
  int value;    // a leaf's
  Tree *l, *r;  // a node's
};
inline Tree *leaf(int v) { return new Tree{true, v, nullptr, nullptr}; }
inline Tree *node(Tree *l, Tree *r) { return new Tree{false, 0, l, r}; }

// A tree of the given depth whose leaves are start, start + 1, ...
inline Tree *build_seq(int depth, int start) {
  if (depth == 0) return leaf(start);
  int half = 1 << (depth - 1);
  Tree *l = build_seq(depth - 1, start);
  Tree *r = build_seq(depth - 1, start + half);
  return node(l, r);
}

inline long sum_seq(Tree *t) { return t->leaf ? t->value : sum_seq(t->l) + sum_seq(t->r); }

// The cutoff peers (-DWITH_CUTOFF): subtrees of at most this depth are
// built and summed sequentially (2^12 leaves).
constexpr int kTreeCutoff = 12;
