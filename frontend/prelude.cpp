// The prelude: the tasks of stdlib/prelude.kite that a program uses join it.
#include "frontend/prelude.h"

#include <set>

#include "frontend/parse.h"
#include "prelude_source.h"

namespace kite {

using namespace ast;

namespace {

void names_in(const TypeExpr *t, std::set<std::string> &out) {
  if (!t) return;
  out.insert(t->name);
  for (auto &a : t->args) names_in(a.get(), out);
}

// Collects the names the parsed AST mentions: ast::Visitor walks the
// expressions and statements, and this adds what only the parsed AST has
// (type expressions, anonymous tasks not yet lifted) and case fields.
class Names : public Visitor {
 public:
  explicit Names(std::set<std::string> &out) : out_(out) {}
  using Visitor::visit;
  void visit(const Expr &e) override {
    if (e.kind == ExprKind::Name) out_.insert(e.text);
    names_in(e.type_expr.get(), out_);
    if (e.anon) {
      for (auto &p : e.anon->params) names_in(p.type.get(), out_);
      names_in(e.anon->result.get(), out_);
      visit(e.anon->body);
    }
    Visitor::visit(e);
  }
  void visit(const Stmt &s) override {
    names_in(s.decl_type.get(), out_);
    for (auto &b : s.branches) out_.insert(b.field);
    Visitor::visit(s);
  }

 private:
  std::set<std::string> &out_;
};

void names_in(const StmtList &list, std::set<std::string> &out) { Names(out).visit(list); }
void names_in(const Expr *e, std::set<std::string> &out) {
  if (e) Names(out).visit(*e);
}

void names_in(const TaskDecl &t, std::set<std::string> &out) {
  for (auto &p : t.params) names_in(p.type.get(), out);
  names_in(t.result.get(), out);
  names_in(t.body, out);
}

}  // namespace

void add_prelude(Program &program, Diagnostics &diags) {
  // The prelude's text and diagnostics must outlive the program's.
  static const SourceFile prelude_file(kPreludePath, kPreludeSource);
  FileId id = diags.add_file(prelude_file);
  std::unique_ptr<Program> prelude = parse(prelude_file, diags, id);
  if (!prelude) internal_error("the prelude does not parse");

  std::set<std::string> defined, used;
  for (auto &t : program.tasks) defined.insert(t->name), names_in(*t, used);
  for (auto &s : program.structs) {
    defined.insert(s->name);
    for (auto &f : s->fields) names_in(f.type.get(), used);
  }
  for (auto &v : program.values) {
    defined.insert(v->name);
    names_in(v->type.get(), used);
    names_in(v->init.get(), used);
  }
  // Take what is used until nothing new is.
  std::vector<bool> taken_t(prelude->tasks.size()), taken_s(prelude->structs.size()),
      taken_v(prelude->values.size());
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < prelude->tasks.size(); ++i) {
      TaskDecl &t = *prelude->tasks[i];
      if (taken_t[i] || !used.count(t.name) || defined.count(t.name)) continue;
      taken_t[i] = grew = true;
      names_in(t, used);
    }
    for (size_t i = 0; i < prelude->structs.size(); ++i) {
      StructDecl &s = *prelude->structs[i];
      if (taken_s[i] || !used.count(s.name) || defined.count(s.name)) continue;
      taken_s[i] = grew = true;
      for (auto &f : s.fields) names_in(f.type.get(), used);
    }
    for (size_t i = 0; i < prelude->values.size(); ++i) {
      ValueDecl &v = *prelude->values[i];
      if (taken_v[i] || !used.count(v.name) || defined.count(v.name)) continue;
      taken_v[i] = grew = true;
      names_in(v.init.get(), used);
    }
  }
  // Constants first: a prelude task may name one.
  std::vector<std::unique_ptr<ValueDecl>> values;
  for (size_t i = 0; i < prelude->values.size(); ++i)
    if (taken_v[i]) values.push_back(std::move(prelude->values[i]));
  for (auto &v : program.values) values.push_back(std::move(v));
  program.values = std::move(values);
  for (size_t i = 0; i < prelude->structs.size(); ++i)
    if (taken_s[i]) program.structs.push_back(std::move(prelude->structs[i]));
  for (size_t i = 0; i < prelude->tasks.size(); ++i)
    if (taken_t[i]) program.tasks.push_back(std::move(prelude->tasks[i]));
}

}  // namespace kite
