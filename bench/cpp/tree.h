// The tree of examples/tree_sum.kite: a leaf holding an int, or a node
// holding two subtrees (Kite's union tree / struct branch, both on the heap).
#pragma once
#include "common.h"

struct Tree {
  bool leaf;
  int value;       // a leaf's
  Tree *l, *r;     // a node's
};
inline Tree *leaf(int v) { return new Tree{true, v, nullptr, nullptr}; }
inline Tree *node(Tree *l, Tree *r) { return new Tree{false, 0, l, r}; }
