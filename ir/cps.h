// CPS lowering (§4.1): turns each task's nested task graph into blocks of
// straight-line code that never wait. A block runs when everything it
// depends on has happened; what it depends on is counted by a join counter
// in the task's record, so it runs exactly once, when its last input arrives.
//
// Blocks are groups of graph nodes with the same set of parallel ancestors.
// The events a block waits on are the completions of the parallel nodes that
// feed it (task calls and nested `if`s that contain calls) and the ends of
// the other blocks that compute its inputs. A finished call writes its value
// into the caller's record (the *result*: the caller's record plus the node
// it finishes) and signals the node; every block waiting on that node is
// told, which is how one output reaches several waiting nodes. A graph is
// finished when all its parallel nodes and blocks are; a task is finished
// when its body graph is, so a task never finishes before the tasks it
// started (fully strict).
#pragma once

#include <iosfwd>
#include <vector>

#include "ir/ntg.h"

namespace kite::cps {

enum class OpKind {
  Exec,   // a non-parallel statement, run inline
  Spawn,  // a task call: make the callee's record and queue its entry block
  If,     // if/case/then/for: immediate (all inline) or a parallel node
  Case,
  Then,
  For,
  Map,  // always parallel: every iteration gets a record of its own
};

struct Op {
  OpKind kind = OpKind::Exec;
  const anf::Stmt *stmt = nullptr;
  int node = -1;                            // parallel nodes: the node their completion signals
  bool parallel = false;                    // the nested parts are graphs of their own
  bool tail = false;                        // Spawn: a tail call; the callee finishes this task
  std::vector<std::vector<Op>> inline_ops;  // immediate: the nested parts' code
  std::vector<int> graphs;                  // parallel: the nested graphs
  int step_block = -1;             // parallel For: the block that starts the next iteration
  int split_block = -1;            // Map: the block that splits the iterations
  int counter_slot = -1;           // Map: iterations not yet finished (in the parent's record);
                                   // parallel For: detached calls running, plus 1 while it loops
  int lo_slot = -1, hi_slot = -1;  // Map: the iterations a record covers
  // Chunked Map or reduction: 0 while a record's iterations lo .. hi - 1 may
  // be split further; else the record runs lo, lo + step, ... < hi (on a
  // wide worker, a range of iterations is dealt out to that many records,
  // one per lane, so that neighbouring lanes run neighbouring iterations).
  int step_slot = -1;
  std::vector<int> copy_vars;  // Map: variables an iteration's record needs from its parent's
  bool chunked = false;        // Map whose body calls no task: records run chunks of iterations
  // Chunked Map or reduction (not a scan) whose body allocates and prints
  // nothing: it may also run as a kernel of its own, kite_map_<split
  // block's code> (ir/kernels.h).
  bool kernel = false;
  bool direct = false;  // Map whose calls store their results straight into the element:
                        // records run chunks of iterations, spawning as they go
  // For: a reduction (ir/reductions.h), lowered as a chunked map whose
  // chunks fold their accumulators into the task's record.
  reductions::Reduction reduction;
  // A scan's record slots: the chunks' totals (a heap array of longs, one
  // per accumulator per chunk), and its phase: 0 while the chunks add up
  // their totals, 1 while they write their elements.
  int totals_slot = -1, phase_slot = -1;
};

enum class BlockKind {
  Normal,  // a graph's entry or continuation
  Step,    // a chained for loop's next iteration
  Split,   // a map's (or a reduction's) splitting of its iterations among records
  Next,    // a map record's next iteration
};

struct Block {
  int id = -1;    // index in Program::blocks
  int code = -1;  // the uber-kernel's switch case; -1 for an inline graph entry
  int task = -1;
  int graph = -1;
  BlockKind kind = BlockKind::Normal;
  bool is_entry = false;
  bool starts_graph = false;  // a queued entry: it initialises its graph's counters first
  int counter_slot = -1;      // join counter (continuations)
  int counter_init = 0;
  std::vector<Op> ops;
  std::vector<int> notify;  // blocks whose counters this block's end decrements
  Op loop;                  // Step, Split: a copy of the loop's op
  // Its end counts towards no graph: its last op starts an event of its
  // graph that is counted (or implied by one that is) and comes after it,
  // and the block does nothing after that op.
  bool end_implied = false;
};

// What happens when all of a graph's events have happened.
enum class GraphEnd {
  Task,       // a task's body: the task is finished
  Node,       // a branch (if, case), a then's second side, a chained loop:
              // the node `end_node` has happened
  StartNext,  // a then's first side: queue block `end_block` (the second side)
  LoopStep,   // a chained for loop's body: queue `end_block` (the next iteration)
  Iteration,  // a map's body in an iteration record, which runs iterations
              // lo .. hi - 1 one after another: queue `end_block` for the
              // next; after the last, free the record and count its
              // iterations off the parent record's `end_slot`, the last of
              // which makes node `end_node` happen there
  Chunk,      // a direct map's body: a record runs iterations lo .. hi - 1
              // inline, each call's result going straight to its element;
              // when the record's calls have all returned it ends as an
              // Iteration graph's last iteration does
};

struct Graph {
  int id = -1;
  int task = -1;
  int outstanding_slot = -1;
  // The events it waits for: its parallel nodes and blocks, less the
  // implied nodes (NodeInfo::implied) and the blocks whose end is implied
  // (Block::end_implied).
  int outstanding_init = 0;
  GraphEnd end = GraphEnd::Task;
  int end_node = -1;
  int end_block = -1;
  int end_slot = -1;
  int lo_slot = -1, hi_slot = -1, index_var = -1;  // Iteration: the record's range, the index
  int entry_block = -1;
  std::vector<int> blocks;
};

struct NodeInfo {  // a parallel node: a Spawn or a parallel If
  int graph = -1;
  std::vector<int> notify;         // blocks waiting on this node
  ast::VarDecl *target = nullptr;  // a Spawn's `x <- f(...)` variable
  // A call in a chained for loop's body that nothing in the loop waits for
  // is *detached*: the next iteration does not wait for it, the loop does.
  int detached_from = -1;  // the for node it reports to
  int detached_slot = -1;  // the for node's counter
  // A call in a direct map's body: its result is stored by `store`
  // (`c <- t`, c the map's element) when it arrives; null: dropped.
  const anf::Stmt *store = nullptr;
  bool direct = false;
  // Implied by the end of a block it notifies: it counts towards no graph.
  bool implied = false;
};

struct Task {
  const anf::Task *source = nullptr;  // its ANF: declaration, statements, variables
  int entry_block = -1;
  int body_graph = -1;
  std::vector<int> var_slot;  // by variable id
  int record_words = 0;
  // Arrays the task makes (`a = new<t>(n)`, once, outside loops) and only
  // indexes, loops over, measures and prints: nothing else can refer to
  // them, so they are freed when the task finishes.
  std::vector<const ast::VarDecl *> local_arrays;
  // The answer its body gives some calls without calling (ir/leaf_calls.h):
  // where cps::answered_at_call holds, the caller computes it.
  ntg::LeafAnswer leaf;
  // It has a sequential form (ir/fast_clones.h), and that form reads
  // fields or elements, or makes structs, unions or tuples, or loops over
  // a range, or calls one that does: wide workers run none of those
  // (device/fast.cl). A form that writes elements of arrays it did not
  // make (or calls one that does) runs only where forms keep what they
  // did (plan::KeptForm::writes): a stop must never lose its work.
  bool fast = false;
  bool fast_reads = false;
  bool fast_allocates = false;
  bool fast_loops = false;
  bool fast_writes = false;
  // Where it has none: why (the first statement or declaration that keeps
  // it from one, with its line), for --dump-after fast_clones.
  std::string no_fast;
  bool fast_wide_skips() const { return fast_reads || fast_allocates || fast_loops || fast_writes; }
};

// Record layout shared by every task (slots are longs).
constexpr int kLinkSlot = 0;    // (node << 32) | parent record; parent -1: main
constexpr int kResultSlot = 1;  // the task's return value, raw bits
constexpr int kFirstFreeSlot = 2;

struct Program {
  const anf::Program *anf = nullptr;  // what the blocks' ops point into
  std::vector<Task> tasks;
  std::vector<Block> blocks;
  std::vector<Graph> graphs;
  std::vector<NodeInfo> nodes;  // by node id (non-parallel nodes unused)
  int num_codes = 0;
  int record_words = 0;  // the largest record
};

Program lower(const ntg::Program &graphs);
// Whether these ops make a tail call: the callee then takes over the
// record, counters and all.
bool takes_over(const std::vector<Op> &ops);
// The task a Spawn calls by name, or -1 (a call of a task value).
int callee(const Op &op);
// Whether a Spawn's callee answers it at the call site when its leaf
// answer's guard decides so (ir/leaf_calls.h): the callee has one, and the
// call is neither a tail call (which hands this record over) nor detached
// from its loop (whose counter counts it when it starts).
bool answered_at_call(const Program &p, const Op &op);
// Whether a Spawn may run its callee's sequential form where it stands
// (ir/fast_clones.h): the callee has one, and the call is neither a tail
// call nor detached from its loop. (A direct map's call stores the form's
// result straight to its element, as it does a leaf answer.)
bool fast_at_call(const Program &p, const Op &op);
void dump(const Program &p, std::ostream &out);

}  // namespace kite::cps
