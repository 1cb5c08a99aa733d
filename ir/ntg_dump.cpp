// --dump-ntg: the nested task graphs as text or in Graphviz's dot language.
#include <fmt/format.h>

#include <ostream>

#include "ir/ntg.h"
#include "ir/reductions.h"

namespace kite::ntg {

namespace {

std::string var_set(const TaskGraph &tg, const std::set<int> &s) {
  std::vector<std::string> names;
  for (int v : s) names.push_back(tg.task->vars[size_t(v)]->name);
  std::sort(names.begin(), names.end());
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "}";
}

std::string dep_text(const TaskGraph &tg, const Dep &d) {
  return var_set(tg, d.x) + (d.arrow == Arrow::Par ? " ⇝ " : " → ") + var_set(tg, d.y);
}

// The label of each nested graph of a node, in order.
std::vector<std::string> graph_labels(const Node &n) {
  switch (n.kind) {
    case NodeKind::If:
      return {"then", "else"};
    case NodeKind::Then:
      return {"first", "then"};
    case NodeKind::For:
    case NodeKind::Map:
      return {"body"};
    case NodeKind::Case: {
      std::vector<std::string> out;
      for (auto &b : n.stmt->branches)
        out.push_back(b.field.empty() ? "default"
                                      : b.field + " " + (b.binder ? b.binder->name : ""));
      return out;
    }
    case NodeKind::Stmt:
      return {};
  }
  return {};
}

void dump_graph(const TaskGraph &tg, const Graph &g, int indent, std::ostream &out) {
  std::string pad(indent, ' ');
  out << pad << "graph g" << g.id << "  " << dep_text(tg, g.dep) << "\n";
  for (auto &n : g.nodes) {
    out << pad << "  n" << n->id << ": " << anf::to_kite(*n->stmt) << "  " << dep_text(tg, n->dep)
        << (n->tail_call ? "  [tail call]" : "") << (n->flattened ? "  [flattened]" : "")
        << (n->reduction.empty()
                ? ""
                : fmt::format("  [{} {}]", n->reduction.scan ? "scan" : "reduction",
                              reductions::describe(n->reduction)))
        << "\n";
    std::vector<std::string> labels = graph_labels(*n);
    for (size_t i = 0; i < n->graphs.size(); ++i) {
      out << pad << "    " << labels[i] << ":\n";
      dump_graph(tg, *n->graphs[i], indent + 6, out);
    }
  }
  out << pad << "  edges:";
  if (g.edges.empty()) out << " none";
  for (size_t i = 0; i < g.edges.size(); ++i)
    out << (i ? "," : "") << " n" << g.nodes[g.edges[i].first]->id << " -> n"
        << g.nodes[g.edges[i].second]->id;
  out << "\n";
}

const char *kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::If:
      return "if";
    case NodeKind::Case:
      return "case";
    case NodeKind::Then:
      return "then";
    case NodeKind::For:
      return "for";
    case NodeKind::Map:
      return "map";
    case NodeKind::Stmt:
      return "stmt";
  }
  return "stmt";
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
    std::string label = dot_escape("n" + std::to_string(n->id) + ": " + anf::to_kite(*n->stmt)) +
                        "\\n" + dot_escape(dep_text(tg, n->dep));
    if (!n->graphs.empty()) {
      out << pad << "subgraph cluster_n" << n->id << " {\n";
      out << pad << "  label=\"" << label << "\"; style=rounded;\n";
      out << pad << "  n" << n->id << " [shape=diamond, label=\"" << kind_name(n->kind) << "\"];\n";
      std::vector<std::string> labels = graph_labels(*n);
      for (size_t i = 0; i < n->graphs.size(); ++i) {
        out << pad << "  subgraph cluster_g" << n->graphs[i]->id << " { label=\""
            << dot_escape(labels[i]) << "\";\n";
        dot_graph(tg, *n->graphs[i], out, indent + 4);
        out << pad << "  }\n";
      }
      out << pad << "}\n";
    } else {
      out << pad << "n" << n->id << " [label=\"" << label << "\""
          << (n->parallel() ? ", style=bold" : "") << "];\n";
    }
  }
  for (auto [a, b] : g.edges)
    out << pad << "n" << g.nodes[a]->id << " -> n" << g.nodes[b]->id << ";\n";
}

}  // namespace

void dump(const Program &p, std::ostream &out) {
  for (auto &tg : p.tasks) {
    const ast::TaskDecl &t = *tg.task->decl;
    out << "task " << t.name << "(";
    for (size_t i = 0; i < t.param_vars.size(); ++i)
      out << (i ? ", " : "") << t.param_vars[i]->name << ": " << to_string(t.param_vars[i]->type);
    out << ")";
    if (t.result_type && t.result_type->kind != TypeKind::Unit)
      out << ": " << to_string(t.result_type);
    out << "\n";
    dump_graph(tg, *tg.body, 2, out);
  }
}

void dump_dot(const Program &p, std::ostream &out) {
  out << "digraph kite {\n  compound=true; node [shape=box, fontname=\"monospace\"];\n";
  for (auto &tg : p.tasks) {
    out << "  subgraph cluster_task_" << tg.task->decl->name << " {\n    label=\"task "
        << tg.task->decl->name << "\";\n";
    dot_graph(tg, *tg.body, out, 4);
    out << "  }\n";
  }
  out << "}\n";
}

}  // namespace kite::ntg
