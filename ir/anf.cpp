// ANF: block flattening, return motion, then one task call per statement.
#include "ir/anf.h"

#include <algorithm>

namespace kite {

using namespace ast;

// The statement lists nested in s: branches, loop bodies, then's two sides.
std::vector<StmtList *> nested_lists(Stmt &s) {
  std::vector<StmtList *> out;
  switch (s.kind) {
    case StmtKind::If:
    case StmtKind::Then: out = {&s.body, &s.else_body}; break;
    case StmtKind::For:
    case StmtKind::Map:
    case StmtKind::While:
    case StmtKind::Block: out = {&s.body}; break;
    case StmtKind::Case:
      for (auto &b : s.branches) out.push_back(&b.body);
      break;
    case StmtKind::ExprStmt:
    case StmtKind::Decl:
    case StmtKind::Assign:
    case StmtKind::Return: break;
  }
  return out;
}

namespace {

void flatten_blocks(StmtList &list) {
  StmtList out;
  for (auto &s : list) {
    for (StmtList *inner : nested_lists(*s)) flatten_blocks(*inner);
    if (s->kind == StmtKind::Block) {
      for (auto &inner : s->body) out.push_back(std::move(inner));
      continue;
    }
    out.push_back(std::move(s));
  }
  list = std::move(out);
}

bool always_returns(const StmtList &list);

bool stmt_always_returns(const Stmt &s) {
  switch (s.kind) {
    case StmtKind::Return: return true;
    case StmtKind::If:
      return s.has_else && always_returns(s.body) && always_returns(s.else_body);
    case StmtKind::Then: return always_returns(s.body) || always_returns(s.else_body);
    case StmtKind::Case: {
      // The checker made the branches exhaustive (or rejected the program).
      for (auto &b : s.branches)
        if (!always_returns(b.body)) return false;
      return !s.branches.empty();
    }
    case StmtKind::ExprStmt:
    case StmtKind::Decl:
    case StmtKind::Assign:
    case StmtKind::Block:  // flattened before this runs
    case StmtKind::For:
    case StmtKind::Map:
    case StmtKind::While: return false;
  }
  return false;
}

bool always_returns(const StmtList &list) {
  return !list.empty() && stmt_always_returns(*list.back());
}

const Stmt *find_return(StmtList &list) {
  for (auto &s : list) {
    if (s->kind == StmtKind::Return) return s.get();
    for (StmtList *inner : nested_lists(*s))
      if (const Stmt *r = find_return(*inner)) return r;
  }
  return nullptr;
}

// Moves the statements after an `if` or `case` with a returning branch into
// the one branch that does not always return. Returns false where a
// statement returns on some paths and more than one path goes on (the
// moves made so far keep the program's meaning).
bool lift_returns(StmtList &list) {
  bool ok = true;
  for (size_t i = 0; i < list.size(); ++i) {
    Stmt &s = *list[i];
    if (s.kind != StmtKind::If && s.kind != StmtKind::Case && s.kind != StmtKind::Then) continue;
    std::vector<StmtList *> branches = nested_lists(s);
    const Stmt *ret = nullptr;
    for (StmtList *b : branches)
      if (!ret) ret = find_return(*b);
    if (ret && i + 1 < list.size()) {
      StmtList *into = nullptr;
      int open = 0;
      if (s.kind == StmtKind::Then) {
        open = 2;  // a return inside `then` followed by more statements
      } else {
        for (StmtList *b : branches)
          if (!always_returns(*b)) into = b, ++open;
        // An `if` without else has an empty else branch that continues.
      }
      if (open != 1) return false;
      if (s.kind == StmtKind::If) s.has_else = true;
      for (size_t j = i + 1; j < list.size(); ++j) into->push_back(std::move(list[j]));
      list.resize(i + 1);
    }
    for (StmtList *b : branches) ok &= lift_returns(*b);
  }
  return ok;
}

// Building blocks of the statements these passes add.
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
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::Name;
  e->loc = loc;
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

// A task whose returns cannot all be lifted gets a flag instead: every
// `return e` becomes `_res <- e; _returned <- true`, the statements after
// anything that may have returned run under `if (!_returned)`, and the task
// ends with `return _res`. (Only such tasks: lifting keeps tail calls.)
class ReturnFlag {
 public:
  ReturnFlag(TaskDecl &task, TypeContext &types) : task_(task), types_(types) {}

  void run() {
    SourceLoc loc = task_.loc;
    returned_ = new_temp(task_, "_returned", types_.bool_t(), loc);
    if (task_.result_type && task_.result_type->kind != TypeKind::Unit)
      result_ = new_temp(task_, "_res", task_.result_type, loc);
    guard(task_.body);
    StmtList body;
    body.push_back(decl_of(returned_, bool_lit(false, loc), loc));
    if (result_) body.push_back(decl_of(result_, nullptr, loc));
    for (auto &st : task_.body) body.push_back(std::move(st));
    if (result_) {
      auto r = std::make_unique<Stmt>();
      r->kind = StmtKind::Return;
      r->loc = loc;
      r->expr = name_of(result_, loc);
      body.push_back(std::move(r));
    }
    task_.body = std::move(body);
  }

 private:
  // Rewrites the returns of list; true if running it may have returned.
  bool guard(StmtList &list) {
    StmtList out;
    bool may = false;
    for (size_t i = 0; i < list.size(); ++i) {
      StmtPtr st = std::move(list[i]);
      bool returns = false;
      if (st->kind == StmtKind::Return) {
        SourceLoc loc = st->loc;
        if (result_) out.push_back(assign_of(result_, std::move(st->expr), loc));
        out.push_back(assign_of(returned_, bool_lit(true, loc), loc));
        returns = true;
      } else {
        if (st->kind == StmtKind::Then) {
          // The second side runs only if the first did not return.
          bool first = guard(st->body);
          bool second = guard(st->else_body);
          if (first) st->else_body = unless_returned(std::move(st->else_body), st->loc);
          returns = first || second;
        } else if (st->kind == StmtKind::If || st->kind == StmtKind::Case) {
          for (StmtList *b : nested_lists(*st)) returns |= guard(*b);
        }
        out.push_back(std::move(st));
      }
      if (returns && i + 1 < list.size()) {
        // The rest of the list, only if nothing returned.
        StmtList rest;
        for (size_t j = i + 1; j < list.size(); ++j) rest.push_back(std::move(list[j]));
        guard(rest);
        SourceLoc loc = rest.front()->loc;
        StmtList guarded = unless_returned(std::move(rest), loc);
        for (auto &g : guarded) out.push_back(std::move(g));
        may = true;
        break;
      }
      may |= returns;
    }
    list = std::move(out);
    return may;
  }

  StmtList unless_returned(StmtList body, SourceLoc loc) {
    auto not_returned = std::make_unique<Expr>();
    not_returned->kind = ExprKind::Unary;
    not_returned->unop = UnaryOp::Not;
    not_returned->loc = loc;
    not_returned->type = types_.bool_t();
    not_returned->children.push_back(name_of(returned_, loc));
    auto branch = std::make_unique<Stmt>();
    branch->kind = StmtKind::If;
    branch->loc = loc;
    branch->expr = std::move(not_returned);
    branch->body = std::move(body);
    StmtList out;
    out.push_back(std::move(branch));
    return out;
  }

  ExprPtr bool_lit(bool value, SourceLoc loc) {
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::BoolLit;
    e->loc = loc;
    e->bool_value = value;
    e->type = types_.bool_t();
    return e;
  }

  TaskDecl &task_;
  TypeContext &types_;
  VarDecl *returned_ = nullptr;
  VarDecl *result_ = nullptr;
};

class Anf {
 public:
  Anf(TaskDecl &task, TypeContext &types) : task_(task), types_(types) {}

  void rewrite_list(StmtList &list) {
    StmtList out;
    for (auto &s : list) rewrite(std::move(s), out);
    list = std::move(out);
  }

 private:
  VarDecl *temp(Type *type, SourceLoc loc) {
    return new_temp(task_, "_t" + std::to_string(++counter_), type, loc);
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
      if (e->children[i] && !(lazy && i == 1)) e->children[i] = shallow(std::move(e->children[i]), out);
    for (auto &f : e->fields) f.value = shallow(std::move(f.value), out);
    if (lazy && height(*e->children[1]) >= kMaxExprHeight) return conditional_rhs(std::move(e), out);
    if (height(*e) <= kMaxExprHeight) return e;
    auto bind = [&](ExprPtr &c) {
      if (!c || height(*c) < kMaxExprHeight) return;
      VarDecl *t = temp(c->type->forced(), c->loc);
      SourceLoc loc = c->loc;
      out.push_back(decl_of(t, std::move(c), loc));
      c = name_of(t, loc);
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
    out.push_back(decl_of(t, flat(std::move(e->children[0]), out), loc));
    auto branch = std::make_unique<Stmt>();
    branch->kind = StmtKind::If;
    branch->loc = loc;
    ExprPtr cond = name_of(t, loc);
    if (e->binop == BinaryOp::Or) {
      auto neg = std::make_unique<Expr>();
      neg->kind = ExprKind::Unary;
      neg->unop = UnaryOp::Not;
      neg->loc = loc;
      neg->type = types_.bool_t();
      neg->children.push_back(std::move(cond));
      cond = std::move(neg);
    }
    branch->expr = std::move(cond);
    ExprPtr rhs = flat(std::move(e->children[1]), branch->body);
    branch->body.push_back(assign_of(t, std::move(rhs), loc));
    out.push_back(std::move(branch));
    return name_of(t, loc);
  }

  // Returns an expression with no task call, computing the calls in e into
  // fresh variables by statements appended to out.
  ExprPtr atomize(ExprPtr e, StmtList &out) {
    if (!contains_task_call(*e)) return e;
    if (is_task_call(*e)) {
      atomize_args(*e, out);
      VarDecl *t = temp(e->type->forced(), e->loc);
      out.push_back(decl_of(t, nullptr, e->loc));
      out.push_back(assign_of(t, std::move(e), t->loc));
      return name_of(t, t->loc);
    }
    // Short-circuit: the right operand's calls run only when needed.
    if (short_circuit(*e) && contains_task_call(*e->children[1])) return conditional_rhs(std::move(e), out);
    for (auto &c : e->children)
      if (c) c = atomize(std::move(c), out);
    for (auto &f : e->fields) f.value = atomize(std::move(f.value), out);
    return e;
  }

  void rewrite(StmtPtr s, StmtList &out) {
    switch (s->kind) {
      case StmtKind::ExprStmt:
        if (is_task_call(*s->expr)) atomize_args(*s->expr, out);
        else s->expr = flat(std::move(s->expr), out);
        break;
      case StmtKind::Decl:
        if (s->expr && is_task_call(*s->expr)) {
          // x: t = f(a)  =>  x: t;  x <- f(a);
          atomize_args(*s->expr, out);
          ExprPtr call = std::move(s->expr);
          VarDecl *v = s->vars[0].get();
          SourceLoc loc = s->loc;
          out.push_back(std::move(s));
          out.push_back(assign_of(v, std::move(call), loc));
          return;
        }
        if (s->expr) s->expr = flat(std::move(s->expr), out);
        break;
      case StmtKind::Assign: {
        // A call's result goes into a plain variable; `a[i] <- f(x)` and a
        // loop's element alias receive it through a fresh one.
        Expr &target = *s->target;
        bool plain = target.kind == ExprKind::Name && target.var && !target.var->alias_of;
        if (is_task_call(*s->expr) && plain) {
          atomize_args(*s->expr, out);
          break;
        }
        s->expr = flat(std::move(s->expr), out);
        for (auto &c : target.children) c = flat(std::move(c), out);
        break;
      }
      case StmtKind::Return:
        if (s->expr) s->expr = flat(std::move(s->expr), out);
        break;
      case StmtKind::If:
      case StmtKind::Case:
      case StmtKind::For:
      case StmtKind::Map:
        s->expr = flat(std::move(s->expr), out);
        for (StmtList *inner : nested_lists(*s)) rewrite_list(*inner);
        break;
      case StmtKind::Then:
        for (StmtList *inner : nested_lists(*s)) rewrite_list(*inner);
        break;
      case StmtKind::While: {
        StmtList before;
        ExprPtr again = clone(*s->expr);
        ExprPtr cond = flat(std::move(s->expr), before);
        if (before.empty()) {
          s->expr = std::move(cond);
        } else {
          // A condition that needs statements of its own (task calls, or
          // too tall) is computed into a variable before the loop and again
          // at the end of every iteration: `c = e; while (c) { ...; c <- e }`.
          SourceLoc loc = again->loc;
          VarDecl *c = temp(types_.bool_t(), loc);
          for (auto &b : before) out.push_back(std::move(b));
          out.push_back(decl_of(c, std::move(cond), loc));
          s->body.push_back(assign_of(c, std::move(again), loc));
          s->expr = name_of(c, loc);
        }
        rewrite_list(s->body);
        break;
      }
      case StmtKind::Block: break;  // flattened before this runs
    }
    out.push_back(std::move(s));
  }

  TaskDecl &task_;
  TypeContext &types_;
  int counter_ = 0;
};

}  // namespace

void to_anf(Program &program, TypeContext &types, Diagnostics &diags) {
  for (auto &t : program.tasks) {
    flatten_blocks(t->body);
    if (!lift_returns(t->body)) ReturnFlag(*t, types).run();
  }
  diags.check_no_errors();
  for (auto &t : program.tasks) Anf(*t, types).rewrite_list(t->body);
}

}  // namespace kite
