#include "ir/reductions.h"

#include <map>
#include <set>

#include "frontend/check.h"

namespace kite::reductions {

using namespace ast;

const char *spelling(Fold f) {
  switch (f) {
    case Fold::Add: return "+";
    case Fold::Mul: return "*";
    case Fold::And: return "&";
    case Fold::Or: return "|";
    case Fold::Xor: return "^";
    case Fold::Min: return "min";
    case Fold::Max: return "max";
  }
  return "?";
}

std::string describe(const std::vector<Accumulator> &accs) {
  std::string s;
  for (const Accumulator &a : accs) s += (s.empty() ? "" : ", ") + a.var->name + ": " + spelling(a.fold);
  return s;
}

namespace {

class Finder {
 public:
  std::vector<Accumulator> run(const Stmt &loop) {
    declared_.insert(loop.index_var.get());
    declared_.insert(loop.elem_var.get());
    declared_.insert(loop.coll_var.get());
    if (!pure(*loop.expr)) return {};
    body(loop.body);
    if (!ok_ || order_.empty()) return {};
    std::vector<Accumulator> out;
    for (const VarDecl *v : order_) {
      if (read_.count(v)) return {};  // read outside its own updates
      Type *t = v->type->forced();
      if (!t->is_integer()) return {};
      out.push_back({v, fold_.at(v)});
    }
    return out;
  }

 private:
  void body(const StmtList &list) {
    for (auto &s : list) stmt(*s);
  }

  void stmt(const Stmt &s) {
    if (!ok_) return;
    for (auto &v : s.vars) declared_.insert(v.get());
    for (const VarDecl *v : s.temps) declared_.insert(v);
    switch (s.kind) {
      case StmtKind::ExprStmt:
      case StmtKind::Decl:
        if (s.expr && !pure(*s.expr)) ok_ = false;
        return;
      case StmtKind::Assign: assign(s); return;
      case StmtKind::Block: body(s.body); return;
      case StmtKind::If:
        if (!pure(*s.expr)) ok_ = false;
        body(s.body);
        body(s.else_body);
        return;
      case StmtKind::Case:
        if (!pure(*s.expr)) ok_ = false;
        for (auto &b : s.branches) {
          if (b.binder_var) declared_.insert(b.binder_var);
          body(b.body);
        }
        return;
      case StmtKind::For:
        declared_.insert(s.index_var.get());
        declared_.insert(s.elem_var.get());
        declared_.insert(s.coll_var.get());
        if (!pure(*s.expr)) ok_ = false;
        body(s.body);
        return;
      case StmtKind::While:
        if (!pure(*s.expr)) ok_ = false;
        body(s.body);
        return;
      // A return leaves the loop; a map or a `then` makes parallel work of
      // its own; neither belongs in a reduction's body.
      case StmtKind::Return:
      case StmtKind::Then:
      case StmtKind::Map: ok_ = false; return;
    }
    ok_ = false;
  }

  void assign(const Stmt &s) {
    const Expr &target = *s.target;
    if (target.kind != ExprKind::Name || !target.var || target.var->alias_of) {
      ok_ = false;  // an array element, a field or the loop's element: a write to memory
      return;
    }
    const VarDecl *v = target.var;
    if (declared_.count(v)) {  // a variable of one iteration
      if (!pure(*s.expr)) ok_ = false;
      return;
    }
    // An accumulator: s <- s op e, s <- e op s (op commutative), or
    // s <- min(s, e) and the like.
    const Expr &e = *s.expr;
    Fold fold;
    const Expr *other = nullptr;
    if (e.kind == ExprKind::Binary && fold_of(e.binop, &fold)) {
      if (is_var(*e.children[0], v)) other = e.children[1].get();
      else if (e.binop != BinaryOp::Sub && is_var(*e.children[1], v)) other = e.children[0].get();
    } else if (e.kind == ExprKind::Call && e.children.size() == 3 &&
               (e.children[0]->builtin == int(Builtin::min_) ||
                e.children[0]->builtin == int(Builtin::max_))) {
      fold = e.children[0]->builtin == int(Builtin::min_) ? Fold::Min : Fold::Max;
      if (is_var(*e.children[1], v)) other = e.children[2].get();
      else if (is_var(*e.children[2], v)) other = e.children[1].get();
    }
    if (!other || !pure(*other)) {
      ok_ = false;
      return;
    }
    auto [it, fresh] = fold_.emplace(v, fold);
    if (fresh) order_.push_back(v);
    else if (it->second != fold) ok_ = false;
  }

  static bool fold_of(BinaryOp op, Fold *out) {
    switch (op) {
      case BinaryOp::Add:
      case BinaryOp::Sub: *out = Fold::Add; return true;
      case BinaryOp::Mul: *out = Fold::Mul; return true;
      case BinaryOp::BitAnd: *out = Fold::And; return true;
      case BinaryOp::BitOr: *out = Fold::Or; return true;
      case BinaryOp::BitXor: *out = Fold::Xor; return true;
      default: return false;
    }
  }

  static bool is_var(const Expr &e, const VarDecl *v) {
    return e.kind == ExprKind::Name && e.var == v;
  }

  // An expression that has no effect but its value (or a run-time error):
  // no task call, no allocation, no atomic, no print. Notes the variables
  // it reads.
  bool pure(const Expr &e) {
    switch (e.kind) {
      case ExprKind::New:
      case ExprKind::Construct:
      case ExprKind::AnonTask:
      case ExprKind::Future: return false;
      case ExprKind::Call: {
        int b = e.children[0]->builtin;
        if (b < 0 || b == int(Builtin::print_) || b == int(Builtin::atomic_add_) ||
            b == int(Builtin::atomic_min_) || b == int(Builtin::atomic_max_) ||
            b == int(Builtin::atomic_cas_))
          return false;
        break;
      }
      case ExprKind::Name:
        if (e.var) read_.insert(e.var);
        break;
      default: break;
    }
    for (auto &c : e.children)
      if (c && !pure(*c)) return false;
    for (auto &f : e.fields)
      if (f.value && !pure(*f.value)) return false;
    return true;
  }

  bool ok_ = true;
  std::set<const VarDecl *> declared_;  // in the body, or the loop's own
  std::set<const VarDecl *> read_;      // outside an accumulator's own update
  std::map<const VarDecl *, Fold> fold_;
  std::vector<const VarDecl *> order_;
};

}  // namespace

std::vector<Accumulator> find(const Stmt &loop) {
  if (loop.kind != StmtKind::For) return {};
  return Finder().run(loop);
}

}  // namespace kite::reductions
