#include "ir/cps.h"

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
    task_ = int(p_.tasks.size());
    p_.tasks.emplace_back();
    next_slot_ = kFirstFreeSlot;
    int g = lower_graph(*tg.body, -1, -1);
    Task &t = p_.tasks[task_];
    t.decl = tg.task;
    t.body_graph = g;
    t.entry_block = p_.graphs[g].entry_block;
    for (size_t v = 0; v < tg.vars.size(); ++v) t.var_slot.push_back(next_slot_++);
    t.frame_words = next_slot_;
    p_.frame_words = std::max(p_.frame_words, next_slot_);
  }

 private:
  int lower_graph(const ntg::Graph &g, int parent_node, int parent_graph) {
    Graph &cg = p_.graphs[g.id];
    cg.id = g.id;
    cg.task = task_;
    cg.parent_node = parent_node;
    cg.parent_graph = parent_graph;
    cg.outstanding_slot = next_slot_++;

    // The parallel ancestors of each node, through non-parallel nodes.
    size_t n = g.nodes.size();
    std::vector<std::set<int>> ancestors(n);
    std::vector<std::vector<int>> preds(n);
    for (auto [from, to] : g.edges) preds[to].push_back(from);
    for (size_t i = 0; i < n; ++i) {
      for (int p : preds[i]) {
        if (g.nodes[p]->parallel()) ancestors[i].insert(p);
        else ancestors[i].insert(ancestors[p].begin(), ancestors[p].end());
      }
    }

    // One block per distinct ancestor set; the empty set is the entry.
    std::map<std::set<int>, int> block_of_set;
    std::vector<int> block_of_node(n);
    auto new_block = [&]() {
      Block b;
      b.id = int(p_.blocks.size());
      b.task = task_;
      b.graph = g.id;
      p_.blocks.push_back(b);
      cg.blocks.push_back(b.id);
      return b.id;
    };
    cg.entry_block = new_block();
    p_.blocks[cg.entry_block].is_entry = true;
    p_.blocks[cg.entry_block].code = parent_node < 0 ? p_.num_codes++ : -1;
    block_of_set[{}] = cg.entry_block;
    int parallel_nodes = 0;
    for (size_t i = 0; i < n; ++i) {
      auto it = block_of_set.find(ancestors[i]);
      int b;
      if (it == block_of_set.end()) {
        b = new_block();
        p_.blocks[b].code = p_.num_codes++;
        p_.blocks[b].counter_slot = next_slot_++;
        block_of_set[ancestors[i]] = b;
      } else {
        b = it->second;
      }
      block_of_node[i] = b;
      const ntg::Node &node = *g.nodes[i];
      if (node.parallel()) {
        ++parallel_nodes;
        p_.nodes[node.id].graph = g.id;
      }
      Op op = make_op(node, g.id);
      p_.blocks[b].ops.push_back(std::move(op));
    }

    // What each block waits on: the parallel nodes and the other blocks
    // that feed its nodes directly.
    std::map<int, std::set<int>> waits_nodes, waits_blocks;
    for (size_t i = 0; i < n; ++i) {
      int b = block_of_node[i];
      for (int p : preds[i]) {
        if (g.nodes[p]->parallel()) waits_nodes[b].insert(g.nodes[p]->id);
        else if (block_of_node[p] != b) waits_blocks[b].insert(block_of_node[p]);
      }
    }
    for (int b : cg.blocks) {
      for (int node : waits_nodes[b]) p_.nodes[node].notify.push_back(b);
      for (int from : waits_blocks[b]) p_.blocks[from].notify.push_back(b);
      p_.blocks[b].counter_init = int(waits_nodes[b].size() + waits_blocks[b].size());
    }
    cg.outstanding_init = parallel_nodes + int(cg.blocks.size());
    return g.id;
  }

  Op make_op(const ntg::Node &node, int graph) {
    Op op;
    op.stmt = node.stmt;
    if (node.kind == ntg::NodeKind::If) {
      op.kind = OpKind::If;
      if (node.parallel()) {
        op.parallel = true;
        op.node = node.id;
        op.then_graph = lower_graph(*node.then_graph, node.id, graph);
        op.else_graph = lower_graph(*node.else_graph, node.id, graph);
      } else {
        for (auto &n : node.then_graph->nodes) op.then_ops.push_back(make_op(*n, graph));
        for (auto &n : node.else_graph->nodes) op.else_ops.push_back(make_op(*n, graph));
      }
      return op;
    }
    if (node.spawns) {
      op.kind = OpKind::Spawn;
      op.node = node.id;
      if (node.stmt->kind == ast::StmtKind::Assign) p_.nodes[node.id].target = node.stmt->target->var;
    }
    return op;
  }

  Program &p_;
  int task_ = -1;
  int next_slot_ = 0;
};

void dump_ops(const std::vector<Op> &ops, int indent, std::ostream &out) {
  std::string pad(indent, ' ');
  for (const Op &op : ops) {
    switch (op.kind) {
      case OpKind::Exec: out << pad << ntg::to_kite(*op.stmt) << "\n"; break;
      case OpKind::Spawn:
        out << pad << "spawn " << ntg::to_kite(*op.stmt) << "  => signals n" << op.node << "\n";
        break;
      case OpKind::If:
        if (op.parallel) {
          out << pad << ntg::to_kite(*op.stmt) << " start g" << op.then_graph << " else start g"
              << op.else_graph << "  => signals n" << op.node << "\n";
        } else {
          out << pad << ntg::to_kite(*op.stmt) << " {\n";
          dump_ops(op.then_ops, indent + 2, out);
          out << pad << "} else {\n";
          dump_ops(op.else_ops, indent + 2, out);
          out << pad << "}\n";
        }
        break;
    }
  }
}

}  // namespace

Program lower(const ntg::Program &graphs) {
  Program p;
  Lowering l(p, graphs);
  for (auto &tg : graphs.tasks) l.lower_task(tg);
  return p;
}

void dump(const Program &p, std::ostream &out) {
  for (const Task &t : p.tasks) {
    out << "task " << t.decl->name << ": entry code " << p.blocks[t.entry_block].code << ", "
        << t.frame_words << " record slots\n";
    for (const Graph &g : p.graphs) {
      if (g.task != int(&t - p.tasks.data())) continue;
      out << "  graph g" << g.id << ": waits for " << g.outstanding_init << " events (slot "
          << g.outstanding_slot << ")";
      if (g.parent_node >= 0) out << ", finishes n" << g.parent_node;
      out << "\n";
      for (int b : g.blocks) {
        const Block &blk = p.blocks[b];
        out << "    block b" << blk.id;
        if (blk.code >= 0) out << " (code " << blk.code << ")";
        if (blk.is_entry) out << " entry";
        else out << " waits for " << blk.counter_init << " (slot " << blk.counter_slot << ")";
        if (!blk.notify.empty()) {
          out << ", then signals";
          for (int n : blk.notify) out << " b" << n;
        }
        out << "\n";
        dump_ops(blk.ops, 6, out);
      }
    }
    for (size_t n = 0; n < p.nodes.size(); ++n) {
      const NodeInfo &info = p.nodes[n];
      if (info.graph < 0 || p.graphs[info.graph].task != int(&t - p.tasks.data())) continue;
      out << "  n" << n << " signals";
      for (int b : info.notify) out << " b" << b;
      out << " g" << info.graph << "\n";
    }
  }
}

}  // namespace kite::cps
