// Nested task graphs: graph building and linking.
#include "ir/ntg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <unordered_map>

#include "frontend/builtins.h"
#include "ir/anf.h"
#include "ir/effects.h"

namespace kite::ntg {

using anf::Stmt;
using anf::StmtKind;
using anf::StmtList;
using ast::Expr;
using ast::ExprKind;

Dep operator+(const Dep &a, const Dep &b) {
  Dep d = a;
  d.x.insert(b.x.begin(), b.x.end());
  d.y.insert(b.y.begin(), b.y.end());
  d.arrow = std::max(a.arrow, b.arrow);
  return d;
}

Dep compose(const Dep &a, const Dep &b) {
  Dep d = a;
  for (int v : b.x)
    if (!a.y.count(v)) d.x.insert(v);
  d.y.insert(b.y.begin(), b.y.end());
  d.arrow = std::max(a.arrow, b.arrow);
  return d;
}

std::vector<int> Graph::preds(int node) const {
  std::vector<int> p;
  for (auto [from, to] : edges)
    if (to == node) p.push_back(from);
  return p;
}

std::vector<std::vector<int>> Graph::all_preds() const {
  std::vector<std::vector<int>> p(nodes.size());
  for (auto [from, to] : edges) p[size_t(to)].push_back(from);
  return p;
}

// --- Building graphs -------------------------------------------------------

void free_vars(const Expr &e, std::set<int> &out) {
  ast::for_each_expr(e, [&](const Expr &x) {
    if (x.kind == ExprKind::Name && x.var) out.insert(x.var->id);
  });
}

namespace {

// The variables that determine an assignment to `l` (Figure 7's flvs):
// those of its indices and of the values whose fields it selects.
void determining(const Expr &l, std::set<int> &out) {
  if (l.kind == ExprKind::Name) return;
  if (l.kind == ExprKind::Field) {
    free_vars(*l.children[0], out);
  } else if (l.kind == ExprKind::Index) {
    determining(*l.children[0], out);
    free_vars(*l.children[1], out);
  } else {
    // Any other expression determines nothing; reading it depends on its
    // free variables.
    free_vars(l, out);
  }
}

// Figure 7: the variables an assignment to `l` determines (the one it is
// reached through, effects::reached_through), and those that determine it.
std::pair<std::set<int>, std::set<int>> flvs(const Expr &l) {
  std::set<int> determined, determining_l;
  if (const ast::VarDecl *v = effects::reached_through(l)) determined.insert(v->id);
  determining(l, determining_l);
  return {determined, determining_l};
}

// What the atomic built-ins in `e` determine and what determines that:
// `atomic_add(a[i], v)` writes an element of a as `a[i] <- …` does.
void atomic_write(const Expr &e, std::set<int> &determined, std::set<int> &determining) {
  if (e.kind != ExprKind::Call || e.children.size() < 2) return;
  if (const BuiltinInfo *b = called_builtin(e); !b || !b->writes) return;
  auto [y, x] = flvs(*e.children[1]);
  determined.insert(y.begin(), y.end());
  determining.insert(x.begin(), x.end());
}

void atomic_writes(const Expr &e, std::set<int> &determined, std::set<int> &determining) {
  ast::for_each_expr(e, [&](const Expr &x) { atomic_write(x, determined, determining); });
}

// `vars` and, for each loop element among them, the variables its loop's
// collection is reached through (effects::element_collections). Writing the
// element writes the array and reading it reads the array, so the element
// orders with the statements that name the array, as `a[i]` does.
std::set<int> with_collections(const anf::Task &task, const std::set<int> &vars) {
  std::set<int> out = vars;
  for (int v : vars)
    for (int c : effects::element_collections(task, v)) out.insert(c);
  return out;
}

}  // namespace

void link(const anf::Task &task, Graph &g) {
  // Link (§3.3.3): from the nearest earlier node that determines each
  // variable in X, and from all earlier nodes that depend on a variable in Y.
  // Those that depend on v before the nearest node k that determines it
  // already come before k, so a node that waits for k (v in its X) needs
  // only the ones after k: the edges grow linearly with a chain of
  // statements that read and write one variable. Each variable's last
  // determining node and the nodes depending on it since are kept as the
  // nodes are visited.
  // A loop's element stands for its collection: a node that reads or
  // determines it reads or determines the variable the collection is
  // reached through as well (with_collections).
  std::vector<Dep> deps;
  for (auto &node : g.nodes)
    deps.push_back({with_collections(task, node->dep.x), with_collections(task, node->dep.y),
                    node->dep.arrow});
  g.edges.clear();
  std::map<int, int> last_writer;               // variable -> node
  std::map<int, std::vector<int>> readers;      // variable -> nodes since its last writer
  std::map<int, std::vector<int>> all_readers;  // variable -> nodes
  for (size_t j = 0; j < g.nodes.size(); ++j) {
    std::set<int> from;
    const Dep &d = deps[j];
    for (int v : d.x)
      if (auto w = last_writer.find(v); w != last_writer.end()) from.insert(w->second);
    for (int v : d.y) {
      if (d.x.count(v) || !last_writer.count(v)) {
        for (int i : readers[v]) from.insert(i);
      } else {
        for (int i : all_readers[v]) from.insert(i);
      }
    }
    for (int i : from) g.edges.push_back({i, int(j)});
    for (int v : d.x) {
      readers[v].push_back(int(j));
      all_readers[v].push_back(int(j));
    }
    for (int v : d.y) {
      last_writer[v] = int(j);
      readers[v].clear();
    }
  }
  // (11), composed in place: the set grows with the graph, and a copy
  // per node would take time quadratic in a long graph.
  g.dep = {};
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Dep &d = g.nodes[i]->dep;
    if (i == 0) {
      g.dep = d;
      continue;
    }
    for (int v : d.x)
      if (!g.dep.y.count(v)) g.dep.x.insert(v);
    g.dep.y.insert(d.y.begin(), d.y.end());
    g.dep.arrow = std::max(g.dep.arrow, d.arrow);
  }
  g.ancestors = parallel_ancestors(g);
}

namespace {

class Builder {
 public:
  explicit Builder(Program &p) : p_(p) {}

  TaskGraph build_task(const anf::Task &t) {
    task_ = &t;
    TaskGraph tg;
    tg.task = &t;
    tg.body = build_graph(t.body);
    return tg;
  }

 private:
  std::unique_ptr<Graph> build_graph(const StmtList &list) {
    auto g = std::make_unique<Graph>();
    g->id = p_.num_graphs++;
    for (auto &s : list) g->nodes.push_back(build_node(*s));
    link(*task_, *g);
    return g;
  }

  std::unique_ptr<Node> build_node(const Stmt &s) {
    auto n = std::make_unique<Node>();
    n->id = p_.num_nodes++;
    n->stmt = &s;
    Dep &d = n->dep;
    // (3), (4): what an assignment's target determines and what determines it.
    auto assigns = [&](const Expr &target) {
      auto [determined, determining] = flvs(target);
      d.y = determined;
      d.x = determined;
      d.x.insert(determining.begin(), determining.end());
    };
    switch (s.kind) {
      case StmtKind::Call:  // (2), and (3) for its target
        n->spawns = true;
        d.arrow = Arrow::Par;
        if (s.target) assigns(*s.target);
        for (size_t i = 0; i < s.expr->children.size(); ++i) free_vars(*s.expr->children[i], d.x);
        break;
      case StmtKind::Do:  // (6)
        free_vars(*s.expr, d.x);
        break;
      case StmtKind::Set:
        assigns(*s.target);
        free_vars(*s.expr, d.x);
        break;
      case StmtKind::Let:  // (5)
        if (s.expr) free_vars(*s.expr, d.x);
        for (ast::VarDecl *v : s.vars) d.y.insert(v->id);
        break;
      case StmtKind::Return:  // (6)
        if (s.expr) free_vars(*s.expr, d.x);
        break;
      case StmtKind::If: {  // (7)
        n->kind = NodeKind::If;
        n->graphs.push_back(build_graph(s.body));
        n->graphs.push_back(build_graph(s.else_body));
        free_vars(*s.expr, d.x);
        d = d + n->graphs[0]->dep + n->graphs[1]->dep;
        break;
      }
      case StmtKind::Case: {  // (8)
        n->kind = NodeKind::Case;
        free_vars(*s.expr, d.x);
        for (auto &b : s.branches) {
          n->graphs.push_back(build_graph(b.body));
          Dep bd = n->graphs.back()->dep;
          if (b.binder) bd.x.erase(b.binder->id);
          d = d + bd;
        }
        break;
      }
      case StmtKind::Then: {  // s2 after everything of s1: δ(g1) ; δ(g2)
        n->kind = NodeKind::Then;
        n->graphs.push_back(build_graph(s.body));
        n->graphs.push_back(build_graph(s.else_body));
        d = compose(n->graphs[0]->dep, n->graphs[1]->dep);
        break;
      }
      case StmtKind::For:    // (9)
      case StmtKind::Map: {  // (10)
        n->kind = s.kind == StmtKind::For ? NodeKind::For : NodeKind::Map;
        n->graphs.push_back(build_graph(s.body));
        Dep body = n->graphs[0]->dep;
        int elem = s.elem_var->id, index = s.index_var->id;
        body.x.erase(elem);
        body.x.erase(index);
        // Assigning the element assigns the collection: the loop determines
        // what the collection expression determines (Figure 7's flvs).
        if (body.y.erase(elem)) {
          auto [determined, determining] = flvs(*s.expr);
          body.y.insert(determined.begin(), determined.end());
        }
        body.y.erase(index);
        if (s.kind == StmtKind::Map) body.arrow = Arrow::Par;
        free_vars(*s.expr, d.x);
        d = d + body;
        break;
      }
      case StmtKind::While: {  // (9), with the condition read before every iteration
        n->kind = NodeKind::For;
        n->graphs.push_back(build_graph(s.body));
        free_vars(*s.expr, d.x);
        d = d + n->graphs[0]->dep;
        break;
      }
    }
    // A statement's atomics (in its expression, its condition, its
    // collection or its target) determine what they write, as (3) does.
    std::set<int> determined, determining;
    if (s.expr) atomic_writes(*s.expr, determined, determining);
    if (s.target) atomic_writes(*s.target, determined, determining);
    d.y.insert(determined.begin(), determined.end());
    d.x.insert(determined.begin(), determined.end());
    d.x.insert(determining.begin(), determining.end());
    return n;
  }

  Program &p_;
  const anf::Task *task_ = nullptr;  // the task being built
};

}  // namespace

Program build(const anf::Program &program) {
  Program p;
  p.anf = &program;
  Builder b(p);
  for (const anf::Task &t : program.tasks) p.tasks.push_back(b.build_task(t));
  return p;
}

void for_each_node(const Graph &g, const std::function<void(const Node &)> &fn) {
  for (auto &n : g.nodes) {
    fn(*n);
    for (auto &sub : n->graphs) for_each_node(*sub, fn);
  }
}

namespace {

// Sets of node indices as hash-consed little-endian Patricia tries (Okasaki
// and Gill, "Fast Mergeable Integer Maps"). A set has exactly one trie, and
// equal tries share one number, so two sets are compared by their numbers;
// adding an element to a set makes only the path to it anew and shares the
// rest. A sum that waits for every call before it then costs a path per
// node, where a copy of its set per node took time and memory quadratic in
// the graph.
class SetTries {
 public:
  static constexpr int kEmpty = 0;

  SetTries() { tries_.push_back({}); }  // kEmpty, never looked into

  int singleton(unsigned key) { return make({key, 0, -1, -1}); }

  int unite(int s, int t) {
    if (s == t || t == kEmpty) return s;
    if (s == kEmpty) return t;
    Trie a = tries_[size_t(s)], b = tries_[size_t(t)];
    if (a.leaf()) return insert(a.prefix, t);
    if (b.leaf()) return insert(b.prefix, s);
    if (a.bit == b.bit && a.prefix == b.prefix)
      return make({a.prefix, a.bit, unite(a.zero, b.zero), unite(a.one, b.one)});
    if (a.bit < b.bit && matches(b.prefix, a)) {  // t goes below s
      if (b.prefix & a.bit) return make({a.prefix, a.bit, a.zero, unite(a.one, t)});
      return make({a.prefix, a.bit, unite(a.zero, t), a.one});
    }
    if (b.bit < a.bit && matches(a.prefix, b)) {  // s goes below t
      if (a.prefix & b.bit) return make({b.prefix, b.bit, b.zero, unite(s, b.one)});
      return make({b.prefix, b.bit, unite(s, b.zero), b.one});
    }
    return join(a.prefix, s, b.prefix, t);
  }

  size_t size() const { return tries_.size(); }

 private:
  // A leaf holds its key in prefix, bit 0. A branch on bit (a power of two)
  // holds the keys whose bits below it are prefix: zero those without the
  // bit, one those with it.
  struct Trie {
    unsigned prefix = 0, bit = 0;
    int zero = -1, one = -1;
    bool leaf() const { return bit == 0 && zero < 0; }
    bool operator==(const Trie &o) const {
      return prefix == o.prefix && bit == o.bit && zero == o.zero && one == o.one;
    }
  };
  struct Hash {
    size_t operator()(const Trie &t) const {
      uint64_t h = (uint64_t(t.prefix) << 32 | t.bit) * 0x9E3779B97F4A7C15ull;
      h ^= (uint64_t(uint32_t(t.zero)) << 32 | uint32_t(t.one)) + 0x632BE59BD9B4E019ull + (h << 6) +
           (h >> 2);
      return size_t(h ^ (h >> 29));
    }
  };

  static bool matches(unsigned key, const Trie &branch) {
    return (key & (branch.bit - 1)) == branch.prefix;
  }

  int insert(unsigned key, int t) {
    if (t == kEmpty) return singleton(key);
    Trie b = tries_[size_t(t)];
    if (b.leaf()) return b.prefix == key ? t : join(key, singleton(key), b.prefix, t);
    if (!matches(key, b)) return join(key, singleton(key), b.prefix, t);
    if (key & b.bit) return make({b.prefix, b.bit, b.zero, insert(key, b.one)});
    return make({b.prefix, b.bit, insert(key, b.zero), b.one});
  }

  // Two tries whose prefixes p and q differ: a branch on their lowest
  // differing bit.
  int join(unsigned p, int s, unsigned q, int t) {
    unsigned bit = (p ^ q) & -(p ^ q);
    if (p & bit) std::swap(s, t);
    return make({p & (bit - 1), bit, s, t});
  }

  int make(const Trie &t) {
    auto [it, added] = ids_.try_emplace(t, int(tries_.size()));
    if (added) tries_.push_back(t);
    return it->second;
  }

  std::vector<Trie> tries_;
  std::unordered_map<Trie, int, Hash> ids_;
};

}  // namespace

std::vector<int> parallel_ancestors(const Graph &g) {
  SetTries sets;
  std::vector<int> set_of(g.nodes.size(), SetTries::kEmpty);
  std::vector<std::vector<int>> preds = g.all_preds();
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int p : preds[i])
      set_of[i] = sets.unite(set_of[i], g.nodes[size_t(p)]->parallel() ? sets.singleton(unsigned(p))
                                                                       : set_of[size_t(p)]);
  // Number the distinct sets: the empty set 0, the others by their first node.
  std::vector<int> number(sets.size(), -1);
  number[SetTries::kEmpty] = 0;
  int next = 1;
  for (int &s : set_of) {
    if (number[size_t(s)] < 0) number[size_t(s)] = next++;
    s = number[size_t(s)];
  }
  return set_of;
}

}  // namespace kite::ntg
