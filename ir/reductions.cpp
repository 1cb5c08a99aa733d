// Reductions: the for loops that run as parallel reductions and scans.
#include "ir/reductions.h"

#include <map>
#include <set>

#include "frontend/builtins.h"
#include "ir/anf.h"
#include "ir/effects.h"
#include "ir/ntg.h"

namespace kite::reductions {

using namespace ast;
using anf::Stmt;
using anf::StmtKind;
using anf::StmtList;

const char *spelling(Fold f) {
  switch (f) {
    case Fold::Add:
      return "+";
    case Fold::Mul:
      return "*";
    case Fold::And:
      return "&";
    case Fold::Or:
      return "|";
    case Fold::Xor:
      return "^";
    case Fold::Min:
      return "min";
    case Fold::Max:
      return "max";
  }
  return "?";
}

std::string describe(const Reduction &r) {
  std::string s;
  for (const Accumulator &a : r.accs)
    s += (s.empty() ? "" : ", ") + a.var->name + ": " + spelling(a.fold);
  return s;
}

namespace {

class Finder : public anf::Visitor {
 public:
  explicit Finder(const anf::Task &task) : task_(task) {}

  Reduction run(const Stmt &loop) {
    loop_ = &loop;
    declared_.insert(loop.index_var);
    declared_.insert(loop.elem_var);
    declared_.insert(loop.coll_var);
    std::set<const VarDecl *> collection;  // evaluated once, before the iterations
    if (!pure(*loop.expr, collection)) return {};
    visit(loop.body);
    if (!ok_ || order_.empty()) return {};
    Reduction r;
    for (const VarDecl *v : order_) {
      if (read_.count(v)) return {};  // read outside its own updates
      Type *t = v->type->forced();
      if (!t->is_integer()) return {};
      r.accs.push_back({v, fold_.at(v)});
    }
    if (!scan_) return r;
    // A scan runs its body twice (chunk totals first, without writing the
    // elements; then the elements): the element is read only before it is
    // written, and the array not at all, which only another variable of
    // the same array could reach: the body reads only scalars and arrays
    // of scalars, compared with the loop's at run time.
    const Expr &coll = *loop.expr;
    if (coll.kind != ExprKind::Name || !coll.var) return {};
    std::set<const VarDecl *> reads = read_;
    reads.insert(elem_reads_.begin(), elem_reads_.end());
    if (reads.count(coll.var)) return {};
    for (const VarDecl *v : reads) {
      if (declared_.count(v) || fold_.count(v) || task_.element_of(v)) continue;
      const Type *t = v->type->forced();
      if (t->kind == TypeKind::Array) {
        if (!scalar(t->elem)) return {};
        r.arrays.push_back(v);
      } else if (!scalar(t)) {
        return {};
      }
    }
    r.scan = true;
    return r;
  }

 private:
  using anf::Visitor::visit;
  void visit(const Expr &) override {}  // pure() and assign() look at expressions
  void visit(const Stmt &s) override {
    if (!ok_) return;
    for (const VarDecl *v : anf::bound_vars(s)) declared_.insert(v);
    switch (s.kind) {
      case StmtKind::Do:
      case StmtKind::Let:
        if (s.expr && !pure(*s.expr, read_)) ok_ = false;
        return;
      case StmtKind::Set:
        assign(s);
        return;
      case StmtKind::If:
      case StmtKind::Case:
        if (!pure(*s.expr, read_)) ok_ = false;
        anf::Visitor::visit(s);
        return;
      case StmtKind::For:
      case StmtKind::While:
        if (!pure(*s.expr, read_)) ok_ = false;
        ++depth_;
        anf::Visitor::visit(s);
        --depth_;
        return;
      // A call is parallel work, a return leaves the loop, and a map or a
      // `then` makes parallel work of its own: none belongs in a
      // reduction's body.
      case StmtKind::Call:
      case StmtKind::Return:
      case StmtKind::Then:
      case StmtKind::Map:
        ok_ = false;
        return;
    }
  }

  static bool scalar(const Type *t) {
    t = const_cast<Type *>(t)->forced();
    return t->is_numeric() || t->kind == TypeKind::Bool;
  }

  void assign(const Stmt &s) {
    const Expr &target = *s.target;
    if (target.kind == ExprKind::Name && target.var && task_.element_of(target.var) == loop_ &&
        loop_->coll_var->type->kind == TypeKind::Array) {
      // The loop's own element: a scan, which may read the accumulators
      // here. Once written, the element is not read again: not after this
      // statement, and not in a later iteration of a loop inside the body.
      scan_ = true;
      if (depth_ > 0 || !pure(*s.expr, elem_reads_)) ok_ = false;
      elem_written_ = true;
      return;
    }
    if (target.kind != ExprKind::Name || !target.var || task_.element_of(target.var)) {
      ok_ = false;  // an array element, a field or the loop's element: a write to memory
      return;
    }
    const VarDecl *v = target.var;
    if (declared_.count(v)) {  // a variable of one iteration
      if (!pure(*s.expr, read_)) ok_ = false;
      return;
    }
    // An accumulator: s <- s op e, s <- e op s (op commutative), or
    // s <- min(s, e) and the like.
    const Expr &e = *s.expr;
    Fold fold;
    const Expr *other = nullptr;
    if (e.kind == ExprKind::Binary && fold_of(e.binop, &fold)) {
      // s op a op b ... parses as ((s op a) op b) ...: s at the bottom of
      // the left spine, every op on it of one family.
      const Expr *left = &e;
      std::vector<const Expr *> operands;
      Fold f;
      while (left->kind == ExprKind::Binary && fold_of(left->binop, &f) && f == fold) {
        operands.push_back(left->children[1].get());
        left = left->children[0].get();
      }
      if (is_var(*left, v)) {
        for (const Expr *o : operands)
          if (!pure(*o, read_)) ok_ = false;
        other = operands.back();  // checked above, and again below
      } else if (e.binop != BinaryOp::Sub && is_var(*e.children[1], v)) {
        other = e.children[0].get();
      }
    } else if (e.kind == ExprKind::Call && e.children.size() == 3 &&
               (e.children[0]->builtin == int(Builtin::min_) ||
                e.children[0]->builtin == int(Builtin::max_))) {
      fold = e.children[0]->builtin == int(Builtin::min_) ? Fold::Min : Fold::Max;
      if (is_var(*e.children[1], v))
        other = e.children[2].get();
      else if (is_var(*e.children[2], v))
        other = e.children[1].get();
    }
    if (!other || !pure(*other, read_)) {
      ok_ = false;
      return;
    }
    auto [it, fresh] = fold_.emplace(v, fold);
    if (fresh)
      order_.push_back(v);
    else if (it->second != fold)
      ok_ = false;
  }

  static bool fold_of(BinaryOp op, Fold *out) {
    switch (op) {
      case BinaryOp::Add:
      case BinaryOp::Sub:
        *out = Fold::Add;
        return true;
      case BinaryOp::Mul:
        *out = Fold::Mul;
        return true;
      case BinaryOp::BitAnd:
        *out = Fold::And;
        return true;
      case BinaryOp::BitOr:
        *out = Fold::Or;
        return true;
      case BinaryOp::BitXor:
        *out = Fold::Xor;
        return true;
      case BinaryOp::Div:
      case BinaryOp::Mod:
      case BinaryOp::Shl:
      case BinaryOp::Shr:
      case BinaryOp::Lt:
      case BinaryOp::Le:
      case BinaryOp::Gt:
      case BinaryOp::Ge:
      case BinaryOp::Eq:
      case BinaryOp::Ne:
      case BinaryOp::And:
      case BinaryOp::Or:
        return false;
    }
    return false;
  }

  static bool is_var(const Expr &e, const VarDecl *v) {
    return e.kind == ExprKind::Name && e.var == v;
  }

  // An expression that has no effect but its value (or a run-time error):
  // no task call, no allocation, no atomic, no print, and not the loop's
  // element once the body wrote it. A tuple is allowed: never written once
  // made, it is a value like a scalar, whichever chunk makes it. Notes the
  // variables it reads.
  bool pure(const Expr &e, std::set<const VarDecl *> &reads) {
    const effects::Effects f = effects::of(e);
    if (f.calls || f.makes_tasks || f.allocates || f.prints || f.writes) return false;
    for (const Expr *name : f.names) {
      if (name->var) reads.insert(name->var);
      if (name->var && name->var == loop_->elem_var && elem_written_) return false;
    }
    return true;
  }

  const anf::Task &task_;
  const Stmt *loop_ = nullptr;
  bool ok_ = true;
  bool scan_ = false;
  bool elem_written_ = false;             // by a statement walked so far
  int depth_ = 0;                         // loops inside the body around the statement
  std::set<const VarDecl *> elem_reads_;  // in the values written to the loop's element
  std::set<const VarDecl *> declared_;    // in the body, or the loop's own
  std::set<const VarDecl *> read_;        // outside an accumulator's own update
  std::map<const VarDecl *, Fold> fold_;
  std::vector<const VarDecl *> order_;
};

}  // namespace

Reduction find(const anf::Task &task, const Stmt &loop) {
  if (loop.kind != StmtKind::For) return {};
  return Finder(task).run(loop);
}

namespace {

void callees(const StmtList &list, std::set<const TaskDecl *> &out) {
  anf::for_each_expr(list, [&](const Expr &e) {
    if (e.kind == ExprKind::Call && e.children[0]->task) out.insert(e.children[0]->task);
  });
}

// The tasks that may call themselves, directly or through other named
// tasks. They run many times on small pieces of work: kitec keeps their
// loops in order, where a parallel loop would cost each call a block of
// its own to wait in.
std::set<const TaskDecl *> recursive_tasks(const anf::Program &program) {
  std::map<const TaskDecl *, std::set<const TaskDecl *>> calls;
  for (const anf::Task &task : program.tasks) callees(task.body, calls[task.decl.get()]);
  std::set<const TaskDecl *> out;
  for (const anf::Task &task : program.tasks) {
    const std::unique_ptr<TaskDecl> &t = task.decl;
    // Whether t reaches itself.
    std::set<const TaskDecl *> seen;
    std::vector<const TaskDecl *> work(calls[t.get()].begin(), calls[t.get()].end());
    while (!work.empty()) {
      const TaskDecl *u = work.back();
      work.pop_back();
      if (u == t.get()) {
        out.insert(u);
        break;
      }
      if (!seen.insert(u).second) continue;
      for (const TaskDecl *v : calls[u]) work.push_back(v);
    }
  }
  return out;
}

}  // namespace

namespace {

// Marks the reductions among the For nodes of g, which is in no loop's
// body, and the nodes and graphs around them parallel; returns whether any
// node of g became parallel. A loop whose body already runs in parallel
// (it calls a task) stays what it is.
bool mark(const anf::Task &task, ntg::Graph &g) {
  bool changed = false;
  for (auto &n : g.nodes) {
    bool parallel = false;
    if (n->kind == ntg::NodeKind::For) {
      if (n->graphs[0]->dep.arrow != ntg::Arrow::Seq) continue;
      n->reduction = find(task, *n->stmt);
      parallel = !n->reduction.empty();
    } else if (n->kind != ntg::NodeKind::Map) {
      for (auto &sub : n->graphs) parallel |= mark(task, *sub);
    }
    if (!parallel) continue;
    n->dep.arrow = ntg::Arrow::Par;
    changed = true;
  }
  if (!changed) return false;
  g.dep.arrow = ntg::Arrow::Par;
  g.ancestors = ntg::parallel_ancestors(g);
  return true;
}

}  // namespace

void mark(ntg::Program &graphs) {
  std::set<const TaskDecl *> recursive = recursive_tasks(*graphs.anf);
  for (ntg::TaskGraph &t : graphs.tasks)
    if (!recursive.count(t.task->decl.get())) mark(*t.task, *t.body);
}

}  // namespace kite::reductions
