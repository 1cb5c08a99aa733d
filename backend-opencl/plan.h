// The backend's plan: what the printers of the uber-kernel print, decided
// once over the CPS program before any C is written. The printers
// (print_*.cpp) read it and decide nothing themselves; dump_plan
// (emit.h) writes it as text.
#pragma once

#include <map>
#include <vector>

#include "backend-opencl/emit.h"
#include "ir/cps.h"

namespace kite::plan {

// The code's shape. Programs with more blocks than kMaxInlineBlocks are
// *large*: one function per block, which kite_block's switch calls,
// instead of the blocks inline in the switch; one signal function per task;
// and on GPUs the runtime's larger helpers called, not copied into every
// block (KITE_LARGE). Device compilers take time superlinear in a
// function's size (PoCL: 7.5 s for 100 chained calls in one function, 242 s
// for 500; NVIDIA's ptxas, most of its build, likewise), linear in the
// number of functions. Smaller programs keep one function, which runs
// faster: the benchmarks have at most 22 blocks, and out of line fib(40)
// ran 40% slower on an H100, N-queens(14) 50%, UTS 70%. A program of ten
// tasks of ordinary size has about 40 (docs/design.md, "Build time").
enum class Shape { Inline, Large };
constexpr int kMaxInlineBlocks = 24;

// By task, the nodes and graphs its signal handles (a task with neither
// has no signal function of its own in a large program).
struct TaskSignals {
  std::vector<size_t> nodes;
  std::vector<int> graphs;
  bool empty() const { return nodes.empty() && graphs.empty(); }
};

struct BlockPlan {
  // The parameters the task never assigns that the block names: read once,
  // at its start, into C variables p<id> (see plan.cpp, hold_params).
  std::vector<const ast::VarDecl *> held_params;
  // The block may finish its task: it reads its link when it starts
  // (link0), and a return leaves its value in `ret` too (KITE_FINISH_AHEAD).
  bool finish_ahead = false;
};

struct Plan {
  Shape shape = Shape::Inline;
  std::vector<TaskSignals> signals;  // by task
  std::vector<int> node_task;        // by node: the task whose signal handles it, or -1
  std::vector<BlockPlan> blocks;     // by block id (queued blocks: code >= 0)

  bool large() const { return shape == Shape::Large; }
  // The task whose signal handles node `node`, or with node -1 graph
  // `graph`; -1 for none.
  int signal_task(const cps::Program &p, int node, int graph) const;
};

Plan make(const cps::Program &program, const EmitOptions &options);
void dump(const cps::Program &program, const Plan &plan, std::ostream &out);

}  // namespace kite::plan
