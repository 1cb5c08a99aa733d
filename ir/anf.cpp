// ANF: one task call per statement (anf.h).
#include "ir/anf.h"

#include <algorithm>

namespace kite {

using namespace ast;

namespace {

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

void to_anf(Program &program, TypeContext &types) {
  for (auto &t : program.tasks) Anf(*t, types).rewrite_list(t->body);
}

}  // namespace kite
