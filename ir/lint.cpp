// -Wunordered-read: reads of an array that an earlier call of the graph may write.
#include "ir/lint.h"

#include <fmt/format.h>

#include <set>

namespace kite {

using namespace ast;

namespace {

using anf::Stmt;
using anf::StmtKind;

const Expr *call_of(const Stmt &s) {
  return s.kind == StmtKind::Call ? s.expr.get() : nullptr;
}

bool is_array(const VarDecl *v) { return v && v->type && v->type->forced()->kind == TypeKind::Array; }

// The arrays node n (its nested graphs included) gives to task calls that
// may write them, each with the call's statement.
void given(const ntg::Node &n, const std::set<const VarDecl *> &written,
           std::vector<std::pair<const VarDecl *, const Stmt *>> &out) {
  if (n.spawns)
    if (const Expr *call = call_of(*n.stmt)) {
      const Expr &callee = *call->children[0];
      const TaskDecl *task = callee.kind == ExprKind::Name ? callee.task : nullptr;
      for (size_t i = 1; i < call->children.size(); ++i) {
        const Expr &a = *call->children[i];
        if (a.kind != ExprKind::Name || !is_array(a.var)) continue;
        bool writes = !task || i - 1 >= task->param_vars.size() ||
                      written.count(task->param_vars[i - 1]);
        if (writes) out.push_back({a.var, n.stmt});
      }
    }
  for (auto &g : n.graphs)
    for (auto &m : g->nodes) given(*m, written, out);
}

const Expr *read_in(const Expr &e, const VarDecl *v) {
  const Expr *first = nullptr;
  ast::for_each_expr(e, [&](const Expr &x) {
    if (!first && x.kind == ExprKind::Name && x.var == v) first = &x;
  });
  return first;
}

// Where node n reads v, or null: itself, or by giving it to a call that
// only reads it (a call that writes it too is meant to run beside the
// other, as calls working on parts of one array do).
const Expr *read_by(const ntg::Node &n, const VarDecl *v, const std::set<const VarDecl *> &written) {
  const Stmt &s = *n.stmt;
  if (n.kind == ntg::NodeKind::Stmt) {
    if (const Expr *call = n.spawns ? call_of(s) : nullptr) {
      const Expr &callee = *call->children[0];
      const TaskDecl *task = callee.kind == ExprKind::Name ? callee.task : nullptr;
      for (size_t i = 1; i < call->children.size(); ++i) {
        const Expr &a = *call->children[i];
        if (a.kind == ExprKind::Name) {
          bool reads_only = task && i - 1 < task->param_vars.size() &&
                            !written.count(task->param_vars[i - 1]);
          if (a.var == v && reads_only) return &a;
          continue;
        }
        if (const Expr *r = read_in(a, v)) return r;
      }
      return nullptr;
    }
    return s.expr ? read_in(*s.expr, v) : nullptr;
  }
  if (n.kind != ntg::NodeKind::Then && s.expr)
    if (const Expr *r = read_in(*s.expr, v)) return r;
  for (auto &g : n.graphs)
    for (auto &m : g->nodes)
      if (const Expr *r = read_by(*m, v, written)) return r;
  return nullptr;
}

class Unordered {
 public:
  Unordered(const std::set<const VarDecl *> &written, Diagnostics &diags)
      : written_(written), diags_(diags) {}

  void graph(const ntg::Graph &g) {
    size_t n = g.nodes.size();
    // reach[i]: the nodes that wait for node i, directly or not.
    std::vector<std::set<int>> reach(n);
    for (size_t i = n; i-- > 0;)
      for (auto [from, to] : g.edges)
        if (from == int(i)) {
          reach[i].insert(to);
          reach[i].insert(reach[to].begin(), reach[to].end());
        }
    for (size_t i = 0; i < n; ++i) {
      std::vector<std::pair<const VarDecl *, const Stmt *>> arrays;
      given(*g.nodes[i], written_, arrays);
      for (auto [v, call] : arrays)
        for (size_t j = i + 1; j < n; ++j) {
          if (reach[i].count(int(j))) continue;
          // The two halves of a flattened `if`: one branch each, never both.
          if (g.nodes[i]->flattened && g.nodes[j]->flattened && g.nodes[i]->stmt == g.nodes[j]->stmt)
            continue;
          const Expr *r = read_by(*g.nodes[j], v, written_);
          if (!r || !warned_.insert({call, v}).second) continue;  // the first read only
          const Expr &callee = *call_of(*call)->children[0];
          std::string name = callee.kind == ExprKind::Name ? "'" + callee.text + "'" : "a task";
          if (diags_.warning(r->loc, Warning::UnorderedRead,
                             fmt::format("'{}' is read here without waiting for the call of {} on "
                                         "line {}, which was given '{}'",
                                         v->name, name, call->loc.line, v->name)))
            diags_.note(call->loc,
                        fmt::format("to read '{}' after this call is done, join the two with "
                                    "'then': '{} then ...'",
                                    v->name, callee.kind == ExprKind::Name ? callee.text + "(...)" : "call"));
        }
    }
    for (auto &node : g.nodes)
      for (auto &sub : node->graphs) graph(*sub);
  }

 private:
  const std::set<const VarDecl *> &written_;
  Diagnostics &diags_;
  std::set<std::pair<const Stmt *, const VarDecl *>> warned_;
};

}  // namespace

void warn_unordered_reads(const ntg::Program &program, const std::set<const VarDecl *> &written,
                          Diagnostics &diags) {
  Unordered u(written, diags);
  for (auto &tg : program.tasks)
    if (tg.task->decl->loc.file == 0) u.graph(*tg.body);
}

}  // namespace kite
