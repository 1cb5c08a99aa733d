// Warnings on the checked AST: -Wshadow, -Wunused, -Wprint-format.
#include "frontend/lint.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "frontend/builtins.h"

namespace kite {

using namespace ast;

namespace {

// The text of `s`'s initializer as the source spells it, if it is on the
// declaration's line and short; else "...".
std::string init_text(const SourceFile &file, const Stmt &s) {
  const VarDecl &v = *s.vars[0];
  std::string line = file.line(v.loc.line);
  size_t eq = line.find('=', size_t(v.loc.col - 1) + v.name.size());
  if (eq == std::string::npos) return "...";
  size_t end = line.find(';', eq);
  std::string text =
      line.substr(eq + 1, end == std::string::npos ? std::string::npos : end - eq - 1);
  size_t a = text.find_first_not_of(" \t"), b = text.find_last_not_of(" \t");
  if (a == std::string::npos || b - a + 1 > 40) return "...";
  return text.substr(a, b - a + 1);
}

bool mentions(const Expr &e, const std::string &name) {
  bool found = false;
  for_each_expr(
      e, [&](const Expr &x) { found = found || (x.kind == ExprKind::Name && x.text == name); });
  return found;
}

// -Wshadow: a declaration in a nested block of a task that hides a variable
// of an enclosing block of the same task.
class Shadows {
 public:
  Shadows(const SourceFile &file, Diagnostics &diags) : file_(file), diags_(diags) {}

  void task(const TaskDecl &t) {
    scopes_.clear();
    scopes_.emplace_back();
    for (const VarDecl *v : t.param_vars) scopes_.back()[v->name] = v;
    list(t.body);
  }

 private:
  void list(const StmtList &stmts) {
    for (auto &s : stmts) stmt(*s);
  }

  void block(const StmtList &stmts) {
    scopes_.emplace_back();
    list(stmts);
    scopes_.pop_back();
  }

  void stmt(const Stmt &s) {
    switch (s.kind) {
      case StmtKind::Decl:
        for (auto &v : s.vars) declare(*v, &s);
        return;
      case StmtKind::Block:
      case StmtKind::While:
        block(s.body);
        return;
      case StmtKind::If:
        block(s.body);
        block(s.else_body);
        return;
      case StmtKind::Then:
        list(s.body);
        list(s.else_body);
        return;
      case StmtKind::Case:
        for (auto &b : s.branches) {
          scopes_.emplace_back();
          if (b.binder_var) declare(*b.binder_var, nullptr);
          list(b.body);
          scopes_.pop_back();
        }
        return;
      case StmtKind::For:
      case StmtKind::Map:
        scopes_.emplace_back();
        if (s.index_var && !s.index_var->is_temp) declare(*s.index_var, nullptr);
        if (s.elem_var) declare(*s.elem_var, nullptr);
        list(s.body);
        scopes_.pop_back();
        return;
      case StmtKind::ExprStmt:
      case StmtKind::Assign:
      case StmtKind::Return:
        return;
    }
  }

  void declare(const VarDecl &v, const Stmt *decl) {
    if (scopes_.size() > 1)
      for (size_t i = scopes_.size() - 1; i-- > 0;) {
        auto it = scopes_[i].find(v.name);
        if (it == scopes_[i].end()) continue;
        const VarDecl &outer = *it->second;
        std::string what = outer.is_param ? "a parameter" : "a variable";
        shadowing_.insert(&v);
        if (diags_.warning(
                v.loc, Warning::Shadow,
                fmt::format("'{}' shadows {} declared at line {}", v.name, what, outer.loc.line)) &&
            decl && decl->vars.size() == 1 && decl->expr) {
          // `s = s + x` in a loop declares a new `s`; `<-` assigns the outer one.
          std::string init = init_text(file_, *decl);
          if (mentions(*decl->expr, v.name) || !decl->decl_type)
            diags_.note(v.loc, fmt::format("to assign the outer '{}', write '{} <- {}'", v.name,
                                           v.name, init));
        }
        break;
      }
    scopes_.back()[v.name] = &v;
  }

  const SourceFile &file_;
  Diagnostics &diags_;
  std::vector<std::map<std::string, const VarDecl *>> scopes_;

 public:
  // The declarations that shadow another: -Wunused leaves them to -Wshadow,
  // whose note (`s <- ...`) fixes both.
  std::set<const VarDecl *> shadowing_;
};

// -Wunused: variables declared in a task (not parameters, loop variables or
// case binders) that nothing reads.
class Unused {
 public:
  void collect_reads(const StmtList &stmts) { Reads(read_).visit(stmts); }

  void report(const TaskDecl &t, const std::set<const VarDecl *> &skip, Diagnostics &diags) {
    Report(read_, skip, diags).visit(t.body);
  }

 private:
  // Every variable an expression mentions, but `x <- e` does not read x
  // (`a[i] <- e` and `r.f <- e` read a and r).
  class Reads : public Visitor {
   public:
    explicit Reads(std::set<const VarDecl *> &out) : out_(out) {}
    using Visitor::visit;
    void visit(const Stmt &s) override {
      assigned_ = s.target && s.target->kind == ExprKind::Name ? s.target.get() : nullptr;
      Visitor::visit(s);  // the target first
    }
    void visit(const Expr &e) override {
      if (&e == assigned_) return;
      if (e.var) out_.insert(e.var);
      Visitor::visit(e);
    }

   private:
    std::set<const VarDecl *> &out_;
    const Expr *assigned_ = nullptr;
  };

  class Report : public Visitor {
   public:
    Report(const std::set<const VarDecl *> &read, const std::set<const VarDecl *> &skip,
           Diagnostics &diags)
        : read_(read), skip_(skip), diags_(diags) {}
    using Visitor::visit;
    void visit(const Stmt &s) override {
      if (s.kind == StmtKind::Decl)
        for (auto &v : s.vars)
          if (!read_.count(v.get()) && !skip_.count(v.get()) && !v->name.empty() &&
              v->name[0] != '_')
            diags_.warning(
                v->loc, Warning::Unused,
                fmt::format("'{}' is never {}", v->name,
                            v->type && v->type->kind == TypeKind::Task ? "used" : "read"));
      Visitor::visit(s);
    }

   private:
    const std::set<const VarDecl *> &read_, &skip_;
    Diagnostics &diags_;
  };

  std::set<const VarDecl *> read_;
};

// -Wprint-format: printf- or format-style placeholders in a string given to
// print, which prints its arguments as they are, separated by spaces.
class PrintFormat : public Visitor {
 public:
  PrintFormat(const SourceFile &file, Diagnostics &diags) : file_(file), diags_(diags) {}
  using Visitor::visit;

 private:
  void visit(const Expr &e) override {
    Visitor::visit(e);
    if (e.kind != ExprKind::Call || e.children[0]->builtin != int(Builtin::print_)) return;
    for (size_t i = 1; i < e.children.size(); ++i) {
      const Expr &a = *e.children[i];
      if (a.kind != ExprKind::StringLit) continue;
      std::string spec = placeholder(a.text);
      if (spec.empty()) continue;
      SourceLoc loc = a.loc;
      // Point at the placeholder itself where the source spells it so.
      if (loc.in_program()) {
        std::string line = file_.line(loc.line);
        size_t at = line.find(spec, size_t(loc.col));
        if (at != std::string::npos) loc.col = int(at) + 1;
      }
      diags_.warning(loc, Warning::PrintFormat,
                     fmt::format("print does not format: '{}' is printed as it is; print "
                                 "separates its arguments with spaces, as in print(\"x =\", x)",
                                 spec));
    }
  }

  // The first placeholder in `text`: %d, %5.2f, %s, %ld, {}, {0}, {:.2f}; or "".
  static std::string placeholder(const std::string &text) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '%') {
        size_t j = i + 1;
        while (j < text.size() && std::string("-+0#").find(text[j]) != std::string::npos) ++j;
        while (j < text.size() && isdigit((unsigned char)text[j])) ++j;
        if (j < text.size() && text[j] == '.') {
          ++j;
          while (j < text.size() && isdigit((unsigned char)text[j])) ++j;
        }
        while (j < text.size() && (text[j] == 'l' || text[j] == 'h' || text[j] == 'z')) ++j;
        if (j < text.size() && std::string("diufFeEgGxXoscp").find(text[j]) != std::string::npos)
          return text.substr(i, j - i + 1);
      }
      if (text[i] == '{') {
        size_t j = text.find('}', i);
        if (j == std::string::npos) continue;
        // {}, {0}, {:.2f}, {1:>8}: an index, then a format after ':'.
        std::string inside = text.substr(i + 1, j - i - 1);
        size_t k = inside.find_first_not_of("0123456789");
        bool spec = k == std::string::npos || inside[k] == ':';
        if (spec && inside.find(' ') == std::string::npos) return text.substr(i, j - i + 1);
      }
    }
    return "";
  }

  const SourceFile &file_;
  Diagnostics &diags_;
};

}  // namespace

void lint(const Program &program, Diagnostics &diags) {
  const SourceFile &file = diags.file();
  // The prelude's tasks (locations in another file) are not the program's.
  auto own = [](const TaskDecl &t) { return t.loc.in_program(); };
  Shadows shadows(file, diags);
  Unused unused;
  PrintFormat print(file, diags);
  for (auto &t : program.tasks) unused.collect_reads(t->body);
  for (auto &t : program.tasks) {
    if (!own(*t)) continue;
    shadows.task(*t);
    unused.report(*t, shadows.shadowing_, diags);
    print.visit(t->body);
  }
}

}  // namespace kite
