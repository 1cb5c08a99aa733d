// A large program's parts (runtime-cl/device/parts.cl): its tasks split
// into groups that kite-run builds as programs of their own, one kernel
// each, run in turns. Device compilers take time superlinear in the size of
// one kernel and everything it calls (docs/design.md, "Build time"), so
// parts of a bounded size build in time linear in the program.
#pragma once

#include <vector>

#include "ir/cps.h"

namespace kite::plan {

// Blocks (codes) a part holds at most, unless one recursive cycle of calls
// has more; a program of no more blocks is one part. Measured on an H100
// (docs/design.md, "Build time"): a part of about 50 blocks builds in 3 s,
// the runtime's share of it about 2 s.
constexpr int kPartBlocks = 64;

struct Parts {
  int count = 1;               // 1: the program is one part, built whole
  int main_part = 0;           // the part of main's task, whose launch starts the run
  int limit = 0;               // the most blocks of a part, but for a cycle of calls
  std::vector<int> task_part;  // by task
  // By task with a sequential form: the parts whose kite_fast holds it
  // (every part with a call of it, and every part holding a form that calls
  // it), sorted.
  std::vector<std::vector<int>> fast_parts;
};

// The tasks of `p` in parts of at most `part_blocks` blocks (0: kPartBlocks):
// the recursive cycles of its call graph (calls by name) whole, callees
// before callers, packed in that order. One part unless the program has
// more blocks than that.
Parts split(const cps::Program &p, int part_blocks);

}  // namespace kite::plan
