#include "ir/anf.h"

namespace kite {

using namespace ast;

bool is_task_call(const Expr &e) {
  return e.kind == ExprKind::Call && e.children[0]->task != nullptr;
}

bool contains_task_call(const Expr &e) {
  if (is_task_call(e)) return true;
  for (auto &c : e.children)
    if (c && contains_task_call(*c)) return true;
  return false;
}

namespace {

void flatten_blocks(StmtList &list) {
  StmtList out;
  for (auto &s : list) {
    if (s->kind == StmtKind::Block) {
      flatten_blocks(s->body);
      for (auto &inner : s->body) out.push_back(std::move(inner));
      continue;
    }
    if (s->kind == StmtKind::If) {
      flatten_blocks(s->body);
      flatten_blocks(s->else_body);
    }
    out.push_back(std::move(s));
  }
  list = std::move(out);
}

bool always_returns(const StmtList &list) {
  if (list.empty()) return false;
  const Stmt &last = *list.back();
  if (last.kind == StmtKind::Return) return true;
  return last.kind == StmtKind::If && last.has_else && always_returns(last.body) &&
         always_returns(last.else_body);
}

const Stmt *find_return(const StmtList &list) {
  for (auto &s : list) {
    if (s->kind == StmtKind::Return) return s.get();
    if (s->kind == StmtKind::If) {
      if (const Stmt *r = find_return(s->body)) return r;
      if (const Stmt *r = find_return(s->else_body)) return r;
    }
  }
  return nullptr;
}

// Moves the statements after an `if` with a returning branch into the branch
// that does not always return.
void lift_returns(StmtList &list, Diagnostics &diags) {
  for (size_t i = 0; i < list.size(); ++i) {
    Stmt &s = *list[i];
    if (s.kind != StmtKind::If) continue;
    const Stmt *ret = find_return(s.body);
    if (!ret) ret = find_return(s.else_body);
    if (ret && i + 1 < list.size()) {
      bool then_returns = always_returns(s.body);
      bool else_returns = always_returns(s.else_body);
      StmtList tail;
      for (size_t j = i + 1; j < list.size(); ++j) tail.push_back(std::move(list[j]));
      list.resize(i + 1);
      StmtList *into = nullptr;
      if (then_returns && !else_returns) into = &s.else_body;
      if (else_returns && !then_returns) into = &s.body;
      if (!into) {
        diags.error(ret->loc,
                    "a 'return' on only some paths through both branches of an 'if' that is "
                    "followed by more statements is not supported yet");
        return;
      }
      s.has_else = true;
      for (auto &t : tail) into->push_back(std::move(t));
    }
    lift_returns(s.body, diags);
    lift_returns(s.else_body, diags);
  }
}

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
    auto v = std::make_unique<VarDecl>();
    v->loc = loc;
    v->name = "_t" + std::to_string(++counter_);
    v->type = type;
    v->is_temp = true;
    task_.locals.push_back(std::move(v));
    return task_.locals.back().get();
  }

  static ExprPtr name_of(VarDecl *v, SourceLoc loc) {
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::Name;
    e->loc = loc;
    e->text = v->name;
    e->var = v;
    e->type = v->type;
    return e;
  }

  static StmtPtr decl_of(VarDecl *v, ExprPtr init, SourceLoc loc) {
    auto s = std::make_unique<Stmt>();
    s->kind = StmtKind::Decl;
    s->loc = loc;
    // The temporary is owned by the task; the statement refers to it through
    // an unowned alias so `vars` keeps its meaning for declarations.
    s->temps.push_back(v);
    s->expr = std::move(init);
    return s;
  }

  static StmtPtr assign_of(VarDecl *v, ExprPtr rhs, SourceLoc loc) {
    auto s = std::make_unique<Stmt>();
    s->kind = StmtKind::Assign;
    s->loc = loc;
    s->target = name_of(v, loc);
    s->expr = std::move(rhs);
    return s;
  }

  // Args of a task call must be free of task calls.
  void atomize_args(Expr &call, StmtList &out) {
    for (size_t i = 1; i < call.children.size(); ++i)
      call.children[i] = atomize(std::move(call.children[i]), out);
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
    if (e->kind == ExprKind::Binary && (e->binop == BinaryOp::And || e->binop == BinaryOp::Or) &&
        contains_task_call(*e->children[1])) {
      // Short-circuit: the right operand's calls run only when needed.
      SourceLoc loc = e->loc;
      VarDecl *t = temp(types_.bool_t(), loc);
      out.push_back(decl_of(t, atomize(std::move(e->children[0]), out), loc));
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
      ExprPtr rhs = atomize(std::move(e->children[1]), branch->body);
      branch->body.push_back(assign_of(t, std::move(rhs), loc));
      out.push_back(std::move(branch));
      return name_of(t, loc);
    }
    for (auto &c : e->children)
      if (c) c = atomize(std::move(c), out);
    return e;
  }

  void rewrite(StmtPtr s, StmtList &out) {
    switch (s->kind) {
      case StmtKind::ExprStmt:
        if (is_task_call(*s->expr)) atomize_args(*s->expr, out);
        else s->expr = atomize(std::move(s->expr), out);
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
        if (s->expr) s->expr = atomize(std::move(s->expr), out);
        break;
      case StmtKind::Assign:
        if (is_task_call(*s->expr)) atomize_args(*s->expr, out);
        else s->expr = atomize(std::move(s->expr), out);
        break;
      case StmtKind::Return:
        if (s->expr) s->expr = atomize(std::move(s->expr), out);
        break;
      case StmtKind::If:
        s->expr = atomize(std::move(s->expr), out);
        rewrite_list(s->body);
        rewrite_list(s->else_body);
        break;
      default: break;  // the checker rejected the rest
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
    lift_returns(t->body, diags);
  }
  diags.check_no_errors();
  for (auto &t : program.tasks) Anf(*t, types).rewrite_list(t->body);
}

}  // namespace kite
