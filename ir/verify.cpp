#include "ir/verify.h"

#include <fmt/format.h>

#include <set>

#include "frontend/diagnostics.h"

namespace kite {

namespace {

void verify_graph(const ntg::Graph &g, std::set<int> &node_ids) {
  for (auto [from, to] : g.edges)
    if (from >= to || to >= int(g.nodes.size()))
      internal_error(fmt::format("task graph g{}: edge {} -> {} is not forward", g.id, from, to));
  for (auto &n : g.nodes) {
    if (!node_ids.insert(n->id).second) internal_error(fmt::format("node n{} appears twice", n->id));
    for (auto &sub : n->graphs) verify_graph(*sub, node_ids);
  }
}

}  // namespace

void verify(const ntg::Program &graphs) {
  std::set<int> node_ids;
  for (auto &t : graphs.tasks) verify_graph(*t.body, node_ids);
}

void verify(const cps::Program &p) {
  std::vector<int> signals(p.blocks.size(), 0);
  for (const cps::Block &b : p.blocks)
    for (int n : b.notify) signals[n] += 1;
  std::vector<int> parallel_nodes(p.graphs.size(), 0);
  for (const cps::NodeInfo &n : p.nodes) {
    if (n.graph < 0) {
      if (!n.notify.empty()) internal_error("a detached call is waited for");
      continue;
    }
    parallel_nodes[n.graph] += 1;
    for (int b : n.notify) signals[b] += 1;
  }
  for (const cps::Block &b : p.blocks) {
    if (b.is_entry || b.kind != cps::BlockKind::Normal) continue;
    if (b.code < 0 || (b.counter_slot < 0 && b.counter_init != 1))
      internal_error(fmt::format("continuation b{} has no code or counter", b.id));
    if (b.counter_init < 1 || signals[b.id] != b.counter_init)
      internal_error(fmt::format("continuation b{} waits for {} events but {} signal it", b.id,
                                 b.counter_init, signals[b.id]));
  }
  for (const cps::Graph &g : p.graphs) {
    if (g.id < 0) continue;
    int expected = parallel_nodes[g.id] + int(g.blocks.size());
    if (g.outstanding_init != expected)
      internal_error(fmt::format("graph g{} waits for {} events, not {}", g.id, g.outstanding_init,
                                 expected));
  }
  for (const cps::Task &t : p.tasks)
    if (p.blocks[t.entry_block].code < 0) internal_error("a task entry without a code");
  for (const cps::Block &b : p.blocks)
    if ((b.kind != cps::BlockKind::Normal || b.starts_graph) && b.code < 0)
      internal_error(fmt::format("block b{} runs on its own but has no code", b.id));
}

}  // namespace kite
