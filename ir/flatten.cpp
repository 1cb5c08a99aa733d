// Graph flattening: parallel `if`s split in two.
#include "ir/flatten.h"

namespace kite::flatten {

namespace {

using ntg::Graph;
using ntg::Node;

bool meets(const std::set<int> &x, const std::set<int> &y) {
  for (int v : x)
    if (y.count(v)) return true;
  return false;
}

bool contains_call(const ast::Expr &e) {
  bool found = false;
  ast::for_each_expr(e,
                     [&](const ast::Expr &x) { found = found || x.kind == ast::ExprKind::Call; });
  return found;
}

bool has_return(const Graph &g) {
  bool found = false;
  ntg::for_each_node(
      g, [&](const Node &n) { found = found || n.stmt->kind == anf::StmtKind::Return; });
  return found;
}

// Whether if node n may split: both branches do something, the condition
// calls nothing (both halves evaluate it), neither branch determines what
// the other reads or writes or what the condition reads, and neither
// returns.
bool splits(const Node &n) {
  if (n.kind != ntg::NodeKind::If || !n.parallel()) return false;
  const Graph &then = *n.graphs[0], &otherwise = *n.graphs[1];
  if (then.nodes.empty() || otherwise.nodes.empty() || contains_call(*n.stmt->expr)) return false;
  const ntg::Dep &a = then.dep, &b = otherwise.dep;
  std::set<int> cond;
  ntg::free_vars(*n.stmt->expr, cond);
  return !meets(a.y, b.x) && !meets(a.y, b.y) && !meets(b.y, a.x) && !meets(a.y, cond) &&
         !meets(b.y, cond) && !has_return(then) && !has_return(otherwise);
}

// The half of if node n that keeps branch `branch` (0: then, 1: else).
std::unique_ptr<Node> half(Node &n, int branch) {
  auto h = std::make_unique<Node>();
  h->kind = ntg::NodeKind::If;
  h->stmt = n.stmt;
  h->flattened = true;
  for (int b = 0; b < 2; ++b)
    h->graphs.push_back(b == branch ? std::move(n.graphs[size_t(b)]) : std::make_unique<Graph>());
  ntg::free_vars(*n.stmt->expr, h->dep.x);
  h->dep = h->dep + h->graphs[0]->dep + h->graphs[1]->dep;
  return h;
}

void split(const anf::Task &task, Graph &g) {
  std::vector<std::unique_ptr<Node>> nodes;
  bool changed = false;
  for (auto &n : g.nodes) {
    for (auto &sub : n->graphs) split(task, *sub);
    if (!splits(*n)) {
      nodes.push_back(std::move(n));
      continue;
    }
    nodes.push_back(half(*n, 0));
    nodes.push_back(half(*n, 1));
    changed = true;
  }
  g.nodes = std::move(nodes);
  if (!changed) return;
  ntg::link(task, g);
}

// Numbers g, its nodes and the graphs nested in them: a graph before its
// nodes, a node before its graphs, and each flattened `if`'s second half
// and the halves' empty branches after both branches, as they were made
// when flattening was part of building the graphs.
void number(Graph &g, ntg::Program &p) {
  g.id = p.num_graphs++;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node &n = *g.nodes[i];
    n.id = p.num_nodes++;
    if (!n.flattened) {
      for (auto &sub : n.graphs) number(*sub, p);
      continue;
    }
    Node &second = *g.nodes[++i];
    number(*n.graphs[0], p);
    number(*second.graphs[1], p);
    n.graphs[1]->id = p.num_graphs++;
    second.id = p.num_nodes++;
    second.graphs[0]->id = p.num_graphs++;
  }
}

}  // namespace

void split_ifs(ntg::Program &graphs) {
  for (ntg::TaskGraph &t : graphs.tasks) split(*t.task, *t.body);
  graphs.num_nodes = graphs.num_graphs = 0;
  for (ntg::TaskGraph &t : graphs.tasks) number(*t.body, graphs);
}

}  // namespace kite::flatten
