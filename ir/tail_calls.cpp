// Tail calls: the pass that marks them (§3.3.4; tail_calls.h).
#include "ir/tail_calls.h"

#include <vector>

namespace kite::tail_calls {

using anf::StmtKind;
using ast::ExprKind;
using ntg::Graph;
using ntg::Node;
using ntg::NodeKind;

namespace {

// The transitive predecessors of node k, by node.
std::vector<bool> ancestors(const Graph &g, int k) {
  std::vector<bool> out(g.nodes.size());
  std::vector<std::vector<int>> preds = g.all_preds();
  std::vector<int> work = {k};
  while (!work.empty()) {
    int n = work.back();
    work.pop_back();
    for (int from : preds[size_t(n)])
      if (!out[size_t(from)]) {
        out[size_t(from)] = true;
        work.push_back(from);
      }
  }
  return out;
}

// Whether every node of g but `last` and `except` has finished when node k
// runs: it is an ancestor of k, or an immediate node before k in k's block
// (one with the same set of parallel ancestors).
bool all_done_before(const Graph &g, int k, int except) {
  std::vector<bool> anc = ancestors(g, k);
  const std::vector<int> &block = g.ancestors;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (int(i) == k || int(i) == except || anc[i]) continue;
    bool same_block_before = int(i) < k && !g.nodes[i]->parallel() && block[i] == block[size_t(k)];
    if (!same_block_before) return false;
  }
  return true;
}

// The tail call of g, if it has one (tail_calls.h).
void mark_graph(Graph &g) {
  if (g.nodes.empty()) return;
  int last = int(g.nodes.size()) - 1;
  Node &r = *g.nodes[last];
  if (r.stmt->kind == StmtKind::Return && r.stmt->expr && r.stmt->expr->kind == ExprKind::Name) {
    std::vector<int> preds = g.preds(last);
    if (preds.size() != 1) return;
    Node &s = *g.nodes[preds[0]];
    if (!s.spawns || !s.stmt->target || s.stmt->target->var != r.stmt->expr->var) return;
    if (all_done_before(g, preds[0], last)) s.tail_call = true;
    return;
  }
  if ((r.kind == NodeKind::If || r.kind == NodeKind::Case) && !r.flattened &&
      all_done_before(g, last, -1))
    for (auto &sub : r.graphs) mark_graph(*sub);
}

}  // namespace

void mark(ntg::Program &graphs) {
  for (auto &t : graphs.tasks) mark_graph(*t.body);
}

}  // namespace kite::tail_calls
