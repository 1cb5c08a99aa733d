// The backend's plan: what the printers of the uber-kernel print, decided
// once over the CPS program before any C is written. The printers
// (print_*.cpp) read it and decide nothing themselves; dump_plan
// (emit.h) writes it as text.
#pragma once

#include <map>
#include <set>
#include <vector>

#include "backend-opencl/emit.h"
#include "backend-opencl/parts.h"
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

// An array's length that the C code knows without a trip to memory.
// `count` set: the array held in l<array id> was made by `new` from that
// count, a literal or a C variable: (l<id> != 0 ? count : 0), a null array
// (the heap exhausted, or a negative length reported) having length 0.
// `count` null: measured once into n<array id> when a loop started.
struct Length {
  const ast::VarDecl *array = nullptr;
  const ast::Expr *count = nullptr;
};

// A variable that a statement at a block's top level assigns, the only
// statement of its task that does (a declaration with a value, a loop's
// collection): held in a C variable l<id> that the rest of the block reads
// instead of its slot, which is still written for the blocks after. A slot
// is volatile on a GPU, and each read of it a trip to the L2 cache (UTS's
// entry block read its new array back twice, to copy it into its map's
// collection and to measure it).
struct Local {
  const ast::VarDecl *var = nullptr;
  bool has_length = false;
  Length length;  // when has_length: an array made here, or a copy of one
};

// A loop that calls no task runs in one block, and no other block reads or
// writes what it uses meanwhile: its variables are held in C variables
// v<id> for the loop (which the C compiler can keep in registers, as it
// cannot keep record slots that a heap store might alias) and the ones it
// writes are stored back after it. A chunk of a map or a reduction runs in
// a record that holds what its iterations read (cps::Op::copy_vars), not
// what the loop's collection was computed from, and is freed after its
// loop: nothing is stored back.
struct LoopPlan {
  std::vector<const ast::VarDecl *> promoted;  // held in v<id>
  std::vector<const ast::VarDecl *> stored;    // stored back after the loop
  // Arrays the loop does not reassign, promoted or held parameters whose
  // length no enclosing loop measured: lengths never change, so their
  // length is read once, into n<id>, for the bounds checks.
  std::vector<const ast::VarDecl *> measured;
  // The indices ir/bounds proved needless to check, if one test before the
  // loop holds (bounds::hoistable): the loop is printed twice, without
  // those checks and, when the test fails, as written.
  std::vector<const ast::Expr *> proved;
  // The outermost loop of a nest that checks an element: a bad index is
  // reported when the nest ends (kite_loop_faults). The others keep no
  // report at their end (on an H200 one after UTS's loop of 8 made the run
  // 11% slower).
  bool reports_faults = false;
  // The block's last op at its top level, only a `return` after it: what
  // the loop leaves in the variables it writes and the return reads is held
  // after it too, in C variables h<id> declared before its scope (a return
  // of what the loop summed then reads no slot back).
  std::vector<const ast::VarDecl *> held_after;
};

// What a block's end or a node's signal does to the blocks it notifies.
struct Notify {
  // The blocks among them that make a tail call. Nothing may touch the
  // record's counters once one of them is queued (its callee sets them up
  // afresh), so whoever makes one ready counts its own event off the graph
  // first: the graph cannot end there, the tail call's block being one of
  // its events still to come.
  std::vector<int> tails;
  // Whether the first hand-over is a kite_dec (whose acquire-release
  // KITE_DEC_FENCE leans on): a counted block's, a tail call's counters',
  // or, with nothing to notify, the graph's count. A block that waits for
  // one event is queued at once, with a fence of its own.
  bool dec_first = false;
};

// A direct map's iterations in a record.
struct DirectPlan {
  // Nothing outside an iteration reads the variables it declares, nor its
  // index: they live in C variables v<id>, not in the record.
  std::vector<const ast::VarDecl *> iteration;
  // Each iteration makes its one call: its ops are that call and
  // statements that call nothing. Where the callee never answers at the
  // call, the chunk's counter starts at its length, and the block counts
  // nothing off it after the loop (on a GPU an acquire-release atomic that
  // the lane's turn would wait for).
  bool every_iteration_calls = false;
};

struct BlockPlan {
  // The parameters the task never assigns that the block names: read once,
  // at its start, into C variables p<id> (see plan.cpp, hold_params).
  std::vector<const ast::VarDecl *> held_params;
  // The block may finish its task: it reads its link when it starts
  // (link0), and a return leaves its value in `ret` too (KITE_FINISH_AHEAD).
  bool finish_ahead = false;
  std::map<const anf::Stmt *, Local> locals;    // by the statement that assigns it
  std::map<const anf::Stmt *, LoopPlan> loops;  // its loops that call no task
  // A Split block's map that may run as a kernel of its own (kite_map_<code>):
  // the loops there, whose record's variables are not the block's.
  std::map<const anf::Stmt *, LoopPlan> kernel_loops;
  // The C variable `own` says that no other lane can reach the record's
  // counters yet, so its signals need no atomics (kite_dec). It is 1 from a
  // task entry's start until the block makes something of the record
  // runnable elsewhere: a call (the callee signals here when it returns),
  // a queued block, a map. A task entry runs on a record just made for it
  // (or taken over by a tail call, when everything else in the caller has
  // happened), so nothing of it is outstanding there; a continuation's
  // record may be private to its lane (KITE_OWN); a loop's step, split or
  // next iteration is not. The ops, and the ends of the blocks inline in
  // this one, where `own` may still be 1 and becomes 0.
  enum class Own { Yes, IfPrivate, No } own_at_start = Own::No;
  std::set<const cps::Op *> own_ends_at;
  std::set<const cps::Block *> own_ends_at_end;
  std::map<const cps::Op *, DirectPlan> direct_maps;  // by op (b.loop in a Split block)
  Notify notify;  // its end's (also for an inline graph's entry)
};

// Per graph: whether its counter counts. A counter that waits for one event
// needs no atomic: that event is the last. A graph's counter counts its
// blocks and its parallel nodes but those that a block waits for
// (cps::NodeInfo::implied), so it may wait for one event (a direct map's
// counter counts calls, never skipped).
struct GraphPlan {
  bool counted = false;
  // Its end queues a block of its record (a then's second side, a loop's
  // next step or iteration, a map record's end) after one event, with no
  // kite_dec to order it: its signal fences first.
  bool fenced = false;
};

// A task's form that calls itself last, adding: `y <- t(..)` right
// before `return a + y` (or `y + a`), a and y integers of the same type
// (fib's `return fib(n - 1) + fib(n - 2)`). Where forms do not keep, the
// form adds a to an accumulator in its frame (slot `slot`, zero where the
// frame is pushed) and starts its own code again on the call's arguments in
// the same frame, instead of pushing a frame; its returns add the
// accumulator. Integer addition wraps, so the sum is the same.
struct FastAccumulate {
  const anf::Stmt *call = nullptr;  // none: the form pushes a frame at every call
  const anf::Stmt *ret = nullptr;
  const ast::VarDecl *addend = nullptr;  // a
  int slot = 0;                          // the accumulator's place in the frame
  // Tail calls: `y <- f(..)` right before `return y`. Where forms do not
  // keep, the callee's frame takes the place of the caller's (the caller's
  // caller is where it returns): a chain of tail calls runs in one frame.
  // Of the task itself always; of another task only where this one has no
  // accumulator (its return would add it).
  std::set<const anf::Stmt *> tails;
};

// A task whose sequential form only adds up what its calls of itself
// return (print_fast.cpp, "Sums"): every call in its body is `y <- t(..)`
// of itself, in a run of such calls (and `let`s) right before `return e`,
// where e is a sum that adds each of the run's variables once, and no
// statement reads them otherwise; none inside a loop; an integer result
// and no arrays of its own. Addition wraps, so the sum of every return's
// other terms over the whole call tree is the result, in any order: the
// form keeps the calls still to be made on a list above its frame, and
// one sum, instead of a frame per call (fib's `return fib(n - 1) + fib(n -
// 2)`, tree sum's `return sum(b.l) + sum(b.r)`).
struct SumForm {
  bool sum = false;
  std::set<const ast::VarDecl *> results;  // the calls' variables
};

// A task's sequential form, where a form that stops keeps what it did
// (print_fast.cpp, "Kept forms"): each frame on the form's stack goes into
// a record, which goes on as a task once the calls it waits for return.
struct KeptForm {
  bool kept = false;    // its frames may go into records
  int frame_words = 0;  // longs of its frame in kite_fast
  // Its frames hold arrays of its own (cps::Task::local_arrays), which go
  // into the record with the frame: all made before its first call, and
  // before it assigns a parameter.
  bool arrays = false;
  // Then: the variables that hold places on the form's stack, which move
  // with the frame (kite_kept_move): the arrays, and the collections of
  // loops over them (print_fast.cpp, fast_loop); by id.
  std::vector<const ast::VarDecl *> places;
  // By call of the task: the later calls a stop starts as tasks while that
  // call runs, those of the same statement list that run whatever it
  // returns, on arguments that nothing between the two changes.
  std::map<const anf::Stmt *, std::vector<const anf::Stmt *>> ahead;
  // Such a later call's index: its bit of the record's mask and its
  // result's slot.
  std::map<const anf::Stmt *, int> index;
  // By call: the `map` over a local array whose body is that call and the
  // element's assignment of its result (UTS's `c <- node(..)`). A stop
  // starts the map's later iterations as tasks, iteration j with bit j
  // and slot 1 + j (j < KITE_KEPT_SLOTS), and the frame takes their results
  // where it reaches them.
  std::map<const anf::Stmt *, const anf::Stmt *> maps;
  // Its form writes elements of arrays it did not make (cps::Task::
  // fast_writes), and every form it may push is kept and makes no arrays:
  // a stop or a full stack then keeps every frame, and the form runs where
  // forms keep (KITE_KEEP). A form that writes without this never runs.
  bool writes = false;
};

struct Plan {
  Shape shape = Shape::Inline;
  Parts parts;                       // a large program's parts (parts.h); an inline one is one
  std::vector<TaskSignals> signals;  // by task
  std::vector<int> node_task;        // by node: the task whose signal handles it, or -1
  std::vector<BlockPlan> blocks;     // by block id
  std::vector<GraphPlan> graphs;     // by graph index
  std::vector<Notify> nodes;         // by node: its signal's notifications
  std::vector<FastAccumulate> accumulate;  // by task
  std::vector<SumForm> sums;               // by task
  // Calls of task values, by type: the dispatchers kite_call_value_<index>,
  // in the order of their first call.
  std::vector<const Type *> dispatchers;
  bool loop_checks = false;  // some loop nest checks an element (KITE_LOOP_CHECKS)
  // kite_fast's parameters after the task's id: the most of a task that has
  // a sequential form (ir/fast_clones.h); -1: no task has one, and there
  // is no kite_fast (the runtime's KITE_HAS_FAST is 0).
  int fast_arity = -1;
  // Some call outside a direct map may run a sequential form that reads no
  // field or element: wide workers run those (KITE_HAS_FAST 2; 1 where
  // there is none, and wide workers then keep no state for the forms'
  // rule: N-queens and UTS, whose forms that compute are called in direct
  // maps only, ran 2-3% slower on an H100 with it).
  bool fast_computes = false;
  std::vector<KeptForm> kept;  // by task
  int kept_slots = 0;          // the most indices (KeptForm::index) of one task
  // The longs of a kept frame's record (its link, counter, mask, result
  // slots, then the frame), at most, and at least the program's records'
  // (KITE_RECORD_WORDS); 0: no form keeps what it did.
  int kept_words = 0;
  // Some kept frame holds arrays and a map whose iterations it may start
  // ahead (KeptForm::maps): the rule keeps forms too, in runs of at most two
  // narrow workers (KITE_HAS_KEEP 2), since a form that fills its stack
  // would otherwise lose every frame and array under it.
  // So does a form that writes (KeptForm::writes), which cannot run
  // otherwise, in runs of any number of narrow workers (KITE_HAS_KEEP 3).
  bool keep_by_rule = false;
  bool keep_writes = false;
  bool kept_arrays = false;  // some kept frame holds arrays (KeptForm::arrays)

  bool large() const { return shape == Shape::Large; }
  bool split() const { return parts.count > 1; }
  bool has_fast() const { return fast_arity >= 0; }
  bool keeps() const { return kept_words > 0; }
  // Longs of task t's frame in kite_fast: where it goes on, its caller's
  // frame, its variables by id, and its accumulator if it has one.
  int fast_frame_words(const cps::Program &p, size_t t) const;
  // The task whose signal handles node `node`, or with node -1 graph
  // `graph`; -1 for none.
  int signal_task(const cps::Program &p, int node, int graph) const;
  // The index of the dispatcher of task values of this type.
  int dispatcher(const Type *type) const;
};

// The terms that `e` adds up: its operands through every `+` (SumForm).
std::vector<const ast::Expr *> sum_terms(const ast::Expr &e);

// The plan of `program`, whose ops it points into.
Plan make(const cps::Program &program, const EmitOptions &options);
// The plan as text, by task and block (dump_plan, kitec --dump-plan).
void dump(const cps::Program &program, const Plan &plan, std::ostream &out);

}  // namespace kite::plan
