// ANF: the checked AST's tasks as ANF statements, one task call per
// statement (anf.h).
#include "ir/anf.h"

#include <algorithm>
#include <ostream>

namespace kite::anf {

namespace {

using ast::BinaryOp;
using ast::UnaryOp;

class Anf {
 public:
  Anf(Task &task, TypeContext &types) : task_(task), types_(types) {}

  StmtList convert_list(ast::StmtList &list) {
    StmtList out;
    for (auto &s : list) convert(std::move(s), out);
    return out;
  }

 private:
  VarDecl *temp(Type *type, SourceLoc loc) {
    return ast::new_temp(*task_.decl, "_t" + std::to_string(++counter_), type, loc);
  }

  static StmtPtr stmt(StmtKind kind, SourceLoc loc) {
    auto s = std::make_unique<Stmt>();
    s->kind = kind;
    s->loc = loc;
    return s;
  }

  // `v: t = init;` (init may be null).
  static StmtPtr let(VarDecl *v, ExprPtr init, SourceLoc loc) {
    StmtPtr s = stmt(StmtKind::Let, loc);
    s->vars.push_back(v);
    s->expr = std::move(init);
    return s;
  }

  // `v <- e;`: a Call when e is a task call (with call-free arguments).
  static StmtPtr assign(VarDecl *v, ExprPtr e, SourceLoc loc) {
    StmtPtr s = stmt(ast::is_task_call(*e) ? StmtKind::Call : StmtKind::Set, loc);
    s->target = ast::name_of(v, loc);
    s->expr = std::move(e);
    return s;
  }

  // The callee and args of a task call must be free of task calls.
  void atomize_args(Expr &call, StmtList &out) {
    for (size_t i = 0; i < call.children.size(); ++i)
      call.children[i] = flat(std::move(call.children[i]), out);
  }

  // e with its task calls computed first (ANF) and no taller than
  // kMaxExprHeight.
  ExprPtr flat(ExprPtr e, StmtList &out) { return shallow(atomize(std::move(e), out), out); }

  // Expressions at most this tall reach code generation: OpenCL compilers
  // limit the nesting of brackets (clang: 256), and each level of a Kite
  // expression costs two or three of them in the generated C.
  static constexpr int kMaxExprHeight = 24;

  static int height(const Expr &e) {
    int h = 0;
    for (auto &c : e.children)
      if (c) h = std::max(h, height(*c));
    for (auto &f : e.fields) h = std::max(h, height(*f.value));
    return h + 1;
  }

  static bool short_circuit(const Expr &e) {
    return e.kind == ExprKind::Binary && (e.binop == BinaryOp::And || e.binop == BinaryOp::Or);
  }

  // Returns e (free of task calls) cut down to kMaxExprHeight: parts of it
  // that are always evaluated go into fresh variables by statements appended
  // to out; a tall right operand of && or || (evaluated only when needed)
  // moves into an `if`, as a call there would.
  ExprPtr shallow(ExprPtr e, StmtList &out) {
    bool lazy = short_circuit(*e);
    for (size_t i = 0; i < e->children.size(); ++i)
      if (e->children[i] && !(lazy && i == 1))
        e->children[i] = shallow(std::move(e->children[i]), out);
    for (auto &f : e->fields) f.value = shallow(std::move(f.value), out);
    if (lazy && height(*e->children[1]) >= kMaxExprHeight)
      return conditional_rhs(std::move(e), out);
    if (height(*e) <= kMaxExprHeight) return e;
    auto bind = [&](ExprPtr &c) {
      if (!c || height(*c) < kMaxExprHeight) return;
      VarDecl *t = temp(c->type->forced(), c->loc);
      SourceLoc loc = c->loc;
      out.push_back(let(t, std::move(c), loc));
      c = ast::name_of(t, loc);
    };
    for (auto &c : e->children) bind(c);
    for (auto &f : e->fields) bind(f.value);
    return e;
  }

  // `a && b` as `t = a; if (t) { t <- b; }` (`||`: if (!t)), b's statements
  // inside the `if`: b runs only when a does not decide.
  ExprPtr conditional_rhs(ExprPtr e, StmtList &out) {
    SourceLoc loc = e->loc;
    VarDecl *t = temp(types_.bool_t(), loc);
    out.push_back(let(t, flat(std::move(e->children[0]), out), loc));
    StmtPtr branch = stmt(StmtKind::If, loc);
    ExprPtr cond = ast::name_of(t, loc);
    if (e->binop == BinaryOp::Or) {
      auto neg = ast::make_expr(ExprKind::Unary, loc);
      neg->unop = UnaryOp::Not;
      neg->type = types_.bool_t();
      neg->children.push_back(std::move(cond));
      cond = std::move(neg);
    }
    branch->expr = std::move(cond);
    ExprPtr rhs = flat(std::move(e->children[1]), branch->body);
    branch->body.push_back(assign(t, std::move(rhs), loc));
    out.push_back(std::move(branch));
    return ast::name_of(t, loc);
  }

  // Returns an expression with no task call, computing the calls in e into
  // fresh variables by statements appended to out.
  ExprPtr atomize(ExprPtr e, StmtList &out) {
    if (!ast::contains_task_call(*e)) return e;
    if (ast::is_task_call(*e)) {
      atomize_args(*e, out);
      VarDecl *t = temp(e->type->forced(), e->loc);
      out.push_back(let(t, nullptr, e->loc));
      out.push_back(assign(t, std::move(e), t->loc));
      return ast::name_of(t, t->loc);
    }
    // Short-circuit: the right operand's calls run only when needed.
    if (short_circuit(*e) && ast::contains_task_call(*e->children[1]))
      return conditional_rhs(std::move(e), out);
    for (auto &c : e->children)
      if (c) c = atomize(std::move(c), out);
    for (auto &f : e->fields) f.value = atomize(std::move(f.value), out);
    return e;
  }

  // The AST variables a statement owns become the task's.
  VarDecl *own(std::unique_ptr<VarDecl> v) {
    task_.owned.push_back(std::move(v));
    return task_.owned.back().get();
  }

  void convert(ast::StmtPtr s, StmtList &out) {
    using K = ast::StmtKind;
    StmtPtr a;
    switch (s->kind) {
      case K::ExprStmt:
        if (ast::is_task_call(*s->expr)) {
          atomize_args(*s->expr, out);
          a = stmt(StmtKind::Call, s->loc);
          a->expr = std::move(s->expr);
        } else {
          a = stmt(StmtKind::Do, s->loc);
          a->expr = flat(std::move(s->expr), out);
        }
        break;
      case K::Decl: {
        a = stmt(StmtKind::Let, s->loc);
        for (auto &v : s->vars) a->vars.push_back(own(std::move(v)));
        for (VarDecl *v : s->temps) a->vars.push_back(v);
        if (s->expr && ast::is_task_call(*s->expr)) {
          // x: t = f(a)  =>  x: t;  x <- f(a);
          atomize_args(*s->expr, out);
          VarDecl *v = a->vars[0];
          out.push_back(std::move(a));
          out.push_back(assign(v, std::move(s->expr), s->loc));
          return;
        }
        if (s->expr) a->expr = flat(std::move(s->expr), out);
        break;
      }
      case K::Assign: {
        // A call's result goes into a plain variable; `a[i] <- f(x)` and a
        // loop's element alias receive it through a fresh one.
        Expr &target = *s->target;
        bool plain = target.kind == ExprKind::Name && target.var && !target.var->alias_of;
        if (ast::is_task_call(*s->expr) && plain) {
          atomize_args(*s->expr, out);
          a = stmt(StmtKind::Call, s->loc);
        } else {
          a = stmt(StmtKind::Set, s->loc);
          s->expr = flat(std::move(s->expr), out);
          for (auto &c : target.children) c = flat(std::move(c), out);
        }
        a->expr = std::move(s->expr);
        a->target = std::move(s->target);
        break;
      }
      case K::Return:
        a = stmt(StmtKind::Return, s->loc);
        if (s->expr) a->expr = flat(std::move(s->expr), out);
        break;
      case K::If:
        a = stmt(StmtKind::If, s->loc);
        a->expr = flat(std::move(s->expr), out);
        a->body = convert_list(s->body);
        a->else_body = convert_list(s->else_body);
        a->has_else = s->has_else;
        break;
      case K::Case:
        a = stmt(StmtKind::Case, s->loc);
        a->expr = flat(std::move(s->expr), out);
        a->null_name = s->null_name;
        for (ast::CaseBranch &b : s->branches)
          a->branches.push_back(
              {b.loc, b.field, b.binder_var, b.field_index, convert_list(b.body)});
        break;
      case K::Then:
        a = stmt(StmtKind::Then, s->loc);
        a->body = convert_list(s->body);
        a->else_body = convert_list(s->else_body);
        break;
      case K::For:
      case K::Map:
        a = stmt(s->kind == K::For ? StmtKind::For : StmtKind::Map, s->loc);
        a->expr = flat(std::move(s->expr), out);
        a->body = convert_list(s->body);
        a->elem_var = own(std::move(s->elem_var));
        a->index_var = own(std::move(s->index_var));
        a->coll_var = own(std::move(s->coll_var));
        // The AST's loop goes away: anf::Task::loop_of says whose element
        // a variable is from here on.
        a->elem_var->alias_of = nullptr;
        break;
      case K::While: {
        a = stmt(StmtKind::While, s->loc);
        StmtList before;
        ExprPtr again = ast::clone(*s->expr);
        ExprPtr cond = flat(std::move(s->expr), before);
        if (before.empty()) {
          a->expr = std::move(cond);
        } else {
          // A condition that needs statements of its own (task calls, or
          // too tall) is computed into a variable before the loop and again
          // at the end of every iteration: `c = e; while (c) { ...; c <- e }`.
          SourceLoc loc = again->loc;
          VarDecl *c = temp(types_.bool_t(), loc);
          for (auto &b : before) out.push_back(std::move(b));
          out.push_back(let(c, std::move(cond), loc));
          s->body.push_back(ast::assign_of(c, std::move(again), loc));
          a->expr = ast::name_of(c, loc);
        }
        a->body = convert_list(s->body);
        break;
      }
      case K::Block:
        internal_error("ANF: a block is left (ir/returns flattens them)");
    }
    out.push_back(std::move(a));
  }

  Task &task_;
  TypeContext &types_;
  int counter_ = 0;
};

// Gives every variable of t an id: its index in t.vars.
class Numberer : public Visitor {
 public:
  explicit Numberer(Task &t) : t_(t) {
    for (VarDecl *v : t.decl->param_vars) number(v);
    if (t.decl->env) number(t.decl->env);
  }
  using Visitor::visit;
  void visit(const Expr &) override {}  // expressions bind nothing
  void visit(const Stmt &s) override {
    for (VarDecl *v : bound_vars(s)) number(v);
    if (s.elem_var) t_.loop_of[size_t(s.elem_var->id)] = &s;
    Visitor::visit(s);
  }

 private:
  void number(VarDecl *v) {
    v->id = int(t_.vars.size());
    t_.vars.push_back(v);
    t_.loop_of.push_back(nullptr);
  }
  Task &t_;
};

}  // namespace

Program to_anf(ast::Program &&program, TypeContext &types) {
  Program p;
  for (auto &decl : program.tasks) {
    Task t;
    t.decl = std::move(decl);
    ast::StmtList body = std::move(t.decl->body);
    t.decl->body.clear();
    t.body = Anf(t, types).convert_list(body);
    Numberer(t).visit(t.body);
    p.tasks.push_back(std::move(t));
  }
  p.main = program.main->id;
  p.structs = std::move(program.structs);
  p.values = std::move(program.values);
  program.tasks.clear();
  return p;
}

const ast::StructDecl *Program::find_struct(const std::string &name) const {
  for (auto &s : structs)
    if (s->name == name) return s.get();
  return nullptr;
}

std::vector<VarDecl *> bound_vars(const Stmt &s) {
  std::vector<VarDecl *> out = s.vars;
  for (VarDecl *v : {s.coll_var, s.index_var, s.elem_var})
    if (v) out.push_back(v);
  for (const CaseBranch &b : s.branches)
    if (b.binder) out.push_back(b.binder);
  return out;
}

void Visitor::visit(const Stmt &s) {
  if (s.target) visit(*s.target);
  if (s.expr) visit(*s.expr);
  visit(s.body);
  visit(s.else_body);
  for (const CaseBranch &b : s.branches) visit(b.body);
}

void Visitor::visit(const StmtList &list) {
  for (auto &s : list) visit(*s);
}

void for_each_stmt(const StmtList &list, const std::function<void(const Stmt &)> &fn) {
  struct Each : Visitor {
    explicit Each(const std::function<void(const Stmt &)> &f) : fn(f) {}
    using Visitor::visit;
    void visit(const Stmt &s) override {
      fn(s);
      Visitor::visit(s);
    }
    const std::function<void(const Stmt &)> &fn;
  };
  Each(fn).visit(list);
}

std::vector<int> called_tasks(const StmtList &list) {
  std::vector<int> out;
  for_each_stmt(list, [&](const Stmt &s) {
    if (s.kind == StmtKind::Call && s.expr->children[0]->task)
      out.push_back(s.expr->children[0]->task->id);
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int> tasks_of_type(const Program &prog, const Type *type) {
  std::vector<int> out;
  for (const Task &t : prog.tasks)
    if (t.decl->type == type) out.push_back(t.decl->id);
  return out;
}

std::vector<int> reachable_calls(const Program &prog, const StmtList &list) {
  std::vector<int> out;
  for_each_stmt(list, [&](const Stmt &s) {
    if (s.kind != StmtKind::Call) return;
    const ast::Expr &callee = *s.expr->children[0];
    if (callee.kind == ast::ExprKind::Name && callee.task) {
      out.push_back(callee.task->id);
      return;
    }
    for (int t : tasks_of_type(prog, callee.type->forced())) out.push_back(t);
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool calls_any(const StmtList &list) {
  bool any = false;
  for_each_stmt(list, [&](const Stmt &s) { any = any || s.kind == StmtKind::Call; });
  return any;
}

void for_each_expr(const StmtList &list, const std::function<void(const Expr &)> &fn) {
  struct Each : Visitor {
    explicit Each(const std::function<void(const Expr &)> &f) : fn(f) {}
    using Visitor::visit;
    void visit(const Expr &e) override {
      fn(e);
      Visitor::visit(e);
    }
    const std::function<void(const Expr &)> &fn;
  };
  Each(fn).visit(list);
}

std::string to_kite(const Stmt &s) {
  using ast::to_kite;
  switch (s.kind) {
    case StmtKind::Do:
      return to_kite(*s.expr);
    case StmtKind::Let: {
      std::string names;
      Type *type = nullptr;
      for (VarDecl *v : s.vars) {
        names += (names.empty() ? "" : ", ") + v->name;
        type = v->type;
      }
      std::string t = type ? ": " + to_string(type) : "";
      return names + t + (s.expr ? " = " + to_kite(*s.expr) : "");
    }
    case StmtKind::Set:
      return to_kite(*s.target) + " <- " + to_kite(*s.expr);
    case StmtKind::Call:
      return s.target ? to_kite(*s.target) + " <- " + to_kite(*s.expr) : to_kite(*s.expr);
    case StmtKind::Return:
      return s.expr ? "return " + to_kite(*s.expr) : "return";
    case StmtKind::If:
      return "if (" + to_kite(*s.expr) + ")";
    case StmtKind::Case:
      return "case (" + to_kite(*s.expr) + ")";
    case StmtKind::Then:
      return "then";
    case StmtKind::While:
      return "while (" + to_kite(*s.expr) + ")";
    case StmtKind::For:
    case StmtKind::Map: {
      std::string index = !s.index_var->is_temp ? "[" + s.index_var->name + "]" : "";
      return std::string(s.kind == StmtKind::For ? "for" : "map") + " (" + s.elem_var->name +
             " = " + to_kite(*s.expr) + index + ")";
    }
  }
  return "<statement>";
}

namespace {

class Printer {
 public:
  explicit Printer(std::ostream &out) : out_(out) {}

  void task(const Task &t) {
    out_ << "task " << ast::task_header(*t.decl) << "\n";
    stmts(t.body, 1);
  }

 private:
  void stmts(const StmtList &list, int indent) {
    for (auto &s : list) stmt(*s, indent);
  }

  void stmt(const Stmt &s, int indent) {
    std::string pad(size_t(indent) * 2, ' ');
    out_ << pad;
    switch (s.kind) {
      case StmtKind::Let:
        out_ << "let ";
        for (size_t i = 0; i < s.vars.size(); ++i) out_ << (i ? ", " : "") << s.vars[i]->name;
        if (!s.vars.empty()) out_ << ": " << to_string(s.vars[0]->type);
        if (s.expr) out_ << " = " << expr(*s.expr);
        break;
      case StmtKind::Set:
        out_ << "set " << expr(*s.target) << " " << expr(*s.expr);
        break;
      case StmtKind::Do:
        out_ << "do " << expr(*s.expr);
        break;
      case StmtKind::Call:
        out_ << "call ";
        if (s.target) out_ << expr(*s.target) << " <- ";
        // (f a b): the callee and the arguments.
        for (size_t i = 0; i < s.expr->children.size(); ++i)
          out_ << (i ? " " : "(") << expr(*s.expr->children[i]);
        out_ << ")";
        break;
      case StmtKind::Return:
        out_ << "return";
        if (s.expr) out_ << " " << expr(*s.expr);
        break;
      case StmtKind::If:
        out_ << "if " << expr(*s.expr) << "\n";
        stmts(s.body, indent + 1);
        if (s.has_else) {
          out_ << pad << "else\n";
          stmts(s.else_body, indent + 1);
        }
        return;
      case StmtKind::Case:
        out_ << "case " << expr(*s.expr) << "\n";
        for (const CaseBranch &b : s.branches) {
          out_ << pad << "  ";
          if (b.field.empty())
            out_ << "default:\n";
          else
            out_ << b.field << " " << (b.binder ? b.binder->name : "_") << ":\n";
          stmts(b.body, indent + 2);
        }
        return;
      case StmtKind::Then:
        out_ << "then\n";
        stmts(s.body, indent + 1);
        stmts(s.else_body, indent + 1);
        return;
      case StmtKind::For:
      case StmtKind::Map:
        out_ << (s.kind == StmtKind::For ? "for " : "map ") << s.elem_var->name << " = "
             << expr(*s.expr) << " [" << s.index_var->name << "]\n";
        stmts(s.body, indent + 1);
        return;
      case StmtKind::While:
        out_ << "while " << expr(*s.expr) << "\n";
        stmts(s.body, indent + 1);
        return;
    }
    out_ << "\n";
  }

  static std::string expr(const Expr &e) { return ast::dump_text(e); }

  std::ostream &out_;
};

}  // namespace

void dump(const Program &program, std::ostream &out) {
  for (auto &s : program.structs) {
    out << (s->is_union ? "union " : "struct ") << s->name << "\n";
    for (auto &f : s->fields) out << "  " << f.name << ": " << ast::to_string(*f.type) << "\n";
  }
  for (auto &v : program.values) {
    out << "value " << v->name;
    if (v->checked_type) out << ": " << to_string(v->checked_type);
    out << " = " << ast::dump_text(*v->init) << "\n";
  }
  for (const Task &t : program.tasks) Printer(out).task(t);
}

}  // namespace kite::anf
