// Direct maps: the maps whose calls store their results straight into the element.
#include "ir/direct_maps.h"

#include <algorithm>

namespace kite::direct_maps {

namespace {

class Scan {
 public:
  explicit Scan(int elem) : elem_(elem) {}

  // Whether graph g of a map body is direct. `stores` counts the element
  // stores on g's longest path (at most 1 keeps every element written
  // once, by one call).
  bool graph(const ntg::Graph &g, int &stores) {
    stores = 0;
    std::set<int> has_successor;
    for (auto [from, to] : g.edges) has_successor.insert(from);
    auto touches = [&](const ntg::Dep &d) {
      for (int v : d.x)
        if (targets_.count(v) || v == elem_) return true;
      for (int v : d.y)
        if (targets_.count(v) || v == elem_) return true;
      return false;
    };
    std::set<int> local_targets;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const ntg::Node &n = *g.nodes[i];
      const anf::Stmt &st = *n.stmt;
      if (n.kind == ntg::NodeKind::Stmt && n.spawns) {
        if (n.tail_call) return false;
        if (st.target) {
          int t = st.target->var->id;
          if (targets_.count(t) || t == elem_) return false;
          // The arguments may not read an earlier call's result.
          for (int v : n.dep.x)
            if (targets_.count(v) || v == elem_) return false;
          targets_.insert(t);
          local_targets.insert(t);
          spawn_of_target_[t] = n.id;
        } else if (touches(n.dep)) {
          return false;
        }
        continue;
      }
      if (n.kind == ntg::NodeKind::Stmt && st.kind == anf::StmtKind::Set &&
          st.target->kind == ast::ExprKind::Name && st.target->var && st.target->var->id == elem_ &&
          st.expr->kind == ast::ExprKind::Name && st.expr->var &&
          local_targets.count(st.expr->var->id)) {
        // `c <- t`: done by t's call when its result arrives.
        int call = spawn_of_target_[st.expr->var->id];
        if (plan.store_of.count(call) || has_successor.count(int(i))) return false;
        plan.store_of[call] = n.stmt;
        plan.stores.insert(n.id);
        stores += 1;
        continue;
      }
      if (n.kind == ntg::NodeKind::If || n.kind == ntg::NodeKind::Case) {
        // The condition may not read a call's result or the element; the
        // branches are direct themselves.
        if (st.expr && mentions(*st.expr)) return false;
        int most = 0;
        for (auto &sub : n.graphs) {
          int sub_stores = 0;
          if (!graph(*sub, sub_stores)) return false;
          most = std::max(most, sub_stores);
        }
        stores += most;
        continue;
      }
      // Anything else runs inline and may not touch a result or the element.
      if (n.parallel() || touches(n.dep)) return false;
    }
    // Every call's result must be stored (or be dropped by an expression
    // statement), and nothing may wait for a call.
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const ntg::Node &n = *g.nodes[i];
      if (!n.spawns) continue;
      if (has_successor.count(int(i))) {
        for (auto [from, to] : g.edges)
          if (from == int(i) &&
              !(g.nodes[to]->stmt->kind == anf::StmtKind::Set && plan.store_of.count(n.id) &&
                plan.store_of.at(n.id) == g.nodes[to]->stmt))
            return false;
      }
      if (n.stmt->target && !plan.store_of.count(n.id)) return false;
    }
    for (int t : local_targets) targets_.erase(t);
    return true;
  }

  ntg::DirectMap plan;

 private:
  bool mentions(const ast::Expr &e) const {
    bool found = false;
    ast::for_each_expr(e, [&](const ast::Expr &x) {
      found = found || (x.var && (x.var->id == elem_ || targets_.count(x.var->id)));
    });
    return found;
  }

  int elem_;                            // the element's id, or -1
  std::set<int> targets_;               // the calls' temporaries, in scope
  std::map<int, int> spawn_of_target_;  // temporary -> the node of its call
};

bool assigns(const ntg::Graph &g, int var) {
  bool found = false;
  ntg::for_each_node(g, [&](const ntg::Node &n) {
    const anf::Stmt &st = *n.stmt;
    found = found || (st.target && st.target->kind == ast::ExprKind::Name && st.target->var &&
                      st.target->var->id == var);
  });
  return found;
}

// Whether `map`, a Map node of the graphs of a program with `num_nodes`
// nodes, is direct; if so, its plan.
bool direct(const ntg::Node &map, size_t num_nodes, ntg::DirectMap &plan) {
  const ntg::Graph &g = *map.graphs[0];
  const anf::Stmt &st = *map.stmt;
  if (g.dep.arrow == ntg::Arrow::Seq) return false;  // no calls: a chunked map
  // A call's link holds its node and its iteration's place in the chunk.
  if (num_nodes >= (size_t(1) << 24)) return false;
  TypeKind coll = st.coll_var->type->kind;
  if (coll != TypeKind::Array && coll != TypeKind::Range) return false;
  // A body that never assigns its element may read it anywhere: no call's
  // result is on its way there.
  int elem = coll == TypeKind::Array && assigns(g, st.elem_var->id) ? st.elem_var->id : -1;
  Scan scan(elem);
  int stores = 0;
  if (!scan.graph(g, stores) || stores > 1) return false;
  plan = std::move(scan.plan);
  return true;
}

}  // namespace

void find(ntg::Program &graphs) {
  for (const ntg::TaskGraph &t : graphs.tasks) {
    ntg::for_each_node(*t.body, [&](const ntg::Node &n) {
      ntg::DirectMap plan;
      if (n.kind == ntg::NodeKind::Map && direct(n, size_t(graphs.num_nodes), plan))
        graphs.direct_maps[n.id] = std::move(plan);
    });
  }
}

}  // namespace kite::direct_maps
