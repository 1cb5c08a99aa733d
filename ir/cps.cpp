// CPS lowering: nested task graphs to blocks, join counters and signals.
#include "ir/cps.h"

#include "frontend/check.h"
#include "ir/direct_maps.h"
#include "ir/kernels.h"
#include "ir/local_arrays.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

namespace kite::cps {

namespace {

class Lowering {
 public:
  explicit Lowering(Program &p, const ntg::Program &in) : p_(p) {
    p_.graphs.resize(in.num_graphs);
    p_.nodes.resize(in.num_nodes);
  }

  void lower_task(const ntg::TaskGraph &tg) {
    tg_ = &tg;
    task_ = int(p_.tasks.size());
    p_.tasks.emplace_back();
    next_slot_ = kFirstFreeSlot;
    int g = lower_graph(*tg.body);
    p_.graphs[g].end = GraphEnd::Task;
    int entry = p_.graphs[g].entry_block;
    p_.blocks[entry].code = p_.num_codes++;
    Task &t = p_.tasks[task_];
    t.source = tg.task;
    t.body_graph = g;
    t.entry_block = p_.graphs[g].entry_block;
    for (size_t v = 0; v < tg.task->vars.size(); ++v) t.var_slot.push_back(next_slot_++);
    t.local_arrays = local_arrays(*tg.task);
    t.leaf = tg.leaf;
    t.record_words = next_slot_;
    p_.record_words = std::max(p_.record_words, next_slot_);
  }

 private:
  // Lowers graph g; the caller sets what happens at its end.
  int lower_graph(const ntg::Graph &g) {
    Graph &cg0 = p_.graphs[g.id];
    cg0.id = g.id;
    cg0.task = task_;
    cg0.outstanding_slot = next_slot_++;

    // The parallel ancestors of each node, through non-parallel nodes: by
    // node, the number of its set (ntg::parallel_ancestors).
    size_t n = g.nodes.size();
    const std::vector<int> &ancestors = g.ancestors;

    // One block per distinct ancestor set; the empty set (0) is the entry.
    std::vector<int> block_of_set(n + 1, -1);
    std::vector<int> block_of_node(n);
    std::map<int, std::vector<const ntg::Node *>> block_nodes;  // in the order of its ops
    int entry = new_block(g.id);
    p_.blocks[entry].is_entry = true;
    p_.graphs[g.id].entry_block = entry;
    block_of_set[0] = entry;
    int parallel_nodes = 0;
    for (size_t i = 0; i < n; ++i) {
      int &b = block_of_set[size_t(ancestors[i])];
      if (b < 0) {
        b = new_block(g.id);
        p_.blocks[b].code = p_.num_codes++;
      }
      block_of_node[i] = b;
      const ntg::Node &node = *g.nodes[i];
      if (node.parallel()) {
        ++parallel_nodes;
        p_.nodes[node.id].graph = g.id;
      }
      Op op = make_op(node);
      p_.blocks[b].ops.push_back(std::move(op));
      block_nodes[b].push_back(&node);
    }
    for (auto &[b, nodes] : block_nodes) sink_parallel_ops(p_.blocks[b].ops, nodes);

    // What each block waits on: the parallel nodes and the other blocks
    // that feed its nodes directly.
    std::map<int, std::set<int>> waits_nodes, waits_blocks;
    std::vector<std::vector<int>> preds = g.all_preds();
    for (size_t i = 0; i < n; ++i) {
      int b = block_of_node[i];
      for (int p : preds[i]) {
        if (g.nodes[p]->parallel()) waits_nodes[b].insert(g.nodes[p]->id);
        else if (block_of_node[p] != b) waits_blocks[b].insert(block_of_node[p]);
      }
    }
    Graph &cg = p_.graphs[g.id];
    for (int b : cg.blocks) {
      for (int node : waits_nodes[b]) p_.nodes[node].notify.push_back(b);
      for (int from : waits_blocks[b]) p_.blocks[from].notify.push_back(b);
      p_.blocks[b].counter_init = int(waits_nodes[b].size() + waits_blocks[b].size());
      // A block that waits for one event needs no counter: that event is
      // the last (a long chain of statements keeps records small).
      if (!p_.blocks[b].is_entry && p_.blocks[b].counter_init != 1)
        p_.blocks[b].counter_slot = next_slot_++;
    }
    cg.outstanding_init = parallel_nodes + int(cg.blocks.size());
    return g.id;
  }

  // A block's parallel ops start events; the statements after them in the
  // block do not depend on them (a node that does has them among its
  // parallel ancestors, so it runs in a later block). An assignment that
  // only computes moves before the parallel ops it does not conflict with,
  // so that a block more often ends with the op that starts its last event
  // and its end need not be counted or signalled (imply_block_ends): UTS's
  // `total: long = 1` after its map. Nothing that takes longer moves: a
  // loop or an allocation would hold the calls back.
  void sink_parallel_ops(std::vector<Op> &ops, std::vector<const ntg::Node *> &nodes) const {
    // Each op moving left past the parallel ops before it, one swap at a
    // time, took time quadratic in a block of calls each after its own
    // `v: int`. The same order in one pass: parallel ops keep their order,
    // and so do the others, each before the parallel op numbered its slot.
    // An op that stays has the slot after every parallel op before it; one
    // that moves stops after the last parallel op before it that it
    // conflicts with (it writes what that op reads or writes, or reads what
    // that op writes), and never passes the op before it that is not
    // parallel.
    std::map<int, int> last_use, last_write;  // variable -> the last parallel op so far using it
    std::vector<int> slot(ops.size());
    int parallel = 0, floor = 0;  // the parallel ops so far; the last other op's slot
    for (size_t i = 0; i < ops.size(); ++i) {
      const ntg::Dep &d = nodes[i]->dep;
      if (ops[i].parallel) {
        slot[i] = parallel;
        for (int v : d.x) last_use[v] = parallel;
        for (int v : d.y) last_use[v] = last_write[v] = parallel;
        ++parallel;
        continue;
      }
      int s = parallel;
      if (only_computes(*nodes[i])) {
        s = floor;
        for (int v : d.y)
          if (auto it = last_use.find(v); it != last_use.end()) s = std::max(s, it->second + 1);
        for (int v : d.x)
          if (auto it = last_write.find(v); it != last_write.end()) s = std::max(s, it->second + 1);
      }
      slot[i] = floor = s;
    }
    std::vector<size_t> order(ops.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::pair(slot[a], ops[a].parallel) < std::pair(slot[b], ops[b].parallel);
    });
    std::vector<Op> sorted_ops;
    std::vector<const ntg::Node *> sorted_nodes;
    sorted_ops.reserve(ops.size());
    sorted_nodes.reserve(ops.size());
    for (size_t i : order) {
      sorted_ops.push_back(std::move(ops[i]));
      sorted_nodes.push_back(nodes[i]);
    }
    ops = std::move(sorted_ops);
    nodes = std::move(sorted_nodes);
  }

  // Whether node is `x: t = e`, `x: t` or `x <- e`, x a variable (not a
  // loop's element, which names an element of an array that a call may
  // read) and e only computing from variables and literals.
  bool only_computes(const ntg::Node &node) const {
    if (node.kind != ntg::NodeKind::Stmt || node.spawns) return false;
    const anf::Stmt &st = *node.stmt;
    if (st.kind == anf::StmtKind::Set) {
      if (!st.target || st.target->kind != ast::ExprKind::Name || !st.target->var ||
          tg_->task->element_of(st.target->var))
        return false;
    } else if (st.kind != anf::StmtKind::Let) {
      return false;
    }
    return !st.expr || kite::only_computes(*st.expr, [](const ast::Expr &name) {
      return name.var != nullptr || name.global != nullptr;
    });
  }

  int new_block(int graph, BlockKind kind = BlockKind::Normal) {
    Block b;
    b.id = int(p_.blocks.size());
    b.task = task_;
    b.graph = graph;
    b.kind = kind;
    p_.blocks.push_back(b);
    if (kind == BlockKind::Normal) p_.graphs[graph].blocks.push_back(b.id);
    return b.id;
  }

  // A nested graph that ends by making `node` happen.
  int nested(const ntg::Graph &g, int node) {
    int id = lower_graph(g);
    p_.graphs[id].end = GraphEnd::Node;
    p_.graphs[id].end_node = node;
    return id;
  }

  // Calls in a chained loop's body that no later node of the body waits
  // for and that determine nothing outside the body are detached from the
  // iteration (§3.4: the loop does not wait for the tasks its body starts
  // unless a data dependency says so); the loop node counts them instead.
  void detach_calls(const ntg::Graph &body, const ntg::Node &loop, int slot) {
    std::set<int> has_successor;
    for (auto [from, to] : body.edges) has_successor.insert(from);
    std::set<int> inner = declared_in(body);
    for (size_t i = 0; i < body.nodes.size(); ++i) {
      const ntg::Node &n = *body.nodes[i];
      if (!n.spawns || has_successor.count(int(i))) continue;
      bool escapes = false;
      for (int v : n.dep.y) escapes |= !inner.count(v);
      if (escapes) continue;
      NodeInfo &info = p_.nodes[n.id];
      p_.graphs[info.graph].outstanding_init -= 1;
      info.graph = -1;
      info.detached_from = loop.id;
      info.detached_slot = slot;
    }
  }

  static std::set<int> declared_in(const ntg::Graph &g) {
    std::set<int> out;
    ntg::for_each_node(g, [&](const ntg::Node &n) {
      for (ast::VarDecl *v : n.stmt->vars) out.insert(v->id);
    });
    return out;
  }

  // A direct map's body as inline ops (ir/direct_maps.h): its calls
  // report to the body's graph and store their results as `plan` says.
  // `calls` counts the calls (the events the body's graph waits for).
  std::vector<Op> direct_ops(const ntg::Graph &g, const direct_maps::Plan &plan, int body,
                             int &calls) {
    std::vector<Op> ops;
    for (auto &np : g.nodes) {
      const ntg::Node &n = *np;
      if (plan.stores.count(n.id)) continue;  // done by its call
      Op op;
      op.stmt = n.stmt;
      if (n.kind == ntg::NodeKind::Stmt && n.spawns) {
        op.kind = OpKind::Spawn;
        op.node = n.id;
        op.parallel = true;
        NodeInfo &info = p_.nodes[n.id];
        info.graph = body;
        info.direct = true;
        calls += 1;
        if (auto store = plan.store_of.find(n.id); store != plan.store_of.end())
          info.store = store->second;
      } else if (n.kind == ntg::NodeKind::If || n.kind == ntg::NodeKind::Case) {
        op.kind = n.kind == ntg::NodeKind::If ? OpKind::If : OpKind::Case;
        for (auto &sub : n.graphs) op.inline_ops.push_back(direct_ops(*sub, plan, body, calls));
      } else {
        op = make_op(n);
      }
      ops.push_back(std::move(op));
    }
    return ops;
  }

  bool lower_direct_map(const ntg::Node &node, Op &op) {
    direct_maps::Plan plan;
    if (!direct_maps::find(node, p_.nodes.size(), plan)) return false;
    const ntg::Graph &g = *node.graphs[0];
    const anf::Stmt &st = *node.stmt;
    int calls = 0;
    std::vector<Op> ops = direct_ops(g, plan, g.id, calls);
    Graph &bg = p_.graphs[g.id];
    bg.id = g.id;
    bg.task = task_;
    bg.outstanding_slot = next_slot_++;
    bg.outstanding_init = calls;
    bg.end = GraphEnd::Chunk;
    bg.end_node = node.id;
    bg.end_slot = op.counter_slot;
    bg.lo_slot = op.lo_slot;
    bg.hi_slot = op.hi_slot;
    bg.index_var = st.index_var->id;
    op.direct = true;
    op.graphs = {g.id};
    op.inline_ops.push_back(std::move(ops));
    int split = new_block(g.id, BlockKind::Split);
    p_.blocks[split].code = p_.num_codes++;
    op.split_block = split;
    op.copy_vars = iteration_copies(st, g.dep.x);
    p_.blocks[split].loop = op;
    return true;
  }

  std::vector<Op> inline_ops(const ntg::Graph &g) {
    std::vector<Op> ops;
    for (auto &n : g.nodes) ops.push_back(make_op(*n));
    return ops;
  }

  Op make_op(const ntg::Node &node) {
    Op op;
    op.stmt = node.stmt;
    op.parallel = node.parallel();
    if (op.parallel) op.node = node.id;
    switch (node.kind) {
      case ntg::NodeKind::Stmt:
        if (node.spawns) {
          op.kind = OpKind::Spawn;
          op.tail = node.tail_call;
          if (node.stmt->target) p_.nodes[node.id].target = node.stmt->target->var;
        }
        return op;
      case ntg::NodeKind::If:
      case ntg::NodeKind::Case:
        op.kind = node.kind == ntg::NodeKind::If ? OpKind::If : OpKind::Case;
        for (auto &g : node.graphs) {
          if (op.parallel) op.graphs.push_back(nested(*g, node.id));
          else op.inline_ops.push_back(inline_ops(*g));
        }
        return op;
      case ntg::NodeKind::Then:
        op.kind = OpKind::Then;
        if (!op.parallel) {
          for (auto &g : node.graphs) op.inline_ops.push_back(inline_ops(*g));
          return op;
        }
        {
          int first = lower_graph(*node.graphs[0]);
          int second = nested(*node.graphs[1], node.id);
          int start = p_.graphs[second].entry_block;
          p_.blocks[start].code = p_.num_codes++;
          p_.blocks[start].starts_graph = true;
          p_.graphs[first].end = GraphEnd::StartNext;
          p_.graphs[first].end_block = start;
          op.graphs = {first, second};
        }
        return op;
      case ntg::NodeKind::For:
        op.kind = OpKind::For;
        if (!node.reduction.empty()) {
          op.reduction = node.reduction;
          lower_chunks(node, op);
          return op;
        }
        if (!op.parallel) {
          op.inline_ops.push_back(inline_ops(*node.graphs[0]));
          return op;
        }
        {
          // Chained: one iteration's graph at a time, in the task's record.
          int body = lower_graph(*node.graphs[0]);
          op.counter_slot = next_slot_++;
          // A while's condition may read what any call of the iteration
          // wrote, so its iterations wait for all their calls.
          if (node.stmt->kind != anf::StmtKind::While)
            detach_calls(*node.graphs[0], node, op.counter_slot);
          int step = new_block(body, BlockKind::Step);
          p_.blocks[step].code = p_.num_codes++;
          p_.graphs[body].end = GraphEnd::LoopStep;
          p_.graphs[body].end_block = step;
          op.graphs = {body};
          op.step_block = step;
          p_.blocks[step].loop = op;
        }
        return op;
      case ntg::NodeKind::Map: {
        op.kind = OpKind::Map;
        lower_chunks(node, op);
        return op;
      }
    }
    return op;
  }

  // A map, or a reduction: split blocks spread its iterations over records.
  void lower_chunks(const ntg::Node &node, Op &op) {
    op.parallel = true;
    op.node = node.id;
    op.counter_slot = next_slot_++;
    op.lo_slot = next_slot_++;
    op.hi_slot = next_slot_++;
    if (op.kind == OpKind::Map && lower_direct_map(node, op)) return;
    int body = lower_graph(*node.graphs[0]);
    int split = new_block(body, BlockKind::Split);
    p_.blocks[split].code = p_.num_codes++;
    int next = new_block(body, BlockKind::Next);
    p_.blocks[next].code = p_.num_codes++;
    Graph &bg = p_.graphs[body];
    bg.end = GraphEnd::Iteration;
    bg.end_node = node.id;
    bg.end_slot = op.counter_slot;
    bg.end_block = next;
    bg.lo_slot = op.lo_slot;
    bg.hi_slot = op.hi_slot;
    bg.index_var = node.stmt->index_var->id;
    op.graphs = {body};
    op.split_block = split;
    // An iteration's record needs what its body reads from outside, and
    // the collection; the rest of the parent's record is not copied.
    op.copy_vars = iteration_copies(*node.stmt, node.graphs[0]->dep.x);
    // A body that calls no task needs no counters of its own: a record
    // can run a chunk of iterations one after another.
    op.chunked = node.graphs[0]->dep.arrow == ntg::Arrow::Seq;
    if (op.chunked && !op.reduction.scan) op.step_slot = next_slot_++;
    op.kernel = op.chunked && !op.reduction.scan && !kernels::allocates_or_prints(*node.stmt);
    if (op.reduction.scan) {
      op.totals_slot = next_slot_++;
      op.phase_slot = next_slot_++;
    }
    p_.blocks[split].loop = op;
    p_.blocks[next].loop = op;
  }

  // The variables whose slots a map iteration's record copies from the
  // record that starts the map: what its body reads from outside, and the
  // collection. The element of an enclosing loop has no slot of its own (it
  // is that loop's collection at that loop's index), so reading it copies
  // those two.
  std::vector<int> iteration_copies(const anf::Stmt &map, const std::set<int> &reads) {
    std::set<int> vars;
    for (int v : reads) {
      if (v == map.elem_var->id || v == map.index_var->id) continue;
      if (const anf::Stmt *loop = tg_->task->loop_of[size_t(v)]) {
        vars.insert(loop->coll_var->id);
        vars.insert(loop->index_var->id);
      } else {
        vars.insert(v);
      }
    }
    vars.insert(map.coll_var->id);
    return {vars.begin(), vars.end()};
  }

  Program &p_;
  const ntg::TaskGraph *tg_ = nullptr;
  int task_ = -1;
  int next_slot_ = 0;
};

}  // namespace

bool takes_over(const std::vector<Op> &ops) {
  for (const Op &op : ops) {
    if (op.kind == OpKind::Spawn && op.tail) return true;
    for (const auto &part : op.inline_ops)
      if (takes_over(part)) return true;
  }
  return false;
}

int callee(const Op &op) {
  if (op.kind != OpKind::Spawn) return -1;
  const ast::Expr &fn = *op.stmt->expr->children[0];
  return fn.kind == ast::ExprKind::Name && fn.task ? fn.task->id : -1;
}

bool answered_at_call(const Program &p, const Op &op) {
  int t = callee(op);
  return t >= 0 && op.node >= 0 && p.tasks[size_t(t)].leaf.any() && !op.tail &&
         p.nodes[size_t(op.node)].detached_from < 0;
}

namespace {

// A graph ends when all its events have: its parallel nodes and its
// blocks. A parallel node that some block of the graph waits for ends
// before that block does, so it need not count: fib's continuation waits
// for both calls, and the calls no longer count down the branch's counter
// as well (one atomic fewer per call). Only in graphs that end a task or a
// node: the others (loops' bodies, maps' iterations and chunks) count
// every event, and so does a node that notifies a block making a tail call
// (which must find the graph's count already down, see the backend's
// tail_blocks). Blocks that notify another keep counting: leaving them out
// as well made UTS 3.5% faster but N-queens 12% slower on an H200
// (docs/design.md, section 4); a block whose last op starts an event of
// its graph does not (imply_block_ends).
void imply_waited_nodes(Program &p) {
  for (NodeInfo &n : p.nodes) {
    if (n.graph < 0 || n.direct || n.notify.empty()) continue;
    const Graph &g = p.graphs[n.graph];
    if (g.id < 0 || (g.end != GraphEnd::Task && g.end != GraphEnd::Node)) continue;
    bool implied = true;
    for (int b : n.notify) implied &= p.blocks[b].graph == n.graph && !takes_over(p.blocks[b].ops);
    if (!implied) continue;
    n.implied = true;
    p.graphs[n.graph].outstanding_init -= 1;
  }
}

// A block that does nothing after its last op, when that op starts an
// event of the block's own graph, ends before that event happens: the
// graph's counter need not count the block's end, since it cannot reach
// zero before that event, which comes after everything the block did; nor
// need the blocks it notifies, when they wait for that event as well.
// The event is a call's or a parallel if's or case's node, counted in the
// graph, or implied by the blocks that wait for it (which run after it),
// so that some counted event comes later still. A branch whose completion
// happens inline (a call-free branch taken) may then finish the task inside
// the op: nothing of the block runs after it. As for implied nodes, only
// graphs that end a task or a node, and none with a block that makes a tail
// call (its callee takes the counters over).
void imply_block_ends(Program &p) {
  std::vector<bool> tail(p.graphs.size(), false);  // a block of the graph makes a tail call
  for (const Block &b : p.blocks)
    if (b.kind == BlockKind::Normal && takes_over(b.ops)) tail[size_t(b.graph)] = true;
  for (Block &b : p.blocks) {
    if (b.kind != BlockKind::Normal || b.ops.empty()) continue;
    Graph &g = p.graphs[b.graph];
    if (g.end != GraphEnd::Task && g.end != GraphEnd::Node) continue;
    if (tail[size_t(b.graph)]) continue;
    const Op &last = b.ops.back();
    const bool starts = (last.kind == OpKind::Spawn && !last.tail) ||
                        ((last.kind == OpKind::If || last.kind == OpKind::Case) && last.parallel) ||
                        last.kind == OpKind::Map;
    if (!starts || last.node < 0) continue;
    const NodeInfo &n = p.nodes[last.node];
    if (n.graph != b.graph || n.direct) continue;
    // The blocks it notifies must wait for that event too, which then tells
    // them of the block's end: UTS's `children` continuation waits for its
    // map alone, not for the entry block as well.
    bool waited = true;
    for (int w : b.notify)
      waited &= std::find(n.notify.begin(), n.notify.end(), w) != n.notify.end();
    if (!waited) continue;
    for (int w : b.notify)
      if (--p.blocks[w].counter_init == 1) p.blocks[w].counter_slot = -1;
    b.notify.clear();
    b.end_implied = true;
    g.outstanding_init -= 1;
  }
}

}  // namespace

Program lower(const ntg::Program &graphs) {
  Program p;
  p.anf = graphs.anf;
  Lowering l(p, graphs);
  for (auto &tg : graphs.tasks) l.lower_task(tg);
  imply_waited_nodes(p);
  imply_block_ends(p);
  return p;
}

}  // namespace kite::cps
