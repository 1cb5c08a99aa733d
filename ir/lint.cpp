// -Wunordered-read: reads of an array that an earlier call of the graph may write.
#include "ir/lint.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <utility>

#include "ir/effects.h"

namespace kite {

using namespace ast;

namespace {

using anf::Stmt;
using anf::StmtKind;

const Expr *call_of(const Stmt &s) { return s.kind == StmtKind::Call ? s.expr.get() : nullptr; }

// A variable naming a heap value (effects::heap_value), which a call given
// it, or a second name, reaches too.
bool is_heap(const VarDecl *v) { return v && v->type && effects::heap_value(*v->type); }

const char *kind_name(const VarDecl *v) {
  switch (v->type->forced()->kind) {
    case TypeKind::Struct:
      return "struct";
    case TypeKind::Union:
      return "union";
    case TypeKind::Tuple:
      return "tuple";
    case TypeKind::Array:
    // Only heap values have second names; the rest never get here.
    case TypeKind::Int:
    case TypeKind::Long:
    case TypeKind::Float:
    case TypeKind::Double:
    case TypeKind::Bool:
    case TypeKind::Unit:
    case TypeKind::String:
    case TypeKind::Future:
    case TypeKind::Task:
    case TypeKind::Range:
      return "array";
  }
  return "array";
}

// The heap values node n (its nested graphs included) gives to task calls that
// may write them, each with the call's statement. `written`, here and
// below, is what the program writes through, and which fields
// (effects::written_through).
void given(const ntg::Node &n, const effects::Written &written,
           std::vector<std::pair<const VarDecl *, const Stmt *>> &out) {
  if (n.spawns)
    if (const Expr *call = call_of(*n.stmt)) {
      const Expr &callee = *call->children[0];
      const TaskDecl *task = callee.kind == ExprKind::Name ? callee.task : nullptr;
      for (size_t i = 1; i < call->children.size(); ++i) {
        const Expr &a = *call->children[i];
        if (a.kind != ExprKind::Name || !is_heap(a.var)) continue;
        bool writes =
            !task || i - 1 >= task->param_vars.size() || written.count(task->param_vars[i - 1]);
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
// other, as calls working on parts of one array do; with `any_call`, any
// call given v counts).
const Expr *read_by(const ntg::Node &n, const VarDecl *v, const effects::Written &written,
                    bool any_call = false) {
  const Stmt &s = *n.stmt;
  if (n.kind == ntg::NodeKind::Stmt) {
    if (const Expr *call = n.spawns ? call_of(s) : nullptr) {
      const Expr &callee = *call->children[0];
      const TaskDecl *task = callee.kind == ExprKind::Name ? callee.task : nullptr;
      for (size_t i = 1; i < call->children.size(); ++i) {
        const Expr &a = *call->children[i];
        if (a.kind == ExprKind::Name) {
          bool reads_only =
              task && i - 1 < task->param_vars.size() && !written.count(task->param_vars[i - 1]);
          if (a.var == v && (reads_only || any_call)) return &a;
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
      if (const Expr *r = read_by(*m, v, written, any_call)) return r;
  return nullptr;
}

// Whether node n (its nested graphs included) declares v.
bool declares(const ntg::Node &n, const VarDecl *v) {
  bool found = false;
  auto look = [&](const ntg::Node &m) {
    for (const VarDecl *d : m.stmt->vars) found = found || d == v;
  };
  look(n);
  for (auto &g : n.graphs) ntg::for_each_node(*g, look);
  return found;
}

// How to join statement s and what follows with `then`, for a note.
std::string then_text(const Stmt &s) {
  if (s.kind == StmtKind::Call) {
    const Expr &callee = *s.expr->children[0];
    return (callee.kind == ExprKind::Name ? callee.text + "(...)" : "call") + " then ...";
  }
  if (s.kind == StmtKind::Then) return "{ ... } then ...";
  std::string head = anf::to_kite(s);
  bool block = s.kind == StmtKind::If || s.kind == StmtKind::Case || s.kind == StmtKind::For ||
               s.kind == StmtKind::Map || s.kind == StmtKind::While;
  return head + (block ? " { ... }" : "") + " then ...";
}

// The fields of struct (or tuple) v that the expressions and, with
// `targets`, the assignment targets of node n reach, -1 for the whole value
// (v named other than as `v.f`: given to a call, printed, copied). A
// target reaches the field its first access of v selects (effects::reach:
// f for `v.f <- e` and `v.f[i] <- e`); assigning v as a whole reaches none.
void fields_of(const ntg::Node &n, const VarDecl *v, bool targets, std::set<int> &out) {
  auto scan = [&](const Expr &e) {
    std::set<const Expr *> under_field;
    ast::for_each_expr(e, [&](const Expr &x) {
      if (x.kind == ExprKind::Field && x.children[0]->kind == ExprKind::Name &&
          x.children[0]->var == v) {
        out.insert(x.field);
        under_field.insert(x.children[0].get());
      } else if (x.kind == ExprKind::Name && x.var == v && !under_field.count(&x)) {
        out.insert(-1);
      }
    });
  };
  auto look = [&](const ntg::Node &m) {
    const Stmt &s = *m.stmt;
    if (s.kind == StmtKind::Then) return;
    if (s.expr) scan(*s.expr);
    if (targets && s.target)
      if (effects::Reach r = effects::reach(*s.target); r.var == v && !r.whole) out.insert(r.field);
  };
  look(n);
  for (auto &g : n.graphs) ntg::for_each_node(*g, look);
}

bool meet(const std::set<int> &a, const std::set<int> &b) {
  if (a.count(-1) && !b.empty()) return true;
  if (b.count(-1) && !a.empty()) return true;
  for (int f : a)
    if (b.count(f)) return true;
  return false;
}

bool has_fields(const VarDecl *v) {
  TypeKind k = v->type->forced()->kind;
  return k == TypeKind::Struct || k == TypeKind::Tuple;
}

// Second names of heap values: `b = a` makes b name a's array (struct,
// union, tuple) for as long as neither is assigned as a whole; here, for a
// task whose statements assign neither so, everywhere in the task.
class SecondNames : public anf::Visitor {
 public:
  explicit SecondNames(const anf::Task &task) {
    visit(task.body);
    for (auto [b, a] : pairs_)
      if (!assigned_.count(b) && !assigned_.count(a)) join(b, a);
    for (auto &[u, r] : root_) names_[find(u)].push_back(u);
  }

  // The names of v's value other than v (none unless it has a second name).
  std::vector<const VarDecl *> others(const VarDecl *v) const {
    std::vector<const VarDecl *> out;
    auto at = root_.find(v);
    if (at == root_.end()) return out;
    for (const VarDecl *u : names_.at(at->second))
      if (u != v) out.push_back(u);
    return out;
  }
  bool has_others(const VarDecl *v) const { return root_.count(v) > 0; }

  // `b = a` for a second name b, or null.
  const Stmt *declaration(const VarDecl *b) const {
    auto at = let_.find(b);
    return at == let_.end() || !root_.count(b) ? nullptr : at->second;
  }

 private:
  using Visitor::visit;
  void visit(const Stmt &s) override {
    if (s.kind == StmtKind::Let && s.vars.size() == 1 && s.expr && s.expr->kind == ExprKind::Name &&
        is_heap(s.expr->var) && is_heap(s.vars[0])) {
      pairs_.push_back({s.vars[0], s.expr->var});
      let_[s.vars[0]] = &s;
    }
    if ((s.kind == StmtKind::Set || s.kind == StmtKind::Call) && s.target &&
        s.target->kind == ExprKind::Name && s.target->var)
      assigned_.insert(s.target->var);
    Visitor::visit(s);
  }

  void join(const VarDecl *a, const VarDecl *b) {
    root_.emplace(a, a);
    root_.emplace(b, b);
    root_[find(a)] = find(b);
  }
  // The representative of v's names; the names it passes on the way point
  // at it afterwards (a chain `b = a; c = b; ...` stays short).
  const VarDecl *find(const VarDecl *v) {
    const VarDecl *r = v;
    while (root_.at(r) != r) r = root_.at(r);
    while (v != r) v = std::exchange(root_[v], r);
    return r;
  }

  std::vector<std::pair<const VarDecl *, const VarDecl *>> pairs_;
  std::map<const VarDecl *, const Stmt *> let_;
  std::set<const VarDecl *> assigned_;
  // After the constructor, each name's representative, and its names.
  std::map<const VarDecl *, const VarDecl *> root_;
  std::map<const VarDecl *, std::vector<const VarDecl *>> names_;
};

class Unordered {
 public:
  Unordered(const effects::Written &written, Diagnostics &diags)
      : written_(written), diags_(diags) {}

  void task(const ntg::TaskGraph &tg) {
    task_ = tg.task;
    SecondNames names(*tg.task);
    names_ = &names;
    graph(*tg.body);
    names_ = nullptr;
  }

 private:
  // What the checks need of a node, found once per graph.
  struct Facts {
    std::vector<std::pair<const VarDecl *, const Stmt *>> given;  // given() above
    std::set<int> writes;                                         // writes() below
    std::set<int> named;  // the variables it names anywhere, and those it writes
  };

  // The checks look at the pairs of nodes i < j of g that no path of edges
  // orders, in the order of i, then of j. Each warning is given once, for a
  // call or statement of node i and a name, at the first such j that
  // reaches the value: so only the nodes i that give a heap value to a call,
  // write through a name with a second one or name such a value start
  // pairs, and each of them visits, in order, only the nodes j that name
  // one of its values, and only until its warning for that name is given.
  // Whether a path of edges orders i and j is a bit of a bitset: for each
  // node, those of the nodes i (kBatch at a time) that reach it. The time
  // is that of the nodes and edges times the nodes i over 64, plus the
  // pairs visited: nodes j that a path orders after i, or whose access the
  // check excuses (a field i's call does not write), do not end the walk.
  void graph(const ntg::Graph &g) {
    size_t n = g.nodes.size();
    std::vector<Facts> facts(n);
    std::map<int, std::vector<int>> naming;  // variable -> the nodes naming it, in order
    std::vector<int> firsts;
    for (size_t i = 0; i < n; ++i) {
      const ntg::Node &node = *g.nodes[i];
      Facts &f = facts[i];
      given(node, written_, f.given);
      f.writes = writes(node);
      f.named = f.writes;
      auto names = [&](const ntg::Node &m) {
        auto look = [&](const Expr &x) {
          if (x.kind == ExprKind::Name && x.var) f.named.insert(x.var->id);
        };
        if (m.stmt->expr) ast::for_each_expr(*m.stmt->expr, look);
        if (m.stmt->target) ast::for_each_expr(*m.stmt->target, look);
      };
      names(node);
      for (auto &sub : node.graphs) ntg::for_each_node(*sub, names);
      for (int v : f.named) naming[v].push_back(int(i));
      bool first = !f.given.empty() || !f.writes.empty();
      for (int v : f.named) first = first || names_->has_others(task_->vars[size_t(v)]);
      if (first) firsts.push_back(int(i));
    }
    std::vector<std::vector<int>> preds(n);
    if (!firsts.empty())
      for (auto [from, to] : g.edges) preds[size_t(to)].push_back(from);
    for (size_t batch = 0; batch < firsts.size(); batch += kBatch) {
      size_t count = std::min(kBatch, firsts.size() - batch);
      size_t start = size_t(firsts[batch]);
      // reached[j * kWords + k / 64], bit k % 64: node firsts[batch + k] reaches node j.
      std::vector<uint64_t> reached(n * kWords, 0);
      std::vector<int> bit(n, -1);
      for (size_t k = 0; k < count; ++k) bit[size_t(firsts[batch + k])] = int(k);
      for (size_t j = start + 1; j < n; ++j)
        for (int p : preds[j]) {
          if (size_t(p) < start) continue;
          uint64_t *row = &reached[j * kWords];
          const uint64_t *from = &reached[size_t(p) * kWords];
          for (size_t w = 0; w < kWords; ++w) row[w] |= from[w];
          if (int b = bit[size_t(p)]; b >= 0) row[b / 64] |= uint64_t(1) << (b % 64);
        }
      for (size_t k = 0; k < count; ++k) {
        auto ordered = [&](int j) {
          return (reached[size_t(j) * kWords + k / 64] >> (k % 64)) & 1;
        };
        pairs_from(g, firsts[batch + k], facts, naming, ordered);
      }
    }
    for (auto &node : g.nodes)
      for (auto &sub : node->graphs) graph(*sub);
  }

  // The pairs (i, j) for the node i of g, in the order of j (graph above).
  void pairs_from(const ntg::Graph &g, int i, const std::vector<Facts> &facts,
                  const std::map<int, std::vector<int>> &naming,
                  const std::function<bool(int)> &ordered) {
    const ntg::Node &first = *g.nodes[size_t(i)];
    const Facts &f = facts[size_t(i)];
    // One walk per warning node i may give: its key in warned_ and the
    // nodes that name the value, the next of them at `at`.
    struct Walk {
      std::pair<const Stmt *, const VarDecl *> key;
      const std::vector<int> *nodes;
      size_t at;
    };
    std::vector<Walk> walks;
    auto walk = [&](const Stmt *stmt, const VarDecl *u) {
      if (warned_.count({stmt, u})) return;
      auto at = naming.find(u->id);
      if (at == naming.end()) return;
      const std::vector<int> &nodes = at->second;
      size_t next = size_t(std::upper_bound(nodes.begin(), nodes.end(), i) - nodes.begin());
      if (next < nodes.size()) walks.push_back({{stmt, u}, &nodes, next});
    };
    for (auto [v, call] : f.given) {  // after_call
      walk(call, v);
      for (const VarDecl *u : names_->others(v)) walk(call, u);
    }
    for (int id : f.writes)  // second_names, `first` writing
      for (const VarDecl *u : names_->others(task_->vars[size_t(id)])) walk(first.stmt, u);
    for (int id : f.named)  // second_names, `later` writing
      for (const VarDecl *v : names_->others(task_->vars[size_t(id)])) walk(first.stmt, v);
    using Next = std::pair<int, size_t>;  // (node j, walk)
    std::priority_queue<Next, std::vector<Next>, std::greater<Next>> queue;
    for (size_t w = 0; w < walks.size(); ++w) queue.push({(*walks[w].nodes)[walks[w].at], w});
    std::vector<size_t> moved;
    while (!queue.empty()) {
      int j = queue.top().first;
      moved.clear();
      while (!queue.empty() && queue.top().first == j) {
        moved.push_back(queue.top().second);
        queue.pop();
      }
      const ntg::Node &later = *g.nodes[size_t(j)];
      // The two halves of a flattened `if`: one branch each, never both.
      bool twins = first.flattened && later.flattened && first.stmt == later.stmt;
      if (!twins && !ordered(j)) {
        after_call(first, f, later);
        second_names(first, f, later, facts[size_t(j)]);
      }
      for (size_t w : moved) {
        Walk &m = walks[w];
        if (warned_.count(m.key) || ++m.at == m.nodes->size()) continue;
        queue.push({(*m.nodes)[m.at], w});
      }
    }
  }

  static constexpr size_t kWords = 16, kBatch = kWords * 64;

  // A heap value that node `first` gives to a call that may write it, read
  // by `later` (through its name or a second one) with nothing making it
  // wait for `first`.
  void after_call(const ntg::Node &first, const Facts &first_facts, const ntg::Node &later) {
    for (auto [v, call] : first_facts.given) {
      std::vector<const VarDecl *> names = names_->others(v);
      names.insert(names.begin(), v);
      for (const VarDecl *u : names) {
        const Expr *r = read_by(later, u, written_);
        if (!r || !touches(later, u, written_by(*call, v), false)) continue;
        if (!warned_.insert({call, u}).second) continue;  // the first read only
        const Expr &callee = *call_of(*call)->children[0];
        std::string name = callee.kind == ExprKind::Name ? "'" + callee.text + "'" : "a task";
        std::string same = u == v ? "" : same_value(u, v);
        if (diags_.warning(r->loc, Warning::UnorderedRead,
                           fmt::format("'{}' is read here without waiting for the call of {} on "
                                       "line {}, which was given '{}'{}",
                                       u->name, name, call->loc.line, v->name, same)))
          note(first, *call, u, "read");
      }
    }
  }

  // Two statements that reach one heap value through two names, one
  // writing it (`b[i] <- e`, `b.f <- e`, a loop's element, an atomic), the
  // other reading it, writing it or giving it to a call, with no order
  // between them: the write determines only the name it is made through.
  void second_names(const ntg::Node &first, const Facts &first_facts, const ntg::Node &later,
                    const Facts &later_facts) {
    for (int id : first_facts.writes) {
      const VarDecl *v = task_->vars[size_t(id)];
      std::set<int> fields;
      if (has_fields(v)) fields_of(first, v, true, fields);
      for (const VarDecl *u : names_->others(v)) {
        const Expr *at = read_by(later, u, written_, true);
        if (!at && later_facts.writes.count(u->id)) at = target_of(later);
        if (!at || (has_fields(v) && !touches(later, u, fields, true))) continue;
        warn_second(later, at, u, first, v, "written");
      }
    }
    for (int id : later_facts.writes) {
      const VarDecl *v = task_->vars[size_t(id)];
      std::set<int> fields;
      if (has_fields(v)) fields_of(later, v, true, fields);
      for (const VarDecl *u : names_->others(v))
        if (read_by(first, u, written_, true) &&
            (!has_fields(v) || touches(first, u, fields, false)))
          warn_second(later, target_of(later), v, first, u, "read");
    }
  }

  // The fields of v (a struct or tuple) that call writes, -1 for any: what
  // the task writes of the parameter it is given v as (written_), any for
  // a task value.
  std::set<int> written_by(const Stmt &call, const VarDecl *v) const {
    std::set<int> out;
    if (!has_fields(v)) return {-1};
    const Expr &callee = *call.expr->children[0];
    const TaskDecl *task = callee.kind == ExprKind::Name ? callee.task : nullptr;
    for (size_t i = 1; i < call.expr->children.size(); ++i) {
      const Expr &a = *call.expr->children[i];
      if (a.kind != ExprKind::Name || a.var != v) continue;
      if (!task || i - 1 >= task->param_vars.size()) {
        out.insert(-1);
      } else if (auto at = written_.find(task->param_vars[i - 1]); at != written_.end()) {
        out.insert(at->second.begin(), at->second.end());
      }
    }
    return out;
  }

  // Whether node n reaches (with `targets`, reaches or assigns) one of
  // `fields` of u: always for a value without fields.
  bool touches(const ntg::Node &n, const VarDecl *u, const std::set<int> &fields,
               bool targets) const {
    if (!has_fields(u)) return true;
    std::set<int> used;
    fields_of(n, u, targets, used);
    return meet(used, fields);
  }

  // Warns at `at` in `later`, which reaches `u`'s value, that it does not
  // wait for `first`, which `what` ("read" or "written") it through `v`.
  void warn_second(const ntg::Node &later, const Expr *at, const VarDecl *u, const ntg::Node &first,
                   const VarDecl *v, const char *what) {
    if (!warned_.insert({first.stmt, u}).second) return;
    SourceLoc loc = at ? at->loc : later.stmt->loc;
    bool writes_u = writes(later).count(u->id) && !read_by(later, u, written_, true);
    if (diags_.warning(
            loc, Warning::UnorderedRead,
            fmt::format("'{}' is {} here without waiting for line {}, where '{}' is {}{}", u->name,
                        writes_u ? "written" : "read", first.stmt->loc.line, v->name, what,
                        same_value(u, v))))
      note(first, *first.stmt, u, writes_u ? "write" : "read");
  }

  void note(const ntg::Node &first, const Stmt &call, const VarDecl *u, const char *what) {
    // A call inside a loop or a branch: `then` joins the statement that holds it.
    const Stmt &joined = call.kind == StmtKind::Call && &call == first.stmt ? call : *first.stmt;
    diags_.note(
        joined.loc,
        fmt::format("to {} '{}' after this {} done, join the two with 'then': '{}'", what, u->name,
                    joined.kind == StmtKind::Call ? "call is" : "statement is", then_text(joined)));
  }

  // ", the same array as 'u' (b = a on line N)".
  std::string same_value(const VarDecl *u, const VarDecl *v) const {
    const Stmt *decl = names_->declaration(v) ? names_->declaration(v) : names_->declaration(u);
    return fmt::format(
        ", the same {} as '{}'{}", kind_name(u), u->name,
        decl ? fmt::format(" ('{}' on line {})", anf::to_kite(*decl), decl->loc.line) : "");
  }

  // The heap values node n writes through a name with a second one: what it
  // determines, a loop's element standing for its collection, less what it
  // declares.
  std::set<int> writes(const ntg::Node &n) const {
    std::set<int> out;
    auto add = [&](int id) {
      const VarDecl *v = task_->vars[size_t(id)];
      if (names_->has_others(v) && !declares(n, v)) out.insert(id);
    };
    for (int id : n.dep.y) {
      add(id);
      for (int c : effects::element_collections(*task_, id)) add(c);
    }
    return out;
  }

  // Where node n writes: its target, or null.
  static const Expr *target_of(const ntg::Node &n) { return n.stmt->target.get(); }

  const effects::Written &written_;
  Diagnostics &diags_;
  const anf::Task *task_ = nullptr;
  const SecondNames *names_ = nullptr;
  std::set<std::pair<const Stmt *, const VarDecl *>> warned_;
};

}  // namespace

void warn_unordered_reads(const ntg::Program &program, Diagnostics &diags) {
  if (!diags.enabled(Warning::UnorderedRead)) return;
  effects::Written written = effects::written_through(*program.anf);
  Unordered u(written, diags);
  for (auto &tg : program.tasks)
    if (tg.task->decl->loc.in_program()) u.task(tg);
}

}  // namespace kite
