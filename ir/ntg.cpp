#include "ir/ntg.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>

#include "ir/anf.h"

namespace kite::ntg {

using namespace ast;

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

std::vector<VarDecl *> declared_vars(const Stmt &s) {
  std::vector<VarDecl *> out;
  for (auto &v : s.vars) out.push_back(v.get());
  for (VarDecl *v : s.temps) out.push_back(v);
  return out;
}

// --- Printing Kite source ------------------------------------------------

namespace {

int precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::Mul: case BinaryOp::Div: case BinaryOp::Mod: return 10;
    case BinaryOp::Add: case BinaryOp::Sub: return 9;
    case BinaryOp::Shl: case BinaryOp::Shr: return 8;
    case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge: return 7;
    case BinaryOp::Eq: case BinaryOp::Ne: return 6;
    case BinaryOp::BitAnd: return 5;
    case BinaryOp::BitXor: return 4;
    case BinaryOp::BitOr: return 3;
    case BinaryOp::And: return 2;
    case BinaryOp::Or: return 1;
  }
  return 0;
}

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return out + "\"";
}

std::string expr_text(const Expr &e, int outer);

std::string list_text(const std::vector<ExprPtr> &v, size_t from) {
  std::string s;
  for (size_t i = from; i < v.size(); ++i) s += (i > from ? ", " : "") + expr_text(*v[i], 0);
  return s;
}

std::string expr_text(const Expr &e, int outer) {
  switch (e.kind) {
    case ExprKind::IntLit: return std::to_string(e.int_value) + (e.is_long ? "L" : "");
    case ExprKind::FloatLit: {
      std::string s = fmt::format("{}", e.float_value);
      if (s.find_first_of(".eE") == std::string::npos && s.find("inf") == std::string::npos)
        s += ".0";
      return s + (e.is_float32 ? "f" : "");
    }
    case ExprKind::BoolLit: return e.bool_value ? "true" : "false";
    case ExprKind::StringLit: return quote(e.text);
    case ExprKind::Name: return e.var ? e.var->name : e.text;
    case ExprKind::Call: return expr_text(*e.children[0], 11) + "(" + list_text(e.children, 1) + ")";
    case ExprKind::Unary: return std::string(spelling(e.unop)) + expr_text(*e.children[0], 11);
    case ExprKind::Binary: {
      int p = precedence(e.binop);
      std::string s = expr_text(*e.children[0], p) + " " + spelling(e.binop) + " " +
                      expr_text(*e.children[1], p + 1);
      return p < outer ? "(" + s + ")" : s;
    }
    case ExprKind::Field: return expr_text(*e.children[0], 11) + "." + e.text;
    case ExprKind::Index:
      return expr_text(*e.children[0], 11) + "[" + expr_text(*e.children[1], 0) + "]";
    case ExprKind::Tuple: return "(" + list_text(e.children, 0) + ")";
    case ExprKind::Range:
      return "[" + expr_text(*e.children[0], 0) + ", " + expr_text(*e.children[1], 0) + "]";
    case ExprKind::New: return "new<...>(" + list_text(e.children, 0) + ")";
    case ExprKind::Construct: return "{...}";
    case ExprKind::AnonTask: return "task (...) {...}";
    case ExprKind::Future: return "task " + expr_text(*e.children[0], 11);
  }
  return "?";
}

}  // namespace

std::string to_kite(const Expr &e) { return expr_text(e, 0); }

std::string to_kite(const Stmt &s) {
  switch (s.kind) {
    case StmtKind::ExprStmt: return to_kite(*s.expr);
    case StmtKind::Decl: {
      std::string names;
      Type *type = nullptr;
      for (VarDecl *v : declared_vars(s)) {
        names += (names.empty() ? "" : ", ") + v->name;
        type = v->type;
      }
      std::string t = type ? ": " + to_string(type) : "";
      return names + t + (s.expr ? " = " + to_kite(*s.expr) : "");
    }
    case StmtKind::Assign: return to_kite(*s.target) + " <- " + to_kite(*s.expr);
    case StmtKind::Return: return s.expr ? "return " + to_kite(*s.expr) : "return";
    case StmtKind::If: return "if (" + to_kite(*s.expr) + ")";
    default: return "<statement>";
  }
}

// --- Building graphs -------------------------------------------------------

namespace {

void free_vars(const Expr &e, std::set<int> &out) {
  if (e.kind == ExprKind::Name && e.var) out.insert(e.var->id);
  for (auto &c : e.children)
    if (c) free_vars(*c, out);
}

class Builder {
 public:
  explicit Builder(Program &p) : p_(p) {}

  TaskGraph build_task(TaskDecl &t) {
    TaskGraph tg;
    tg.task = &t;
    for (VarDecl *v : t.param_vars) number(tg, v);
    number_list(tg, t.body);
    tg.body = build_graph(t.body);
    return tg;
  }

 private:
  void number(TaskGraph &tg, VarDecl *v) {
    v->id = int(tg.vars.size());
    tg.vars.push_back(v);
  }
  void number_list(TaskGraph &tg, StmtList &list) {
    for (auto &s : list) {
      for (VarDecl *v : declared_vars(*s)) number(tg, v);
      number_list(tg, s->body);
      number_list(tg, s->else_body);
    }
  }

  std::unique_ptr<Graph> build_graph(StmtList &list) {
    auto g = std::make_unique<Graph>();
    g->id = p_.num_graphs++;
    for (auto &s : list) g->nodes.push_back(build_node(*s));
    // Link (§3.3.3): from the nearest earlier node that determines each
    // variable in X, and from all earlier nodes that depend on a variable in Y.
    for (size_t j = 0; j < g->nodes.size(); ++j) {
      std::set<int> from;
      const Dep &d = g->nodes[j]->dep;
      for (int v : d.x) {
        for (size_t i = j; i-- > 0;) {
          if (g->nodes[i]->dep.y.count(v)) {
            from.insert(int(i));
            break;
          }
        }
      }
      for (size_t i = 0; i < j; ++i)
        for (int v : d.y)
          if (g->nodes[i]->dep.x.count(v)) from.insert(int(i));
      for (int i : from) g->edges.push_back({i, int(j)});
    }
    for (size_t i = 0; i < g->nodes.size(); ++i)
      g->dep = i == 0 ? g->nodes[0]->dep : compose(g->dep, g->nodes[i]->dep);  // (11)
    return g;
  }

  std::unique_ptr<Node> build_node(Stmt &s) {
    auto n = std::make_unique<Node>();
    n->id = p_.num_nodes++;
    n->stmt = &s;
    Dep &d = n->dep;
    switch (s.kind) {
      case StmtKind::ExprStmt:
        if (is_task_call(*s.expr)) {  // (2)
          n->spawns = true;
          d.arrow = Arrow::Par;
          for (size_t i = 1; i < s.expr->children.size(); ++i) free_vars(*s.expr->children[i], d.x);
        } else {
          free_vars(*s.expr, d.x);  // (6)
        }
        break;
      case StmtKind::Assign: {
        // (3), (4): flvs(x) = ({x}, {}) for a plain variable.
        int target = s.target->var->id;
        d.x.insert(target);
        d.y.insert(target);
        if (is_task_call(*s.expr)) {
          n->spawns = true;
          d.arrow = Arrow::Par;
          for (size_t i = 1; i < s.expr->children.size(); ++i) free_vars(*s.expr->children[i], d.x);
        } else {
          free_vars(*s.expr, d.x);
        }
        break;
      }
      case StmtKind::Decl:  // (5)
        if (s.expr) free_vars(*s.expr, d.x);
        for (VarDecl *v : declared_vars(s)) d.y.insert(v->id);
        break;
      case StmtKind::Return:  // (6)
        if (s.expr) free_vars(*s.expr, d.x);
        break;
      case StmtKind::If: {  // (7)
        n->kind = NodeKind::If;
        n->then_graph = build_graph(s.body);
        n->else_graph = build_graph(s.else_body);
        free_vars(*s.expr, d.x);
        d = d + n->then_graph->dep + n->else_graph->dep;
        break;
      }
      default: break;
    }
    return n;
  }

  Program &p_;
};

// --- Dumping -----------------------------------------------------------------

std::string var_set(const TaskGraph &tg, const std::set<int> &s) {
  std::vector<std::string> names;
  for (int v : s) names.push_back(tg.vars[v]->name);
  std::sort(names.begin(), names.end());
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "}";
}

std::string dep_text(const TaskGraph &tg, const Dep &d) {
  return var_set(tg, d.x) + (d.arrow == Arrow::Par ? " ⇝ " : " → ") + var_set(tg, d.y);
}

void dump_graph(const TaskGraph &tg, const Graph &g, int indent, std::ostream &out) {
  std::string pad(indent, ' ');
  out << pad << "graph g" << g.id << "  " << dep_text(tg, g.dep) << "\n";
  for (auto &n : g.nodes) {
    out << pad << "  n" << n->id << ": " << to_kite(*n->stmt) << "  " << dep_text(tg, n->dep)
        << "\n";
    if (n->kind == NodeKind::If) {
      out << pad << "    then:\n";
      dump_graph(tg, *n->then_graph, indent + 6, out);
      out << pad << "    else:\n";
      dump_graph(tg, *n->else_graph, indent + 6, out);
    }
  }
  out << pad << "  edges:";
  if (g.edges.empty()) out << " none";
  for (size_t i = 0; i < g.edges.size(); ++i)
    out << (i ? "," : "") << " n" << g.nodes[g.edges[i].first]->id << " -> n"
        << g.nodes[g.edges[i].second]->id;
  out << "\n";
}

std::string dot_escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void dot_graph(const TaskGraph &tg, const Graph &g, std::ostream &out, int indent) {
  std::string pad(indent, ' ');
  for (auto &n : g.nodes) {
    std::string label = dot_escape("n" + std::to_string(n->id) + ": " + to_kite(*n->stmt)) +
                        "\\n" + dot_escape(dep_text(tg, n->dep));
    if (n->kind == NodeKind::If) {
      out << pad << "subgraph cluster_n" << n->id << " {\n";
      out << pad << "  label=\"" << label << "\"; style=rounded;\n";
      out << pad << "  n" << n->id << " [shape=diamond, label=\"if\"];\n";
      out << pad << "  subgraph cluster_g" << n->then_graph->id << " { label=\"then\";\n";
      dot_graph(tg, *n->then_graph, out, indent + 4);
      out << pad << "  }\n";
      out << pad << "  subgraph cluster_g" << n->else_graph->id << " { label=\"else\";\n";
      dot_graph(tg, *n->else_graph, out, indent + 4);
      out << pad << "  }\n" << pad << "}\n";
    } else {
      out << pad << "n" << n->id << " [label=\"" << label << "\""
          << (n->parallel() ? ", style=bold" : "") << "];\n";
    }
  }
  for (auto [a, b] : g.edges)
    out << pad << "n" << g.nodes[a]->id << " -> n" << g.nodes[b]->id << ";\n";
}

}  // namespace

Program build(ast::Program &program) {
  Program p;
  Builder b(p);
  for (auto &t : program.tasks) p.tasks.push_back(b.build_task(*t));
  return p;
}

void dump(const Program &p, std::ostream &out) {
  for (auto &tg : p.tasks) {
    const TaskDecl &t = *tg.task;
    out << "task " << t.name << "(";
    for (size_t i = 0; i < t.param_vars.size(); ++i)
      out << (i ? ", " : "") << t.param_vars[i]->name << ": " << to_string(t.param_vars[i]->type);
    out << ")";
    if (t.result_type && t.result_type->kind != TypeKind::Unit) out << ": " << to_string(t.result_type);
    out << "\n";
    dump_graph(tg, *tg.body, 2, out);
  }
}

void dump_dot(const Program &p, std::ostream &out) {
  out << "digraph kite {\n  compound=true; node [shape=box, fontname=\"monospace\"];\n";
  for (auto &tg : p.tasks) {
    out << "  subgraph cluster_task_" << tg.task->name << " {\n    label=\"task "
        << tg.task->name << "\";\n";
    dot_graph(tg, *tg.body, out, 4);
    out << "  }\n";
  }
  out << "}\n";
}

}  // namespace kite::ntg
