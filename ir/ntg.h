// Nested task graphs (§3.3.2–3.3.3): one node per statement of the ANF
// program, each with its data dependency X → Y (runs inline) or X ⇝ Y
// (potentially parallel), linked by the rule of §3.3.3; `if` nodes nest a
// graph per branch.
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "ir/anf.h"
#include "ir/reductions.h"

namespace kite::ntg {

enum class Arrow { Seq, Par };  // → and ⇝, ordered

struct Dep {
  std::set<int> x, y;  // variable ids of the task (anf::Task::vars)
  Arrow arrow = Arrow::Seq;
};
Dep operator+(const Dep &a, const Dep &b);  // sum (§3.3.2)
Dep compose(const Dep &a, const Dep &b);    // a ; b

struct Graph;

// Figure 5's node kinds, plus `then`, whose two sides are graphs run one
// after the other. A `while` is a For node (its statement tells them apart):
// both run their body's graph once per iteration, in order.
enum class NodeKind { Stmt, If, Case, Then, For, Map };

struct Node {
  int id = -1;  // unique in the program
  NodeKind kind = NodeKind::Stmt;
  const anf::Stmt *stmt = nullptr;
  Dep dep;
  bool spawns = false;  // a stmt node whose statement calls a task
  // Optimisations (§3.3.4), shown by --dump-ntg:
  bool tail_call = false;  // the task's last call: the callee finishes the task
  bool flattened = false;  // one half of an `if` split in two (ir/flatten.h)
  // A For that is a reduction (ir/reductions.h) at the top of its task, not
  // in another loop's body: its accumulators. The node is parallel; its
  // iterations run in chunks, in any order.
  reductions::Reduction reduction;
  // The nested graphs: If: then, else. Case: one per branch, in order.
  // Then: first, second. For, Map: the body.
  std::vector<std::unique_ptr<Graph>> graphs;
  bool parallel() const { return dep.arrow == Arrow::Par; }
  const Graph &then_graph() const { return *graphs[0]; }
  const Graph &else_graph() const { return *graphs[1]; }
};

struct Graph {
  int id = -1;                               // unique in the program
  std::vector<std::unique_ptr<Node>> nodes;  // in topological (source) order
  std::vector<std::pair<int, int>> edges;    // indices into nodes, from < to
  Dep dep;
  // By node: the number of its set of parallel ancestors
  // (parallel_ancestors below), which decide the blocks (ir/cps.h) and what
  // has finished before a node runs (ir/tail_calls.h).
  std::vector<int> ancestors;
  std::vector<int> preds(int node) const;
  std::vector<std::vector<int>> all_preds() const;  // preds of every node, in one pass
};

// A task's leaf answer (ir/leaf_calls.h): when `guard` holds (or, with
// `on_false`, fails) on its parameters, it returns `value` and does nothing
// else; or, for a task that starts with a `case`, when the union
// `scrutinee` (a parameter) holds field `field`, it returns `value`, which
// may read that field's value as `binder`. Null guard and scrutinee: it
// has none.
struct LeafAnswer {
  const ast::Expr *guard = nullptr;
  bool on_false = false;
  const ast::Expr *value = nullptr;
  const ast::Expr *scrutinee = nullptr;
  int field = -1;
  const ast::VarDecl *binder = nullptr;
  bool any() const { return guard || scrutinee; }
};

struct TaskGraph {
  const anf::Task *task = nullptr;
  std::unique_ptr<Graph> body;
  LeafAnswer leaf;  // ir/leaf_calls.h
};

// What the lowering does with a direct map's body (ir/direct_maps.h):
// every call runs with nothing waiting for it, and the stores below are
// done by their calls.
struct DirectMap {
  // A call's node -> the `c <- t` that stores its result when it arrives;
  // a call not listed drops its result (`f(x);`).
  std::map<int, const anf::Stmt *> store_of;
  std::set<int> stores;  // the nodes of those stores: the lowering leaves them out
};

struct Program {
  const anf::Program *anf = nullptr;  // what the graphs' nodes point into
  std::vector<TaskGraph> tasks;
  int num_nodes = 0, num_graphs = 0;
  std::map<int, DirectMap> direct_maps;  // by Map node: the direct ones (ir/direct_maps.h)
};

// The graphs of every task of `program`, one node per statement, linked.
Program build(const anf::Program &program);

// Computes g's edges (§3.3.3), its dependency (11) and its nodes' parallel
// ancestors from its nodes' dependencies; for a pass that changes its nodes.
void link(const anf::Task &task, Graph &g);

// Adds the variables e reads to `out`.
void free_vars(const ast::Expr &e, std::set<int> &out);

// Readable text: every task's graph, nodes with statement and dependency,
// and edges. `dump_dot` prints the same as Graphviz.
void dump(const Program &p, std::ostream &out);
void dump_dot(const Program &p, std::ostream &out);

// Calls fn on every node of g and of the graphs nested in it, each node
// before its nested graphs' nodes.
void for_each_node(const Graph &g, const std::function<void(const Node &)> &fn);

// The parallel ancestors of each node of g, through the nodes that are not
// parallel: nodes with equal sets run in one block (ir/cps.h). By node, the
// number of its set: equal sets have equal numbers, the empty set 0, the
// others numbered in the order of the first node that has them. What is
// asked of the sets is only whether two are equal, and a set per node would
// be quadratic in a graph where each node waits for every call before it.
std::vector<int> parallel_ancestors(const Graph &g);

}  // namespace kite::ntg
