// Sinking: parallel ops moved after the assignments that only compute.
#include "ir/sink.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "ir/effects.h"

namespace kite::sink {

namespace {

// Whether node is `x: t = e`, `x: t` or `x <- e`, x a variable (not a
// loop's element, which names an element of an array that a call may
// read) and e only computing from variables and literals.
bool only_computes(const ntg::Node &node, const anf::Task &task) {
  if (node.kind != ntg::NodeKind::Stmt || node.spawns) return false;
  const anf::Stmt &st = *node.stmt;
  if (st.kind == anf::StmtKind::Set) {
    if (!st.target || st.target->kind != ast::ExprKind::Name || !st.target->var ||
        task.element_of(st.target->var))
      return false;
  } else if (st.kind != anf::StmtKind::Let) {
    return false;
  }
  return !st.expr || effects::only_computes(*st.expr, [](const ast::Expr &name) {
    return name.var != nullptr || name.global != nullptr;
  });
}

// Sinks the parallel ops of one block, whose ops come from `nodes`, one
// each, in order: null for an op that is neither parallel nor a statement.
//
// Each op moving left past the parallel ops before it, one swap at a time,
// took time quadratic in a block of calls each after its own `v: int`. The
// same order in one pass: parallel ops keep their order, and so do the
// others, each before the parallel op numbered its slot. An op that stays
// has the slot after every parallel op before it; one that moves stops
// after the last parallel op before it that it conflicts with (it writes
// what that op reads or writes, or reads what that op writes), and never
// passes the op before it that is not parallel.
void sink(std::vector<cps::Op> &ops, const std::vector<const ntg::Node *> &nodes,
          const anf::Task &task) {
  std::map<int, int> last_use, last_write;  // variable -> the last parallel op so far using it
  std::vector<int> slot(ops.size());
  int parallel = 0, floor = 0;  // the parallel ops so far; the last other op's slot
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].parallel) {
      const ntg::Dep &d = nodes[i]->dep;
      slot[i] = parallel;
      for (int v : d.x) last_use[v] = parallel;
      for (int v : d.y) last_use[v] = last_write[v] = parallel;
      ++parallel;
      continue;
    }
    int s = parallel;
    if (nodes[i] && only_computes(*nodes[i], task)) {
      const ntg::Dep &d = nodes[i]->dep;
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
  std::vector<cps::Op> sorted;
  sorted.reserve(ops.size());
  for (size_t i : order) sorted.push_back(std::move(ops[i]));
  ops = std::move(sorted);
}

}  // namespace

void parallel_ops(cps::Program &blocks, const ntg::Program &graphs) {
  // The node of each parallel op (by its id) and of each statement's op.
  std::vector<const ntg::Node *> by_id(size_t(graphs.num_nodes), nullptr);
  std::unordered_map<const anf::Stmt *, const ntg::Node *> by_stmt;
  for (const ntg::TaskGraph &t : graphs.tasks) {
    ntg::for_each_node(*t.body, [&](const ntg::Node &n) {
      by_id[size_t(n.id)] = &n;
      if (n.kind == ntg::NodeKind::Stmt) by_stmt[n.stmt] = &n;
    });
  }
  std::vector<const ntg::Node *> nodes;
  for (cps::Block &b : blocks.blocks) {
    if (b.kind != cps::BlockKind::Normal) continue;
    nodes.clear();
    for (const cps::Op &op : b.ops) {
      if (op.parallel)
        nodes.push_back(by_id[size_t(op.node)]);
      else if (op.kind == cps::OpKind::Exec)
        nodes.push_back(by_stmt.at(op.stmt));
      else
        nodes.push_back(nullptr);
    }
    sink(b.ops, nodes, *blocks.tasks[size_t(b.task)].source);
  }
}

}  // namespace kite::sink
