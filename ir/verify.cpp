// Verifiers of the IRs' invariants, run after every pass.
#include "ir/verify.h"

#include <fmt/format.h>

#include <set>

#include "ir/anf.h"

namespace kite {

namespace {

void verify_graph(const ntg::Graph &g, std::set<int> &node_ids, Problems &problems) {
  if (g.ancestors != ntg::parallel_ancestors(g))
    problems.push_back(
        fmt::format("task graph g{}: its nodes' parallel ancestors are stale", g.id));
  for (auto [from, to] : g.edges)
    if (from >= to || to >= int(g.nodes.size()))
      problems.push_back(
          fmt::format("task graph g{}: edge {} -> {} is not forward", g.id, from, to));
  for (auto &n : g.nodes) {
    if (!node_ids.insert(n->id).second)
      problems.push_back(fmt::format("node n{} appears twice", n->id));
    for (auto &sub : n->graphs) verify_graph(*sub, node_ids, problems);
  }
}

std::string where(const ast::TaskDecl &t, SourceLoc loc) {
  return fmt::format("task {}, line {}:{}", t.name, loc.line, loc.col);
}

class CheckedVerifier : public ast::Visitor {
 public:
  CheckedVerifier(const ast::TaskDecl &t, Problems &problems) : task_(t), problems_(problems) {}
  using Visitor::visit;
  void visit(const ast::Expr &e) override {
    if (!e.type && !(e.kind == ast::ExprKind::Name && e.builtin >= 0))
      problems_.push_back("checked AST: an expression without a type at " + where(task_, e.loc));
    else if (e.kind == ast::ExprKind::Name && !e.var && !e.global && !e.task && e.builtin < 0)
      problems_.push_back("checked AST: the name '" + e.text + "' is unresolved at " +
                          where(task_, e.loc));
    Visitor::visit(e);
  }

 private:
  const ast::TaskDecl &task_;
  Problems &problems_;
};

class AnfVerifier : public anf::Visitor {
 public:
  AnfVerifier(const anf::Task &t, Problems &problems) : task_(t), problems_(problems) {}
  using anf::Visitor::visit;
  void visit(const anf::Stmt &s) override {
    using anf::StmtKind;
    for (const ast::VarDecl *v : anf::bound_vars(s)) known(v, s.loc);
    if (s.kind == StmtKind::Call) {
      if (!ast::is_task_call(*s.expr))
        problems_.push_back("ANF: a call statement that calls no task at " + where(s.loc));
      for (size_t i = 0; i < s.expr->children.size(); ++i) no_call(*s.expr->children[i]);
      // A variable not in the table is reported as such (known), and has
      // no entry to say whether it is a loop's element.
      if (s.target && (s.target->kind != ast::ExprKind::Name || !s.target->var ||
                       (in_table(s.target->var) && task_.element_of(s.target->var))))
        problems_.push_back("ANF: a call's result goes to something other than a variable at " +
                            where(s.loc));
    } else if (s.expr) {
      no_call(*s.expr);
    }
    if (s.kind == StmtKind::Let && s.vars.empty())
      problems_.push_back("ANF: a declaration of nothing at " + where(s.loc));
    if (s.target) no_call(*s.target);
    anf::Visitor::visit(s);
  }
  void visit(const ast::Expr &e) override {
    if (e.kind == ast::ExprKind::Name && e.var) known(e.var, e.loc);
    anf::Visitor::visit(e);
  }

 private:
  std::string where(SourceLoc loc) const { return kite::where(*task_.decl, loc); }
  void no_call(const ast::Expr &e) {
    if (ast::contains_task_call(e))
      problems_.push_back("ANF: a task call inside an expression at " + where(e.loc));
  }
  // Every variable is in the task's table, under its id.
  bool in_table(const ast::VarDecl *v) const {
    return v->id >= 0 && size_t(v->id) < task_.vars.size() && task_.vars[size_t(v->id)] == v;
  }
  void known(const ast::VarDecl *v, SourceLoc loc) {
    if (!in_table(v))
      problems_.push_back("ANF: the variable '" + v->name + "' is not in its task's table at " +
                          where(loc));
  }
  const anf::Task &task_;
  Problems &problems_;
};

}  // namespace

Problems verify_checked(const ast::Program &program) {
  Problems problems;
  for (auto &t : program.tasks) CheckedVerifier(*t, problems).visit(t->body);
  return problems;
}

Problems verify(const anf::Program &program) {
  Problems problems;
  for (const anf::Task &t : program.tasks) AnfVerifier(t, problems).visit(t.body);
  return problems;
}

Problems verify(const ntg::Program &graphs) {
  Problems problems;
  std::set<int> node_ids;
  for (auto &t : graphs.tasks) verify_graph(*t.body, node_ids, problems);
  return problems;
}

Problems verify(const cps::Program &p) {
  Problems problems;
  std::vector<int> signals(p.blocks.size(), 0);
  for (const cps::Block &b : p.blocks)
    for (int n : b.notify) signals[n] += 1;
  std::vector<int> parallel_nodes(p.graphs.size(), 0);
  for (const cps::NodeInfo &n : p.nodes) {
    if (n.graph < 0) {
      if (!n.notify.empty()) problems.push_back("a detached call is waited for");
      continue;
    }
    if (n.implied && n.notify.empty()) problems.push_back("an implied node notifies no block");
    parallel_nodes[n.graph] += !n.implied;
    for (int b : n.notify) signals[b] += 1;
  }
  for (const cps::Block &b : p.blocks) {
    if (b.is_entry || b.kind != cps::BlockKind::Normal) continue;
    if (b.code < 0 || (b.counter_slot < 0 && b.counter_init != 1))
      problems.push_back(fmt::format("continuation b{} has no code or counter", b.id));
    if (b.counter_init < 1 || signals[b.id] != b.counter_init)
      problems.push_back(fmt::format("continuation b{} waits for {} events but {} signal it", b.id,
                                     b.counter_init, signals[b.id]));
  }
  std::vector<int> implied_ends(p.graphs.size(), 0);
  for (const cps::Block &b : p.blocks) {
    if (!b.end_implied) continue;
    if (!b.notify.empty() || b.ops.empty() || b.ops.back().node < 0 ||
        p.nodes[b.ops.back().node].graph != b.graph)
      problems.push_back(fmt::format("block b{}'s end is implied by no event of its graph", b.id));
    implied_ends[b.graph] += 1;
  }
  for (const cps::Graph &g : p.graphs) {
    if (g.id < 0) continue;
    int expected = parallel_nodes[g.id] + int(g.blocks.size()) - implied_ends[g.id];
    if (expected < 1) problems.push_back(fmt::format("graph g{} waits for no event", g.id));
    if (g.outstanding_init != expected)
      problems.push_back(
          fmt::format("graph g{} waits for {} events, not {}", g.id, g.outstanding_init, expected));
  }
  for (const cps::Task &t : p.tasks)
    if (p.blocks[t.entry_block].code < 0) problems.push_back("a task entry without a code");
  for (const cps::Block &b : p.blocks)
    if ((b.kind != cps::BlockKind::Normal || b.starts_graph) && b.code < 0)
      problems.push_back(fmt::format("block b{} runs on its own but has no code", b.id));
  return problems;
}

}  // namespace kite
