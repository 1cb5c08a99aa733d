// The backend's plan (plan.h): the analyses over the CPS program that the
// printers read.
#include "backend-opencl/plan.h"

#include <fmt/format.h>

#include <ostream>

#include "ir/vars.h"

namespace kite::plan {
namespace {

using ast::VarDecl;

// The task whose signal handles node n (every node belongs to one task's
// graphs; a detached call's node to its loop's), or -1 for a node that no
// signal names.
int node_task(const cps::Program &p, size_t n) {
  const cps::NodeInfo &info = p.nodes[n];
  if (info.graph >= 0) return p.graphs[size_t(info.graph)].task;
  if (info.detached_from >= 0) return node_task(p, size_t(info.detached_from));
  return -1;
}

// Whether a block of graph g may finish its task: its graph, or one that
// it ends a node of, ends the task.
bool may_finish(const cps::Program &p, int graph) {
  const cps::Graph *g = &p.graphs[size_t(graph)];
  while (g->end == cps::GraphEnd::Node) g = &p.graphs[size_t(p.nodes[size_t(g->end_node)].graph)];
  return g->end == cps::GraphEnd::Task;
}

// The parameters that the task never assigns are read once, at the start
// of each block that names them, into C variables p<id>: on a GPU a
// record slot is volatile, and each read of it a trip to the L2 cache
// that a loop would make again at each iteration. Nothing else writes
// them: a call's result, a map's element and a counter have slots of
// their own, and a tail call reads its arguments before it writes the
// callee's parameters, then returns.
std::vector<const VarDecl *> hold_params(const cps::Program &p, const cps::Block &b,
                                         const vars::VarSet &written) {
  const anf::Task &task = *p.tasks[size_t(b.task)].source;
  vars::VarSet named;
  if (b.kind == cps::BlockKind::Normal) {
    for (const cps::Op &op : b.ops)
      if (op.stmt) vars::collect(*op.stmt, vars::Use::Any, named);
  } else if (b.kind == cps::BlockKind::Split || b.kind == cps::BlockKind::Next) {
    // A map's chunk record holds the variables its iterations read.
    for (int v : b.loop.copy_vars) named.insert(task.vars[size_t(v)]);
  } else {
    return {};  // a Step block names no parameter
  }
  std::vector<const VarDecl *> held;
  for (const VarDecl *v : task.decl->param_vars)
    if (!written.count(v) && named.count(v)) held.push_back(v);
  return held;
}

}  // namespace

int Plan::signal_task(const cps::Program &p, int node, int graph) const {
  return node >= 0 ? node_task[size_t(node)] : p.graphs[size_t(graph)].task;
}

Plan make(const cps::Program &p, const EmitOptions &) {
  Plan plan;
  plan.shape = p.num_codes > kMaxInlineBlocks ? Shape::Large : Shape::Inline;
  plan.signals.resize(p.tasks.size());
  plan.node_task.resize(p.nodes.size());
  for (size_t n = 0; n < p.nodes.size(); ++n) {
    plan.node_task[n] = node_task(p, n);
    if (plan.node_task[n] >= 0) plan.signals[size_t(plan.node_task[n])].nodes.push_back(n);
  }
  for (const cps::Graph &g : p.graphs)
    if (g.id >= 0) plan.signals[size_t(g.task)].graphs.push_back(g.id);
  // By task: the variables its body assigns.
  std::vector<vars::VarSet> written(p.tasks.size());
  for (size_t t = 0; t < p.tasks.size(); ++t)
    vars::collect(p.tasks[t].source->body, vars::Use::Written, written[t]);
  plan.blocks.resize(p.blocks.size());
  for (const cps::Block &b : p.blocks) {
    if (b.code < 0) continue;
    BlockPlan &bp = plan.blocks[size_t(b.id)];
    bp.held_params = hold_params(p, b, written[size_t(b.task)]);
    bp.finish_ahead = b.kind == cps::BlockKind::Normal && may_finish(p, b.graph);
  }
  return plan;
}

namespace {

std::string names(const std::vector<const VarDecl *> &vs) {
  std::string s;
  for (const VarDecl *v : vs) s += (s.empty() ? "" : ", ") + v->name;
  return s;
}

}  // namespace

void dump(const cps::Program &p, const Plan &plan, std::ostream &out) {
  out << fmt::format("shape {} ({} blocks, inline up to {})\n",
                     plan.large() ? "large" : "inline", p.num_codes, kMaxInlineBlocks);
  for (size_t t = 0; t < p.tasks.size(); ++t) {
    const cps::Task &task = p.tasks[t];
    out << fmt::format("task {}\n", task.source->decl->name);
    const TaskSignals &ts = plan.signals[t];
    if (!ts.empty()) {
      std::string s;
      for (size_t n : ts.nodes) s += fmt::format(" n{}", n);
      for (int g : ts.graphs) s += fmt::format(" g{}", g);
      out << fmt::format("  signal {}:{}\n",
                         plan.large() ? fmt::format("kite_signal_t{}", t) : "kite_signal", s);
    }
    for (const cps::Block &b : p.blocks) {
      if (b.task != int(t) || b.code < 0) continue;
      const BlockPlan &bp = plan.blocks[size_t(b.id)];
      out << fmt::format("  block b{} (code {})\n", b.id, b.code);
      if (!bp.held_params.empty()) out << "    held parameters: " << names(bp.held_params) << "\n";
      if (bp.finish_ahead) out << "    may finish the task: link read ahead\n";
    }
  }
}

}  // namespace kite::plan
