// CPS lowering: nested task graphs to blocks, join counters and signals.
#include "ir/cps.h"

#include <algorithm>
#include <map>
#include <set>

namespace kite::cps {

namespace {

class Lowering {
 public:
  explicit Lowering(Program &p, const ntg::Program &in) : p_(p), in_(in) {
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
      Op op = make_op(node);  // may add blocks: p_.blocks[b] only after it
      p_.blocks[b].ops.push_back(std::move(op));
    }

    // What each block waits on: the parallel nodes and the other blocks
    // that feed its nodes directly.
    std::map<int, std::set<int>> waits_nodes, waits_blocks;
    std::vector<std::vector<int>> preds = g.all_preds();
    for (size_t i = 0; i < n; ++i) {
      int b = block_of_node[i];
      for (int p : preds[i]) {
        if (g.nodes[p]->parallel())
          waits_nodes[b].insert(g.nodes[p]->id);
        else if (block_of_node[p] != b)
          waits_blocks[b].insert(block_of_node[p]);
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
  std::vector<Op> direct_ops(const ntg::Graph &g, const ntg::DirectMap &plan, int body,
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
    auto direct = in_.direct_maps.find(node.id);
    if (direct == in_.direct_maps.end()) return false;
    const ntg::DirectMap &plan = direct->second;
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
          if (op.parallel)
            op.graphs.push_back(nested(*g, node.id));
          else
            op.inline_ops.push_back(inline_ops(*g));
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
  const ntg::Program &in_;
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

bool fast_at_call(const Program &p, const Op &op) {
  int t = callee(op);
  if (t < 0 || op.node < 0 || !p.tasks[size_t(t)].fast || op.tail) return false;
  const NodeInfo &info = p.nodes[size_t(op.node)];
  return info.detached_from < 0;
}

Program lower(const ntg::Program &graphs) {
  Program p;
  p.anf = graphs.anf;
  Lowering l(p, graphs);
  for (auto &tg : graphs.tasks) l.lower_task(tg);
  return p;
}

}  // namespace kite::cps
