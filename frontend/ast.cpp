// Operator spellings and the AST printer behind `kitec --dump-ast`.
//
// The dump is meant for tests and for people: declarations in source order,
// one statement per line indented by two spaces per level, expressions as
// prefix S-expressions, types as Kite source spells them. For example
//
//   task main(n: int): int
//     decl x: int = (+ n 1)
//     if (< x 3)
//       return (call f x)
//     else
//       return 0
#include "frontend/ast.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <sstream>

namespace kite::ast {

const char *spelling(BinaryOp op) {
  switch (op) {
#define X(k, s)     \
  case BinaryOp::k: \
    return s;
    KITE_BINARY_OPS(X)
#undef X
  }
  return "?";
}

const char *spelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
      return "-";
    case UnaryOp::Not:
      return "!";
    case UnaryOp::BitNot:
      return "~";
  }
  return "?";
}

std::string to_string(const TypeExpr &type) {
  std::string out;
  if (type.name == "(tuple)") {
    out = "(";
    for (size_t i = 0; i < type.args.size(); ++i) out += (i ? ", " : "") + to_string(*type.args[i]);
    return out + ")";
  }
  out = type.name;
  if (!type.args.empty()) {
    out += "<";
    for (size_t i = 0; i < type.args.size(); ++i) out += (i ? ", " : "") + to_string(*type.args[i]);
    out += ">";
  }
  return out;
}

std::string quote(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        // Three octal digits: a hexadecimal escape would take a hex digit
        // after it as its own ("\x01a" is one byte, 0x1a).
        if (c < 0x20 || c == 0x7f)
          out += fmt::format("\\{:03o}", c);
        else
          out += char(c);
    }
  }
  return out + "\"";
}

namespace {

std::string float_text(const Expr &e) {
  std::string s =
      e.is_float32 ? fmt::format("{}", float(e.float_value)) : fmt::format("{}", e.float_value);
  // Keep a float recognisable as one: 1.0 prints as `1.0`, not `1`.
  if (s.find_first_of(".enia") == std::string::npos) s += ".0";
  return e.is_float32 ? s + "f" : s;
}

std::string params_text(const std::vector<Param> &params) {
  std::string out = "(";
  for (size_t i = 0; i < params.size(); ++i)
    out += fmt::format("{}{}: {}", i ? ", " : "", params[i].name, to_string(*params[i].type));
  return out + ")";
}

}  // namespace

// `name(a: int): int`, the header shared by named and anonymous tasks: as
// written, or once checked, with the checked types (a task made by a pass
// has those only) and, for an anonymous task, what it captures.
std::string task_header(const TaskDecl &task) {
  if (task.param_vars.empty() && !task.result_type) {
    std::string out = task.name + params_text(task.params);
    if (task.result) out += ": " + to_string(*task.result);
    return out;
  }
  std::string out = task.name + "(";
  for (size_t i = 0; i < task.param_vars.size(); ++i)
    out += fmt::format("{}{}: {}", i ? ", " : "", task.param_vars[i]->name,
                       to_string(task.param_vars[i]->type));
  out += ")";
  if (task.result_type && task.result_type->kind != TypeKind::Unit)
    out += ": " + to_string(task.result_type);
  if (task.is_anonymous) {
    out += "  [anonymous; captures";
    for (const VarDecl *v : task.captures) out += " " + v->name;
    if (task.captures.empty()) out += " nothing";
    if (task.env) out += "; closure in " + task.env->name;
    out += "]";
  }
  return out;
}

namespace {

class Printer {
 public:
  explicit Printer(std::ostream &out) : out_(out) {}

  void program(const Program &p) {
    // The program keeps each kind of declaration in its own list; print them
    // interleaved again, in the order they were written.
    struct Item {
      SourceLoc loc;
      const void *decl;
      int kind;  // 0 struct, 1 value, 2 task
    };
    std::vector<Item> items;
    for (auto &s : p.structs) items.push_back({s->loc, s.get(), 0});
    for (auto &v : p.values) items.push_back({v->loc, v.get(), 1});
    for (auto &t : p.tasks) items.push_back({t->loc, t.get(), 2});
    std::stable_sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
      return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
    });
    for (auto &item : items) {
      if (item.kind == 0) {
        auto &s = *static_cast<const StructDecl *>(item.decl);
        out_ << (s.is_union ? "union " : "struct ") << s.name << "\n";
        for (auto &f : s.fields) out_ << "  " << f.name << ": " << to_string(*f.type) << "\n";
      } else if (item.kind == 1) {
        auto &v = *static_cast<const ValueDecl *>(item.decl);
        out_ << "value " << v.name;
        if (v.type) out_ << ": " << to_string(*v.type);
        out_ << " = ";
        expr(*v.init, 0);
        out_ << "\n";
      } else {
        auto &t = *static_cast<const TaskDecl *>(item.decl);
        out_ << "task " << task_header(t) << "\n";
        stmts(t.body, 1);
      }
    }
  }

 private:
  void line_start(int indent) { out_ << std::string(size_t(indent) * 2, ' '); }

  void stmts(const StmtList &list, int indent) {
    for (auto &s : list) stmt(*s, indent);
  }

  void stmt(const Stmt &s, int indent) {
    line_start(indent);
    switch (s.kind) {
      case StmtKind::ExprStmt:
        out_ << "expr ";
        expr(*s.expr, indent);
        break;
      case StmtKind::Decl:
        out_ << "decl ";
        {
          // The declared variables, then those a pass declared (temps).
          std::vector<const VarDecl *> vars;
          for (auto &v : s.vars) vars.push_back(v.get());
          for (const VarDecl *v : s.temps) vars.push_back(v);
          for (size_t i = 0; i < vars.size(); ++i) out_ << (i ? ", " : "") << vars[i]->name;
          if (s.decl_type)
            out_ << ": " << to_string(*s.decl_type);
          else if (!vars.empty() && vars[0]->type)
            out_ << ": " << to_string(vars[0]->type);
        }
        if (s.expr) {
          out_ << " = ";
          expr(*s.expr, indent);
        }
        break;
      case StmtKind::Assign:
        out_ << "assign ";
        expr(*s.target, indent);
        out_ << " ";
        expr(*s.expr, indent);
        break;
      case StmtKind::Return:
        out_ << "return";
        if (s.expr) {
          out_ << " ";
          expr(*s.expr, indent);
        }
        break;
      case StmtKind::Then:
        out_ << "then\n";
        stmts(s.body, indent + 1);
        stmts(s.else_body, indent + 1);
        return;
      case StmtKind::Block:
        out_ << "block\n";
        stmts(s.body, indent + 1);
        return;
      case StmtKind::If:
        out_ << "if ";
        expr(*s.expr, indent);
        out_ << "\n";
        stmts(s.body, indent + 1);
        if (s.has_else) {
          line_start(indent);
          out_ << "else\n";
          stmts(s.else_body, indent + 1);
        }
        return;
      case StmtKind::Case:
        out_ << "case ";
        expr(*s.expr, indent);
        out_ << "\n";
        for (auto &b : s.branches) {
          line_start(indent + 1);
          if (b.field.empty())
            out_ << "default:\n";
          else
            out_ << b.field << " " << b.binder << ":\n";
          stmts(b.body, indent + 2);
        }
        return;
      case StmtKind::For:
      case StmtKind::Map:
        out_ << (s.kind == StmtKind::For ? "for " : "map ") << s.elem_var->name << " = ";
        expr(*s.expr, indent);
        if (s.index_var) out_ << " [" << s.index_var->name << "]";
        out_ << "\n";
        stmts(s.body, indent + 1);
        return;
      case StmtKind::While:
        out_ << "while ";
        expr(*s.expr, indent);
        out_ << "\n";
        stmts(s.body, indent + 1);
        return;
    }
    out_ << "\n";
  }

 public:
  // `indent` is that of the line the expression is on; an anonymous task's
  // body goes one level deeper.
  void expr(const Expr &e, int indent) {
    switch (e.kind) {
      case ExprKind::IntLit:
        out_ << e.int_value << (e.is_long ? "L" : "");
        return;
      case ExprKind::FloatLit:
        out_ << float_text(e);
        return;
      case ExprKind::BoolLit:
        out_ << (e.bool_value ? "true" : "false");
        return;
      case ExprKind::StringLit:
        out_ << quote(e.text);
        return;
      case ExprKind::Name:
        out_ << e.text;
        return;
      case ExprKind::Call:
        list("call", e, indent);
        return;
      case ExprKind::Unary:
        list(spelling(e.unop), e, indent);
        return;
      case ExprKind::Binary:
        list(spelling(e.binop), e, indent);
        return;
      case ExprKind::Field:
        out_ << "(. ";
        expr(*e.children[0], indent);
        out_ << " " << e.text << ")";
        return;
      case ExprKind::Index:
        list("index", e, indent);
        return;
      case ExprKind::Tuple:
        list("tuple", e, indent);
        return;
      case ExprKind::Range:
        list("range", e, indent);
        return;
      case ExprKind::Future:
        list("future", e, indent);
        return;
      case ExprKind::New:
        out_ << "(new " << to_string(*e.type_expr);
        for (auto &c : e.children) {
          out_ << " ";
          expr(*c, indent);
        }
        out_ << ")";
        return;
      case ExprKind::Construct:
        out_ << "(construct " << e.type_expr->name;
        for (auto &f : e.fields) {
          out_ << " (" << f.name << " ";
          expr(*f.value, indent);
          out_ << ")";
        }
        out_ << ")";
        return;
      case ExprKind::AnonTask:
        if (!e.anon) {  // lifted to the program's tasks (frontend/lift)
          out_ << "(task " << (e.task ? e.task->name : "?") << ")";
          return;
        }
        out_ << "(task " << task_header(*e.anon);
        for (auto &s : e.anon->body) {
          out_ << "\n";
          // stmt() ends its lines with "\n"; the closing paren goes on the
          // last one, so print into a buffer and trim.
          std::ostringstream body;
          Printer(body).stmt(*s, indent + 1);
          std::string text = body.str();
          if (!text.empty() && text.back() == '\n') text.pop_back();
          out_ << text;
        }
        out_ << ")";
        return;
    }
  }

 private:
  void list(const char *head, const Expr &e, int indent) {
    out_ << "(" << head;
    for (auto &c : e.children) {
      out_ << " ";
      expr(*c, indent);
    }
    out_ << ")";
  }

  std::ostream &out_;
};

}  // namespace

void dump(const Program &program, std::ostream &out) { Printer(out).program(program); }

std::string dump_text(const Expr &e) {
  std::ostringstream out;
  Printer(out).expr(e, 0);
  return out.str();
}

namespace {
TypeExprPtr clone_type(const TypeExpr &t) {
  auto c = std::make_unique<TypeExpr>();
  c->loc = t.loc;
  c->name = t.name;
  for (auto &a : t.args) c->args.push_back(clone_type(*a));
  return c;
}
}  // namespace

ExprPtr clone(const Expr &e) {
  auto c = std::make_unique<Expr>();
  c->kind = e.kind;
  c->loc = e.loc;
  c->type = e.type;
  c->int_value = e.int_value;
  c->is_long = e.is_long;
  c->fits_int = e.fits_int;
  c->float_value = e.float_value;
  c->is_float32 = e.is_float32;
  c->bool_value = e.bool_value;
  c->text = e.text;
  c->var = e.var;
  c->task = e.task;
  c->global = e.global;
  c->builtin = e.builtin;
  c->field = e.field;
  c->binop = e.binop;
  c->unop = e.unop;
  for (auto &child : e.children) c->children.push_back(child ? clone(*child) : nullptr);
  c->null_names = e.null_names;
  if (e.type_expr) c->type_expr = clone_type(*e.type_expr);
  for (auto &f : e.fields) c->fields.push_back({f.loc, f.name, clone(*f.value)});
  return c;
}

void Visitor::visit(const Expr &e) {
  for (auto &c : e.children)
    if (c) visit(*c);
  for (auto &f : e.fields)
    if (f.value) visit(*f.value);
}

void Visitor::visit(const Stmt &s) {
  if (s.target) visit(*s.target);
  if (s.expr) visit(*s.expr);
  visit(s.body);
  visit(s.else_body);
  for (auto &b : s.branches) visit(b.body);
}

void Visitor::visit(const StmtList &list) {
  for (auto &s : list) visit(*s);
}

void Mutator::visit(ExprPtr &e) {
  if (!e) return;
  for (auto &c : e->children) visit(c);
  for (auto &f : e->fields) visit(f.value);
}

void Mutator::visit(Stmt &s) {
  visit(s.target);
  visit(s.expr);
  visit(s.body);
  visit(s.else_body);
  for (auto &b : s.branches) visit(b.body);
}

void Mutator::visit(StmtList &list) {
  for (auto &s : list) visit(*s);
}

namespace {
class EachExpr : public Visitor {
 public:
  explicit EachExpr(const std::function<void(const Expr &)> &fn) : fn_(fn) {}
  using Visitor::visit;
  void visit(const Expr &e) override {
    fn_(e);
    Visitor::visit(e);
  }

 private:
  const std::function<void(const Expr &)> &fn_;
};
}  // namespace

void for_each_expr(const Expr &e, const std::function<void(const Expr &)> &fn) {
  EachExpr(fn).visit(e);
}

void for_each_expr(const StmtList &list, const std::function<void(const Expr &)> &fn) {
  EachExpr(fn).visit(list);
}

namespace {
struct EachRewrite : Mutator {
  explicit EachRewrite(const std::function<void(ExprPtr &)> &f) : fn(f) {}
  using Mutator::visit;
  void visit(ExprPtr &e) override {
    if (!e) return;
    Mutator::visit(e);
    fn(e);
  }
  const std::function<void(ExprPtr &)> &fn;
};
}  // namespace

void rewrite_exprs(StmtList &list, const std::function<void(ExprPtr &)> &fn) {
  EachRewrite(fn).visit(list);
}

void rewrite_exprs(ExprPtr &e, const std::function<void(ExprPtr &)> &fn) {
  EachRewrite(fn).visit(e);
}

bool is_task_call(const Expr &e) { return e.kind == ExprKind::Call && e.children[0]->builtin < 0; }

bool contains_task_call(const Expr &e) {
  bool found = false;
  for_each_expr(e, [&](const Expr &x) { found = found || is_task_call(x); });
  return found;
}

std::vector<VarDecl *> declared_vars(const Stmt &s) {
  std::vector<VarDecl *> out;
  for (auto &v : s.vars) out.push_back(v.get());
  for (VarDecl *v : s.temps) out.push_back(v);
  return out;
}

std::vector<VarDecl *> bound_vars(const Stmt &s) {
  std::vector<VarDecl *> out = declared_vars(s);
  for (VarDecl *v : {s.elem_var.get(), s.index_var.get(), s.coll_var.get()})
    if (v) out.push_back(v);
  for (auto &b : s.branches)
    if (b.binder_var) out.push_back(b.binder_var);
  return out;
}

std::vector<StmtList *> nested_lists(Stmt &s) {
  std::vector<StmtList *> out;
  switch (s.kind) {
    case StmtKind::If:
    case StmtKind::Then:
      out = {&s.body, &s.else_body};
      break;
    case StmtKind::For:
    case StmtKind::Map:
    case StmtKind::While:
    case StmtKind::Block:
      out = {&s.body};
      break;
    case StmtKind::Case:
      for (auto &b : s.branches) out.push_back(&b.body);
      break;
    case StmtKind::ExprStmt:
    case StmtKind::Decl:
    case StmtKind::Assign:
    case StmtKind::Return:
      break;
  }
  return out;
}

VarDecl *new_temp(TaskDecl &task, const std::string &name, Type *type, SourceLoc loc) {
  auto v = std::make_unique<VarDecl>();
  v->loc = loc;
  v->name = name;
  v->type = type;
  v->is_temp = true;
  task.locals.push_back(std::move(v));
  return task.locals.back().get();
}

ExprPtr name_of(VarDecl *v, SourceLoc loc) {
  auto e = make_expr(ExprKind::Name, loc);
  e->text = v->name;
  e->var = v;
  e->type = v->type;
  return e;
}

StmtPtr decl_of(VarDecl *v, ExprPtr init, SourceLoc loc) {
  auto s = std::make_unique<Stmt>();
  s->kind = StmtKind::Decl;
  s->loc = loc;
  // The temporary is owned by the task; the statement refers to it through
  // an unowned alias so `vars` keeps its meaning for declarations.
  s->temps.push_back(v);
  s->expr = std::move(init);
  return s;
}

StmtPtr assign_of(VarDecl *v, ExprPtr rhs, SourceLoc loc) {
  auto s = std::make_unique<Stmt>();
  s->kind = StmtKind::Assign;
  s->loc = loc;
  s->target = name_of(v, loc);
  s->expr = std::move(rhs);
  return s;
}

}  // namespace kite::ast
