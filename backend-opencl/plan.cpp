// The backend's plan (plan.h): the analyses over the CPS program that the
// printers read.
#include "backend-opencl/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <ostream>
#include <utility>

#include "frontend/builtins.h"
#include "ir/bounds.h"
#include "ir/effects.h"
#include "ir/vars.h"

namespace kite::plan {
namespace {

using namespace ast;
using anf::Stmt;
using anf::StmtKind;

// The task whose signal handles node n (every node belongs to one task's
// graphs; a detached call's node to its loop's), or -1 for a node that no
// signal names.
int node_task(const cps::Program &p, size_t n) {
  const cps::NodeInfo &info = p.nodes[n];
  if (info.graph >= 0) return p.graphs[size_t(info.graph)].task;
  if (info.detached_from >= 0) return node_task(p, size_t(info.detached_from));
  return -1;
}

// Whether a block of graph g may finish its task: its graph, or one that
// it ends a node of, ends the task.
bool may_finish(const cps::Program &p, int graph) {
  const cps::Graph *g = &p.graphs[size_t(graph)];
  while (g->end == cps::GraphEnd::Node) g = &p.graphs[size_t(p.nodes[size_t(g->end_node)].graph)];
  return g->end == cps::GraphEnd::Task;
}

// The parameters that the task never assigns are read once, at the start
// of each block that names them, into C variables p<id>: on a GPU a
// record slot is volatile, and each read of it a trip to the L2 cache
// that a loop would make again at each iteration. Nothing else writes
// them: a call's result, a map's element and a counter have slots of
// their own, and a tail call reads its arguments before it writes the
// callee's parameters, then returns.
std::vector<const VarDecl *> hold_params(const cps::Program &p, const cps::Block &b,
                                         const vars::VarSet &written) {
  const anf::Task &task = *p.tasks[size_t(b.task)].source;
  vars::VarSet named;
  if (b.kind == cps::BlockKind::Normal) {
    for (const cps::Op &op : b.ops)
      if (op.stmt) vars::collect(*op.stmt, vars::Use::Any, named);
  } else if (b.kind == cps::BlockKind::Split || b.kind == cps::BlockKind::Next) {
    // A map's chunk record holds the variables its iterations read.
    for (int v : b.loop.copy_vars) named.insert(task.vars[size_t(v)]);
  } else {
    return {};  // a Step block names no parameter
  }
  std::vector<const VarDecl *> held;
  for (const VarDecl *v : task.decl->param_vars)
    if (!written.count(v) && named.count(v)) held.push_back(v);
  return held;
}

// A counter that waits for one event needs no atomic (GraphPlan).
bool counted(const cps::Graph &g) {
  return g.outstanding_init != 1 || g.end == cps::GraphEnd::Chunk;
}

// What notifying blocks `notify` of graph `graph` does first (Notify).
Notify notify_of(const cps::Program &p, const std::vector<int> &notify, int graph) {
  Notify n;
  for (int b : notify)
    if (p.blocks[size_t(b)].graph == graph && cps::takes_over(p.blocks[size_t(b)].ops))
      n.tails.push_back(b);
  auto tail = [&](int b) { return std::find(n.tails.begin(), n.tails.end(), b) != n.tails.end(); };
  n.dec_first = !n.tails.empty() || counted(p.graphs[size_t(graph)]);
  for (int b : notify)
    if (!tail(b)) {
      n.dec_first = p.blocks[size_t(b)].counter_init != 1;
      break;
    }
  return n;
}

// Whether running `ops` may make something of the record runnable
// elsewhere (BlockPlan::own_ends_at).
bool may_share(const std::vector<cps::Op> &ops) {
  for (const cps::Op &op : ops) {
    switch (op.kind) {
      case cps::OpKind::Exec:
        break;
      case cps::OpKind::If:
      case cps::OpKind::Case:
      case cps::OpKind::Then:
      case cps::OpKind::For:
        if (op.parallel) return true;
        for (const auto &part : op.inline_ops)
          if (may_share(part)) return true;
        break;
      case cps::OpKind::Spawn:
      case cps::OpKind::Map:
        return true;
    }
  }
  return false;
}

// Whether direct map `op`'s iterations each make its one call: its ops are
// that call and statements that call nothing.
bool every_iteration_calls(const cps::Op &op) {
  int calls = 0;
  for (const cps::Op &o : op.inline_ops[0]) {
    if (o.kind == cps::OpKind::Spawn)
      ++calls;
    else if (o.kind != cps::OpKind::Exec)
      return false;
  }
  return calls == 1;
}

// Whether printing `e` checks an element against its array's length: an
// index, but for an atomic's own (kite_elem, which reports at once).
bool checks_element(const Expr &e) {
  if (e.kind == ExprKind::Index) return true;
  const BuiltinInfo *b = e.kind == ExprKind::Call ? called_builtin(e) : nullptr;
  const bool atomic = b && b->atomic;
  for (size_t i = 0; i < e.children.size(); ++i) {
    const Expr &child = *e.children[i];
    if (atomic && i == 1) {
      for (const ExprPtr &part : child.children)
        if (checks_element(*part)) return true;
    } else if (checks_element(child)) {
      return true;
    }
  }
  for (const ast::FieldInit &f : e.fields)
    if (checks_element(*f.value)) return true;
  return false;
}

// By variable of a task: the statements (nested ones too) that declare or
// bind it, or assign it as a whole; those that one statement writes.
vars::VarSet assigned_once(const anf::Task &task) {
  struct Counter : anf::Visitor {
    std::map<const VarDecl *, int> writes;
    using Visitor::visit;
    void visit(const Stmt &st) override {
      effects::for_each_written(st, effects::Element::AsVariable,
                                [&](const VarDecl *v) { writes[v] += 1; });
      Visitor::visit(st);
    }
  } counter;
  counter.visit(task.body);
  vars::VarSet once;
  for (auto [var, n] : counter.writes)
    if (n == 1) once.insert(var);
  return once;
}

// The walk that decides what the printers hold in C variables, in the
// order they print: the same op may be printed in several places (a
// reduction's body in its task's block, its chunk and its kernel), each
// with its own plan, in its own block's.
class Planner {
 public:
  Planner(const cps::Program &p, const EmitOptions &options, Plan &plan)
      : p_(p), options_(options), plan_(plan) {
    for (const cps::Task &t : p.tasks) assigned_once_.push_back(assigned_once(*t.source));
  }

  void block(const cps::Block &b) {
    task_ = b.task;
    block_ = &plan_.blocks[size_t(b.id)];
    loops_ = &block_->loops;
    held_.clear();
    lengths_.clear();
    for (const VarDecl *v : block_->held_params) held_[v] = Held::Param;
    own_ = block_->own_at_start != BlockPlan::Own::No;
    switch (b.kind) {
      case cps::BlockKind::Normal:
        top_ops_ = &b.ops;
        ops(b.ops, true);
        block_end(b);
        top_ops_ = nullptr;
        break;
      case cps::BlockKind::Split:
        split(b);
        break;
      case cps::BlockKind::Step:
      case cps::BlockKind::Next:
        inline_graph(b.loop.graphs[0], false);
        break;
    }
  }

 private:
  // How a variable is held in a C variable, where it is.
  enum class Held { Param, Local, After, Promoted, Iteration, Accumulator };

  const anf::Task &task() const { return *p_.tasks[size_t(task_)].source; }

  // `top`: the ops are at the block's top level, where its locals are
  // declared (BlockPlan::locals): not nested in a branch or a loop, but in
  // a then or an inline graph's entry.
  void ops(const std::vector<cps::Op> &ops, bool top) {
    for (const cps::Op &op : ops) {
      const Stmt &st = *op.stmt;
      switch (op.kind) {
        case cps::OpKind::Exec:
          if (st.expr) check_elements(*st.expr);
          if (st.target) check_elements(*st.target);
          if (st.kind == StmtKind::Let && st.vars.size() == 1 && st.expr)
            local(st.vars[0], *st.expr, st, top);
          break;
        case cps::OpKind::Spawn:
          // A call that may be answered, or run its callee's sequential
          // form, here shares the record only where it becomes a task.
          if (!cps::answered_at_call(p_, op) && !cps::fast_at_call(p_, op)) share(op);
          spawn(op);
          break;
        case cps::OpKind::If: {
          check_elements(*st.expr);
          // After the if, `own` may be 1 if it may be after either branch.
          const bool before = own_;
          part(op, 0, false);
          const bool after_then = own_;
          own_ = before;
          part(op, 1, false);
          own_ = own_ || after_then;
          break;
        }
        case cps::OpKind::Case: {
          check_elements(*st.expr);
          const bool before = own_;
          bool after = false;
          for (size_t i = 0; i < st.branches.size(); ++i) {
            own_ = before;
            part(op, i, false);
            after = after || own_;
          }
          own_ = after;
          break;
        }
        case cps::OpKind::Then:
          if (op.parallel) {
            inline_graph(op.graphs[0], top);  // its end queues the second side
            share(op);
          } else {
            part(op, 0, top);
            part(op, 1, top);
          }
          break;
        case cps::OpKind::For:
          // A sequential loop's body runs again after what it shared.
          if (op.parallel || may_share(op.inline_ops[0])) share(op);
          loop(op, top);
          break;
        case cps::OpKind::Map:
          share(op);
          map(op, top);
          break;
      }
    }
  }

  void part(const cps::Op &op, size_t i, bool top) {
    if (op.parallel)
      inline_graph(op.graphs[i], top);
    else
      ops(op.inline_ops[i], top);
  }

  void inline_graph(int graph, bool top) {
    const cps::Block &entry = p_.blocks[size_t(p_.graphs[size_t(graph)].entry_block)];
    ops(entry.ops, top);
    block_end(entry);
  }

  void block_end(const cps::Block &b) {
    if (b.notify.empty() || !own_) return;
    block_->own_ends_at_end.insert(&b);
    own_ = false;
  }

  // `own` is 0 from op on.
  void share(const cps::Op &op) {
    if (!own_) return;
    block_->own_ends_at.insert(&op);
    own_ = false;
  }

  void spawn(const cps::Op &op) {
    const Expr &call = *op.stmt->expr;
    if (call.children[0]->kind == ExprKind::Name && call.children[0]->task) {
      // A call its callee may answer here, or whose sequential form may
      // run here, shares the record where it becomes a task.
      if (!op.tail && (cps::answered_at_call(p_, op) || cps::fast_at_call(p_, op))) {
        const bool before = own_;
        share(op);
        own_ = before;
      }
      return;
    }
    const Type *type = call.children[0]->type->forced();
    if (std::find(plan_.dispatchers.begin(), plan_.dispatchers.end(), type) ==
        plan_.dispatchers.end())
      plan_.dispatchers.push_back(type);
  }

  // Variable v, assigned e by `st`: held in l<id> (Local) if st is at the
  // block's top level and the only statement that assigns it.
  void local(const VarDecl *v, const Expr &e, const Stmt &st, bool top) {
    if (!top || held_.count(v) || !assigned_once_[size_t(task_)].count(v)) return;
    held_[v] = Held::Local;
    Local l;
    l.var = v;
    // An array made here, or a copy of one, from a length that a literal
    // or a C variable held at the block's top level gives.
    auto constant = [&](const Expr &x) {
      return x.kind == ExprKind::IntLit ||
             (x.kind == ExprKind::Name && x.var && held_.count(x.var));
    };
    if (e.kind == ExprKind::New && constant(*e.children[0])) {
      l.has_length = true;
      l.length = {v, e.children[0].get()};
    } else if (e.kind == ExprKind::Name && e.var && held_.count(e.var)) {
      if (auto it = lengths_.find(e.var); it != lengths_.end()) {
        l.has_length = true;
        l.length = it->second;
      }
    }
    if (l.has_length) lengths_[v] = l.length;
    block_->locals[&st] = l;
  }

  void loop(const cps::Op &op, bool top) {
    const Stmt &st = *op.stmt;
    if (st.kind == StmtKind::While) {
      if (op.parallel) return inline_graph(op.graphs[0], false);
      LoopPlan &lp = enter_loop(st, false);
      check_elements(*st.expr);
      ops(op.inline_ops[0], false);
      exit_loop(lp);
      return;
    }
    if (!op.reduction.empty()) return map(op, top);
    if (op.parallel) {
      local(st.coll_var, *st.expr, st, top);
      inline_graph(op.graphs[0], false);
      return;
    }
    vars::VarSet returned;
    const bool hold = top && only_returns_after(op, &returned);
    LoopPlan &lp = enter_loop(st, false);
    check_elements(*st.expr);
    if (options_.bounds_checks) lp.proved = bounds::hoistable(task(), st);
    ops(op.inline_ops[0], false);
    exit_loop(lp);
    if (!hold) return;
    for (const VarDecl *v : lp.stored) {
      if (!returned.count(v)) continue;
      lp.held_after.push_back(v);
      held_[v] = Held::After;
    }
  }

  // If `op` is one of the ops at the top level of the block and only a
  // `return` follows it there: the variables that return reads (into
  // *read). Else false.
  bool only_returns_after(const cps::Op &op, vars::VarSet *read) const {
    if (!top_ops_) return false;
    const std::vector<cps::Op> &ops = *top_ops_;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (&ops[i] != &op) continue;
      for (size_t k = i + 1; k < ops.size(); ++k) {
        if (ops[k].kind != cps::OpKind::Exec || ops[k].stmt->kind != StmtKind::Return) return false;
        vars::collect(*ops[k].stmt, vars::Use::Any, *read);
      }
      return true;
    }
    return false;
  }

  void map(const cps::Op &op, bool top) {
    const Stmt &st = *op.stmt;
    local(st.coll_var, *st.expr, st, top);
    if (op.direct) direct_chunk(op);
    if (!op.reduction.empty()) {
      // A reduction short enough to be one chunk runs in the task's record.
      LoopPlan &lp = enter_loop(st, false);
      ops(entry_ops(op), false);
      exit_loop(lp);
    }
  }

  const std::vector<cps::Op> &entry_ops(const cps::Op &op) const {
    return p_.blocks[size_t(p_.graphs[size_t(op.graphs[0])].entry_block)].ops;
  }

  // Iterations of a direct map in a record: the variables an iteration
  // declares, and its index, live in C variables v<id>.
  void direct_chunk(const cps::Op &op) {
    DirectPlan &dp = block_->direct_maps[&op];
    dp.every_iteration_calls = every_iteration_calls(op);
    vars::VarSet iteration = {op.stmt->index_var};
    vars::collect(op.stmt->body, vars::Use::Declared, iteration);
    dp.iteration.assign(iteration.begin(), iteration.end());
    for (const VarDecl *v : iteration) held_[v] = Held::Iteration;
    ops(op.inline_ops[0], false);
    for (const VarDecl *v : iteration) held_.erase(v);
  }

  void split(const cps::Block &b) {
    const cps::Op &op = b.loop;
    if (op.reduction.scan || op.chunked) {
      chunk(op);
      if (op.kernel) {
        // The kernel holds its record's variables itself.
        auto held = std::exchange(held_, {});
        loops_ = &block_->kernel_loops;
        chunk(op);
        loops_ = &block_->loops;
        held_ = std::move(held);
      }
      return;
    }
    if (op.direct) return direct_chunk(op);
    inline_graph(op.graphs[0], false);
  }

  // A chunk's iterations (of a map, a reduction or a scan), with a
  // reduction's accumulators in C variables r<id>.
  void chunk(const cps::Op &op) {
    for (const reductions::Accumulator &a : op.reduction.accs) held_[a.var] = Held::Accumulator;
    LoopPlan &lp = enter_loop(*op.stmt, true);
    ops(entry_ops(op), false);
    exit_loop(lp);
    for (const reductions::Accumulator &a : op.reduction.accs) held_.erase(a.var);
  }

  LoopPlan &enter_loop(const Stmt &loop, bool chunk) {
    vars::LoopVars lv = vars::loop_vars(task(), loop, chunk);
    LoopPlan &lp = (*loops_)[&loop];
    lp = LoopPlan{};
    for (const VarDecl *v : lv.used) {
      // An element reads its collection, held here; a variable an enclosing
      // loop holds stays where it is.
      if (task().element_of(v) || held_.count(v)) continue;
      lp.promoted.push_back(v);
      if (!chunk && lv.written.count(v)) lp.stored.push_back(v);
    }
    for (const VarDecl *v : lp.promoted) held_[v] = Held::Promoted;
    for (const VarDecl *v : lv.used) {
      if (v->type->forced()->kind != TypeKind::Array || lv.written.count(v)) continue;
      // Promoted here, or a parameter that the block holds (a map's
      // kernel holds its record's variables itself).
      auto held = held_.find(v);
      const bool here = std::find(lp.promoted.begin(), lp.promoted.end(), v) != lp.promoted.end();
      if (!here && (held == held_.end() || held->second != Held::Param)) continue;
      if (lengths_.count(v)) continue;  // an enclosing loop measured it
      lp.measured.push_back(v);
      lengths_[v] = {v, nullptr};
    }
    ++depth_;
    return lp;
  }

  void exit_loop(LoopPlan &lp) {
    if (--depth_ == 0) {
      lp.reports_faults = nest_checks_;
      plan_.loop_checks = plan_.loop_checks || nest_checks_;
      nest_checks_ = false;
    }
    for (const VarDecl *v : lp.promoted) held_.erase(v);
    for (const VarDecl *v : lp.measured) lengths_.erase(v);
  }

  // In a loop nest, an expression printed there that checks an element.
  void check_elements(const Expr &e) {
    if (depth_ > 0 && options_.bounds_checks && checks_element(e)) nest_checks_ = true;
  }

  const cps::Program &p_;
  const EmitOptions &options_;
  Plan &plan_;
  std::vector<vars::VarSet> assigned_once_;  // by task
  int task_ = -1;
  BlockPlan *block_ = nullptr;
  std::map<const Stmt *, LoopPlan> *loops_ = nullptr;  // the block's, or its kernel's
  const std::vector<cps::Op> *top_ops_ = nullptr;      // a Normal block's own ops
  std::map<const VarDecl *, Held> held_;               // held in C variables where the walk is
  std::map<const VarDecl *, Length> lengths_;          // their lengths known there
  bool own_ = false;                                   // `own` may still be 1 where the walk is
  int depth_ = 0;                                      // loops that call no task around the walk
  bool nest_checks_ = false;                           // the loop nest walked checks an element
};

}  // namespace

int Plan::fast_frame_words(const cps::Program &p, size_t t) const {
  return 2 + int(p.tasks[t].source->vars.size()) + (accumulate[t].call ? 1 : 0);
}

int Plan::dispatcher(const Type *type) const {
  return int(std::find(dispatchers.begin(), dispatchers.end(), type) - dispatchers.begin());
}

int Plan::signal_task(const cps::Program &p, int node, int graph) const {
  return node >= 0 ? node_task[size_t(node)] : p.graphs[size_t(graph)].task;
}

namespace {

// Kept forms (KeptForm; print_fast.cpp): the record of a kept frame holds
// its link, its counter, the mask of the calls started ahead, the result
// of the call it waits for, a slot per call started ahead, then the frame.
constexpr int kKeptHead = 4;
constexpr int kMaxKeptSlots = 8;   // bits of the mask a task may use
constexpr int kMaxKeptWords = 32;  // a larger frame is not kept
// With its arrays (KeptForm::arrays): records as large where some is kept.
constexpr int kMaxKeptArrayWords = 48;

// The calls after list[i], a call, that a stop may start as tasks while
// it runs (KeptForm::ahead): up to the first statement that is not a call
// or an assignment of a variable, those whose arguments read no variable
// that list[i] or a statement between them assigns.
std::vector<const anf::Stmt *> calls_ahead(const anf::StmtList &list, size_t i) {
  std::set<const VarDecl *> changed;
  std::vector<const anf::Stmt *> ahead;
  auto assigns = [&](const anf::Stmt &st) {
    if (st.target && st.target->var) changed.insert(st.target->var);
  };
  assigns(*list[i]);
  for (size_t j = i + 1; j < list.size(); ++j) {
    const anf::Stmt &st = *list[j];
    if (st.kind == anf::StmtKind::Let) {
      changed.insert(st.vars.begin(), st.vars.end());
      continue;
    }
    if (st.kind == anf::StmtKind::Set && st.target->kind == ExprKind::Name) {
      assigns(st);
      continue;
    }
    if (st.kind != anf::StmtKind::Call) break;
    const Expr &call = *st.expr;
    bool free = call.children[0]->kind == ExprKind::Name && call.children[0]->task;
    for (size_t a = 1; a < call.children.size() && free; ++a)
      ast::for_each_expr(*call.children[a], [&](const Expr &e) {
        if (e.kind == ExprKind::Name && e.var && changed.count(e.var)) free = false;
      });
    if (free) ahead.push_back(&st);
    assigns(st);
  }
  return ahead;
}

// The form's call of its own task whose result it returns plus a variable
// (FastAccumulate), if any: the first in the order of the source.
void plan_accumulate(const cps::Program &p, Plan &plan) {
  plan.accumulate.resize(p.tasks.size());
  for (size_t t = 0; t < p.tasks.size(); ++t) {
    const cps::Task &task = p.tasks[t];
    // (Not with arrays on the stack above the frame: starting again would
    // make them anew above the old ones.)
    if (!task.fast || !task.local_arrays.empty()) continue;
    FastAccumulate &acc = plan.accumulate[t];
    std::vector<const anf::Stmt *> tails;
    std::function<void(const anf::StmtList &)> walk = [&](const anf::StmtList &list) {
      for (size_t i = 0; i < list.size(); ++i) {
        const anf::Stmt &st = *list[i];
        walk(st.body);
        walk(st.else_body);
        for (const anf::CaseBranch &b : st.branches) walk(b.body);
        if (st.kind != anf::StmtKind::Call || !st.target || i + 1 == list.size()) continue;
        const anf::Stmt &next = *list[i + 1];
        if (next.kind == anf::StmtKind::Return && next.expr && next.expr->kind == ExprKind::Name &&
            !next.expr->task && next.expr->var == st.target->var && st.target->var) {
          tails.push_back(&st);
          continue;
        }
        if (acc.call) continue;
        const Expr &call = *st.expr;
        if (call.children[0]->kind != ExprKind::Name ||
            call.children[0]->task != task.source->decl.get())
          continue;
        const anf::Stmt &ret = *list[i + 1];
        if (ret.kind != anf::StmtKind::Return || !ret.expr) continue;
        const Expr &sum = *ret.expr;
        if (sum.kind != ExprKind::Binary || sum.binop != BinaryOp::Add) continue;
        const VarDecl *y = st.target->var;
        const Type *type = y ? y->type->forced() : nullptr;
        if (!type || (type->kind != TypeKind::Int && type->kind != TypeKind::Long)) continue;
        auto name = [](const Expr &e) {
          return e.kind == ExprKind::Name && !e.task ? e.var : nullptr;
        };
        const VarDecl *l = name(*sum.children[0]), *r = name(*sum.children[1]);
        const VarDecl *a = l == y ? r : r == y ? l : nullptr;
        if (!a || a == y || a->type->forced()->kind != type->kind) continue;
        acc.call = &st;
        acc.ret = &ret;
        acc.addend = a;
        acc.slot = 2 + int(task.source->vars.size());
      }
    };
    walk(task.source->body);
    for (const anf::Stmt *call : tails) {
      const TaskDecl *callee = call->expr->children[0]->task;
      if (!callee) continue;  // a task value's: fast_value_call
      if (callee == task.source->decl.get() || !acc.call) acc.tails.insert(call);
    }
  }
}

}  // namespace

std::vector<const Expr *> sum_terms(const Expr &e) {
  if (e.kind != ExprKind::Binary || e.binop != BinaryOp::Add) return {&e};
  std::vector<const Expr *> terms = sum_terms(*e.children[0]);
  for (const Expr *t : sum_terms(*e.children[1])) terms.push_back(t);
  return terms;
}

namespace {

// The tasks whose forms only add up what their calls of themselves return
// (SumForm).
void plan_sums(const cps::Program &p, Plan &plan) {
  plan.sums.resize(p.tasks.size());
  for (size_t t = 0; t < p.tasks.size(); ++t) {
    const cps::Task &task = p.tasks[t];
    if (!task.fast || !task.local_arrays.empty()) continue;
    const Type *result = task.source->decl->result_type->forced();
    if (result->kind != TypeKind::Int && result->kind != TypeKind::Long) continue;
    const TaskDecl *self = task.source->decl.get();
    auto own_call = [&](const anf::Stmt &st) {
      const Expr &callee = *st.expr->children[0];
      return callee.kind == ExprKind::Name && callee.task == self && st.target &&
             st.target->kind == ExprKind::Name && st.target->var;
    };
    std::set<const VarDecl *> results;
    bool ok = true;
    std::function<void(const anf::StmtList &, bool)> walk = [&](const anf::StmtList &list,
                                                                bool loop) {
      for (size_t i = 0; i < list.size() && ok; ++i) {
        const anf::Stmt &st = *list[i];
        if (st.kind != anf::StmtKind::Call) {
          const bool in_loop = loop || st.kind == anf::StmtKind::While ||
                               st.kind == anf::StmtKind::For || st.kind == anf::StmtKind::Map;
          walk(st.body, in_loop);
          walk(st.else_body, in_loop);
          for (const anf::CaseBranch &b : st.branches) walk(b.body, in_loop);
          continue;
        }
        // A run of calls of itself, then the return that adds them.
        std::set<const VarDecl *> run;
        size_t j = i;
        for (; j < list.size(); ++j) {
          const anf::Stmt &s = *list[j];
          if (s.kind == anf::StmtKind::Let && !s.expr) continue;
          if (s.kind != anf::StmtKind::Call) break;
          if (loop || !own_call(s) || !run.insert(s.target->var).second) ok = false;
        }
        if (!ok || j == list.size() || list[j]->kind != anf::StmtKind::Return || !list[j]->expr) {
          ok = false;
          break;
        }
        std::set<const VarDecl *> added;
        for (const Expr *e : sum_terms(*list[j]->expr))
          if (e->kind == ExprKind::Name && !e->task && run.count(e->var) &&
              !added.insert(e->var).second)
            ok = false;
        if (added != run) ok = false;
        results.insert(run.begin(), run.end());
        i = j;
      }
    };
    walk(task.source->body, false);
    if (!ok || results.empty()) continue;
    // The calls' variables are read only where their returns add them: once
    // each, in all, and never assigned otherwise.
    size_t reads = 0;
    auto count = [&](const Expr &e) {
      if (e.kind == ExprKind::Name && !e.task && results.count(e.var)) ++reads;
    };
    std::function<void(const anf::StmtList &)> scan = [&](const anf::StmtList &list) {
      for (const anf::StmtPtr &st : list) {
        if (st->expr) ast::for_each_expr(*st->expr, count);
        if (st->target && st->kind != anf::StmtKind::Call) {
          if (st->target->kind == ExprKind::Name && results.count(st->target->var)) ok = false;
          ast::for_each_expr(*st->target, count);
        }
        scan(st->body);
        scan(st->else_body);
        for (const anf::CaseBranch &b : st->branches) scan(b.body);
      }
    };
    scan(task.source->body);
    if (!ok || reads != results.size()) continue;
    plan.sums[t].sum = true;
    plan.sums[t].results = std::move(results);
  }
}

// Whether the task makes each of its local arrays before its first call
// and before it assigns a parameter, in the order of the source: a kept
// frame then holds every array it makes (its call is the place it goes on
// from), and where one does not fit, its call's arguments are still its
// parameters' values (print_fast.cpp, fast_new).
bool arrays_first(const cps::Task &task) {
  const std::set<const VarDecl *> arrays(task.local_arrays.begin(), task.local_arrays.end());
  const std::set<const VarDecl *> params(task.source->decl->param_vars.begin(),
                                         task.source->decl->param_vars.end());
  bool late = false;  // a call or an assignment of a parameter came first
  bool ok = true;
  std::function<void(const anf::StmtList &)> walk = [&](const anf::StmtList &list) {
    for (const anf::StmtPtr &st : list) {
      if (st->kind == anf::StmtKind::Let)
        for (const VarDecl *v : st->vars)
          if (arrays.count(v) && late) ok = false;
      if (st->kind == anf::StmtKind::Call ||
          (st->kind == anf::StmtKind::Set && st->target->kind == ExprKind::Name &&
           params.count(st->target->var)))
        late = true;
      walk(st->body);
      walk(st->else_body);
      for (const anf::CaseBranch &b : st->branches) walk(b.body);
    }
  };
  walk(task.source->body);
  return ok;
}

// The call of a `map` over one of the task's local arrays whose iterations
// a stop may start as tasks (KeptForm::maps): the body is the call, its
// result held in a variable of the body (or the element), and at most the
// element's assignment of it; the call's arguments read no variable the
// body binds, and no element.
const anf::Stmt *map_call(const cps::Task &task, const anf::Stmt &map) {
  if (map.kind != anf::StmtKind::Map || map.expr->kind != ExprKind::Name ||
      std::find(task.local_arrays.begin(), task.local_arrays.end(), map.expr->var) ==
          task.local_arrays.end())
    return nullptr;
  std::set<const VarDecl *> bound;
  const anf::Stmt *call = nullptr;
  for (const anf::StmtPtr &st : map.body) {
    if (st->kind == anf::StmtKind::Let && !st->expr && !call) {
      bound.insert(st->vars.begin(), st->vars.end());
    } else if (st->kind == anf::StmtKind::Call && !call && st->target &&
               (bound.count(st->target->var) || st->target->var == map.elem_var)) {
      call = st.get();
    } else if (st->kind == anf::StmtKind::Set && call && st->target->kind == ExprKind::Name &&
               st->target->var == map.elem_var && st->expr->kind == ExprKind::Name &&
               st->expr->var == call->target->var) {
    } else {
      return nullptr;
    }
  }
  if (!call || !call->expr->children[0]->task) return nullptr;
  bool ok = true;
  for (size_t a = 1; a < call->expr->children.size(); ++a)
    ast::for_each_expr(*call->expr->children[a], [&](const Expr &e) {
      if (e.kind == ExprKind::Name && e.var && (bound.count(e.var) || e.var == map.elem_var))
        ok = false;
    });
  return ok ? call : nullptr;
}

// Which tasks' forms are kept, and what a stop starts ahead in each.
void plan_kept(const cps::Program &p, Plan &plan) {
  plan.kept.resize(p.tasks.size());
  for (size_t t = 0; t < p.tasks.size(); ++t) {
    const cps::Task &task = p.tasks[t];
    if (!task.fast || !arrays_first(task)) continue;
    KeptForm &k = plan.kept[t];
    k.arrays = !task.local_arrays.empty();
    k.frame_words = plan.fast_frame_words(p, t);
    std::function<void(const anf::StmtList &)> walk = [&](const anf::StmtList &list) {
      for (size_t i = 0; i < list.size(); ++i) {
        const anf::Stmt &st = *list[i];
        if (st.kind == anf::StmtKind::Call) {
          std::vector<const anf::Stmt *> kept_ahead;
          for (const anf::Stmt *later : calls_ahead(list, i)) {
            if (!k.index.count(later)) {
              if (int(k.index.size()) == kMaxKeptSlots) continue;
              k.index[later] = int(k.index.size());
            }
            kept_ahead.push_back(later);
          }
          if (!kept_ahead.empty()) k.ahead[&st] = kept_ahead;
        }
        if (k.arrays) {
          if (const anf::Stmt *call = map_call(task, st)) k.maps[call] = &st;
          if ((st.kind == anf::StmtKind::For || st.kind == anf::StmtKind::Map) && st.coll_var &&
              st.expr->kind == ExprKind::Name &&
              std::count(task.local_arrays.begin(), task.local_arrays.end(), st.expr->var))
            k.places.push_back(st.coll_var);
        }
        walk(st.body);
        walk(st.else_body);
        for (const anf::CaseBranch &b : st.branches) walk(b.body);
      }
    };
    walk(task.source->body);
    k.places.insert(k.places.end(), task.local_arrays.begin(), task.local_arrays.end());
    std::sort(k.places.begin(), k.places.end(),
              [](const VarDecl *a, const VarDecl *b) { return a->id < b->id; });
    k.places.erase(std::unique(k.places.begin(), k.places.end()), k.places.end());
    k.kept = true;
  }
  for (const KeptForm &k : plan.kept)
    if (k.kept)
      plan.kept_slots =
          std::max(plan.kept_slots, k.maps.empty() ? int(k.index.size()) : kMaxKeptSlots);
  for (KeptForm &k : plan.kept) {
    if (!k.kept) continue;
    const int words = kKeptHead + plan.kept_slots + k.frame_words;
    if (words > (k.arrays ? kMaxKeptArrayWords : kMaxKeptWords)) {
      k = KeptForm{};
      continue;
    }
    plan.kept_words = std::max({plan.kept_words, words, p.record_words});
    // Room for the arrays too, checked where they are made.
    if (k.arrays) plan.kept_words = std::max(plan.kept_words, kMaxKeptArrayWords);
    plan.kept_arrays = plan.kept_arrays || k.arrays;
    // Under the rule too where such a frame can give work away when it
    // keeps again (its map's later iterations): N-queens' map, whose body
    // is an `if`, has none, and its kernel ran 5% slower with the code
    // compiled in, keeping nothing.
    plan.keep_by_rule = plan.keep_by_rule || (k.arrays && !k.maps.empty());
  }
  // Forms that write: each form they may push kept, with no arrays of its
  // own (whose pushes may still lose the form's work: print_fast.cpp's
  // fast_new).
  std::vector<std::vector<int>> callees(p.tasks.size());
  for (size_t t = 0; t < p.tasks.size(); ++t)
    if (p.tasks[t].fast) callees[t] = anf::reachable_calls(*p.anf, p.tasks[t].source->body);
  for (size_t t = 0; t < p.tasks.size(); ++t) {
    if (!p.tasks[t].fast || !p.tasks[t].fast_writes) continue;
    std::vector<bool> seen(p.tasks.size());
    std::vector<size_t> unvisited{t};  // reached, not yet looked at
    seen[t] = true;
    bool ok = true;
    while (!unvisited.empty() && ok) {
      const size_t r = unvisited.back();
      unvisited.pop_back();
      ok = plan.kept[r].kept && p.tasks[r].local_arrays.empty();
      for (int c : callees[r])
        if (!seen[size_t(c)]) {
          seen[size_t(c)] = true;
          unvisited.push_back(size_t(c));
        }
    }
    plan.kept[t].writes = ok;
    plan.keep_by_rule = plan.keep_by_rule || ok;
    plan.keep_writes = plan.keep_writes || ok;
  }
}

}  // namespace

Plan make(const cps::Program &p, const EmitOptions &options) {
  Plan plan;
  // A program in parts is large (--part-blocks below kMaxInlineBlocks
  // splits smaller ones too).
  const int part_blocks = options.part_blocks > 0 ? options.part_blocks : kPartBlocks;
  plan.shape = p.num_codes > std::min(kMaxInlineBlocks, part_blocks) ? Shape::Large : Shape::Inline;
  plan.parts = split(p, part_blocks);
  plan.signals.resize(p.tasks.size());
  for (const cps::Task &t : p.tasks) {
    if (!t.fast) continue;
    plan.fast_arity = std::max(plan.fast_arity, int(t.source->decl->param_vars.size()));
  }
  // Wide workers run the forms that read no memory, but not in a direct
  // map (KITE_ANSWER_IN_MAPS): only a call elsewhere needs their rule.
  std::function<void(const std::vector<cps::Op> &)> calls = [&](const std::vector<cps::Op> &ops) {
    for (const cps::Op &op : ops) {
      if (op.kind == cps::OpKind::Spawn && cps::fast_at_call(p, op) && !p.nodes[op.node].direct &&
          !p.tasks[size_t(cps::callee(op))].fast_wide_skips())
        plan.fast_computes = true;
      for (const std::vector<cps::Op> &inner : op.inline_ops) calls(inner);
    }
  };
  for (const cps::Block &b : p.blocks) calls(b.ops);
  plan.node_task.resize(p.nodes.size());
  for (size_t n = 0; n < p.nodes.size(); ++n) {
    plan.node_task[n] = node_task(p, n);
    if (plan.node_task[n] >= 0) plan.signals[size_t(plan.node_task[n])].nodes.push_back(n);
  }
  for (const cps::Graph &g : p.graphs)
    if (g.id >= 0) plan.signals[size_t(g.task)].graphs.push_back(g.id);
  // By task: the variables its body assigns.
  std::vector<vars::VarSet> written(p.tasks.size());
  for (size_t t = 0; t < p.tasks.size(); ++t)
    vars::collect(p.tasks[t].source->body, vars::Use::Written, written[t]);
  plan.blocks.resize(p.blocks.size());
  for (const cps::Block &b : p.blocks) {
    BlockPlan &bp = plan.blocks[size_t(b.id)];
    if (!b.notify.empty()) bp.notify = notify_of(p, b.notify, b.graph);
    if (b.code < 0) continue;
    bp.held_params = hold_params(p, b, written[size_t(b.task)]);
    bp.finish_ahead = b.kind == cps::BlockKind::Normal && may_finish(p, b.graph);
    bp.own_at_start = p.tasks[size_t(b.task)].entry_block == b.id ? BlockPlan::Own::Yes
                      : b.kind == cps::BlockKind::Normal          ? BlockPlan::Own::IfPrivate
                                                                  : BlockPlan::Own::No;
  }
  for (const cps::Graph &g : p.graphs) {
    const bool queues = g.end != cps::GraphEnd::Task && g.end != cps::GraphEnd::Node;
    plan.graphs.push_back({counted(g), queues && !counted(g)});
  }
  plan.nodes.resize(p.nodes.size());
  for (size_t n = 0; n < p.nodes.size(); ++n) {
    const cps::NodeInfo &info = p.nodes[n];
    if (info.graph >= 0 && !info.direct) plan.nodes[n] = notify_of(p, info.notify, info.graph);
  }
  Planner planner(p, options, plan);
  for (const cps::Block &b : p.blocks)
    if (b.code >= 0) planner.block(b);
  plan_accumulate(p, plan);
  plan_sums(p, plan);
  plan_kept(p, plan);
  return plan;
}

namespace {

// Variables with the C variables that hold them: "n (p3)".
std::string names(const std::vector<const VarDecl *> &vs, char prefix) {
  std::string s;
  for (const VarDecl *v : vs)
    s += fmt::format("{}{} ({}{})", s.empty() ? "" : ", ", v->name, prefix, v->id);
  return s;
}

// Where a statement is, for the dump's order: maps keyed by pointers
// print in source order.
bool before(const Stmt *a, const Stmt *b) {
  return std::make_pair(a->loc.line, a->loc.col) < std::make_pair(b->loc.line, b->loc.col);
}

template <typename T>
std::vector<std::pair<const Stmt *, const T *>> in_source_order(
    const std::map<const Stmt *, T> &m) {
  std::vector<std::pair<const Stmt *, const T *>> out;
  for (const auto &[st, t] : m) out.push_back({st, &t});
  std::stable_sort(out.begin(), out.end(),
                   [](const auto &a, const auto &b) { return before(a.first, b.first); });
  return out;
}

std::string length(const Length &l) {
  if (!l.count) return fmt::format("n{}, measured", l.array->id);
  return fmt::format("{} (0 if {} is null)", to_kite(*l.count), l.array->name);
}

void dump_loops(const std::map<const Stmt *, LoopPlan> &loops, const char *where,
                std::ostream &out) {
  for (const auto &[st, lp] : in_source_order(loops)) {
    out << fmt::format("    {}loop {} at line {}\n", where, anf::to_kite(*st), st->loc.line);
    if (!lp->promoted.empty()) out << "      registers: " << names(lp->promoted, 'v') << "\n";
    if (!lp->stored.empty()) out << "      stored back: " << names(lp->stored, 'v') << "\n";
    if (!lp->measured.empty())
      out << "      lengths measured: " << names(lp->measured, 'n') << "\n";
    std::string proved;
    for (const Expr *e : lp->proved) proved += (proved.empty() ? "" : ", ") + to_kite(*e);
    if (!proved.empty()) out << "      bounds proved before the loop: " << proved << "\n";
    if (lp->reports_faults) out << "      reports its nest's bad indices at its end\n";
    if (!lp->held_after.empty())
      out << "      held after it: " << names(lp->held_after, 'h') << "\n";
  }
}

std::string notify(const Notify &n) {
  std::string s;
  for (int b : n.tails) s += fmt::format(" b{}", b);
  return fmt::format("{}{}", n.dec_first ? "kite_dec first" : "fence first",
                     s.empty() ? "" : ", tail calls counted off first:" + s);
}

}  // namespace

void dump(const cps::Program &p, const Plan &plan, std::ostream &out) {
  out << fmt::format("shape {} ({} blocks, inline up to {})\n", plan.large() ? "large" : "inline",
                     p.num_codes, kMaxInlineBlocks);
  if (plan.split())
    out << fmt::format("parts {} (at most {} blocks each, but for a cycle of calls), main in {}\n",
                       plan.parts.count, plan.parts.limit, plan.parts.main_part);
  out << fmt::format("loop nests checking elements: {}\n", plan.loop_checks ? "some" : "none");
  if (plan.has_fast())
    out << fmt::format("sequential forms: kite_fast, {} parameters{}\n", plan.fast_arity,
                       plan.fast_computes ? ""
                                          : ", none that wide workers run (each reads "
                                            "memory, makes heap values or loops over a range, "
                                            "or is called in direct maps only)");
  for (size_t i = 0; i < plan.dispatchers.size(); ++i)
    out << fmt::format("dispatcher kite_call_value_{}: {}\n", i, to_string(plan.dispatchers[i]));
  if (plan.keeps())
    out << fmt::format("kept forms: records of {} longs, {} slots for calls started ahead{}\n",
                       plan.kept_words, plan.kept_slots,
                       plan.keep_writes ? "; under the rule too, in runs of narrow workers"
                       : plan.keep_by_rule
                           ? "; under the rule too, in runs of at most two narrow workers"
                           : "");
  for (size_t t = 0; t < p.tasks.size(); ++t) {
    const cps::Task &task = p.tasks[t];
    out << fmt::format("task {}\n", task.source->decl->name);
    if (plan.split()) {
      out << fmt::format("  part {}\n", plan.parts.task_part[t]);
      if (task.fast) {
        std::string where;
        for (int part : plan.parts.fast_parts[t]) where += fmt::format(" {}", part);
        out << fmt::format("  sequential form in parts:{}\n", where.empty() ? " none" : where);
      }
    }
    const TaskSignals &ts = plan.signals[t];
    if (!ts.empty()) {
      std::string s;
      for (size_t n : ts.nodes) s += fmt::format(" n{}", n);
      for (int g : ts.graphs) s += fmt::format(" g{}", g);
      out << fmt::format("  signal {}:{}\n",
                         plan.large() ? fmt::format("kite_signal_t{}", t) : "kite_signal", s);
    }
    for (int g : ts.graphs)
      if (!plan.graphs[size_t(g)].counted)
        out << fmt::format("  g{} waits for one event: no atomic{}\n", g,
                           plan.graphs[size_t(g)].fenced ? ", a fence before its end queues" : "");
    for (size_t n : ts.nodes)
      if (p.nodes[n].graph >= 0 && !p.nodes[n].direct && !p.nodes[n].notify.empty())
        out << fmt::format("  n{} notifies: {}\n", n, notify(plan.nodes[n]));
    for (const cps::Block &b : p.blocks) {
      if (b.task != int(t)) continue;
      const BlockPlan &bp = plan.blocks[size_t(b.id)];
      if (b.code < 0) {
        if (!b.notify.empty())
          out << fmt::format("  b{} (inline) ends: {}\n", b.id, notify(bp.notify));
        continue;
      }
      out << fmt::format("  block b{} (code {})\n", b.id, b.code);
      if (!bp.held_params.empty())
        out << "    held parameters: " << names(bp.held_params, 'p') << "\n";
      if (bp.finish_ahead) out << "    may finish the task: link read ahead\n";
      if (bp.own_at_start == BlockPlan::Own::Yes)
        out << "    own at the start: 1 (its record is new)\n";
      else if (bp.own_at_start == BlockPlan::Own::IfPrivate)
        out << "    own at the start: if its record is private (KITE_OWN)\n";
      for (const auto &[st, l] : in_source_order(bp.locals))
        out << fmt::format("    local {}{}\n", names({l->var}, 'l'),
                           l->has_length ? ", length " + length(l->length) : "");
      dump_loops(bp.loops, "", out);
      dump_loops(bp.kernel_loops, "kernel ", out);
      std::vector<const Stmt *> own;
      for (const cps::Op *op : bp.own_ends_at) own.push_back(op->stmt);
      std::stable_sort(own.begin(), own.end(), before);
      for (const Stmt *st : own) out << "    own ends at: " << anf::to_kite(*st) << "\n";
      for (const cps::Block *e : bp.own_ends_at_end)
        out << fmt::format("    own ends at the end of b{}\n", e->id);
      std::map<const Stmt *, DirectPlan> direct;
      for (const auto &[op, dp] : bp.direct_maps) direct[op->stmt] = dp;
      for (const auto &[st, dp] : in_source_order(direct))
        out << fmt::format("    direct {} at line {}: iteration registers {}{}\n",
                           anf::to_kite(*st), st->loc.line, names(dp->iteration, 'v'),
                           dp->every_iteration_calls ? "; every iteration calls" : "");
      if (!b.notify.empty()) out << "    ends: " << notify(bp.notify) << "\n";
    }
    if (const SumForm &sum = plan.sums[t]; sum.sum) {
      std::vector<std::string> names;
      for (const VarDecl *v : sum.results) names.push_back(v->name);
      std::sort(names.begin(), names.end());
      out << fmt::format("  form adds up its calls' results ({}), their calls on a list\n",
                         fmt::join(names, ", "));
    }
    if (const FastAccumulate &acc = plan.accumulate[t]; acc.call)
      out << fmt::format("  form adds and starts again: `{}` then `{}` (accumulator in slot {})\n",
                         anf::to_kite(*acc.call), anf::to_kite(*acc.ret), acc.slot);
    {
      std::vector<const anf::Stmt *> tails(plan.accumulate[t].tails.begin(),
                                           plan.accumulate[t].tails.end());
      std::sort(tails.begin(), tails.end(), [](const anf::Stmt *a, const anf::Stmt *b) {
        return std::make_pair(a->loc.line, a->loc.col) < std::make_pair(b->loc.line, b->loc.col);
      });
      for (const anf::Stmt *call : tails)
        out << fmt::format("  form's tail call, in its frame: `{}`\n", anf::to_kite(*call));
    }
    const KeptForm &kept = plan.kept[t];
    if (kept.kept) {
      out << fmt::format("  kept form: frame of {} longs{}{}\n", kept.frame_words,
                         kept.arrays ? ", and its arrays" : "",
                         kept.writes ? "; writes memory: runs where forms keep" : "");
      // In the order of the source.
      std::vector<std::pair<SourceLoc, std::string>> lines;
      for (const auto &[call, map] : kept.maps)
        out << fmt::format("    a stop in `{}` starts the later iterations of `{}`\n",
                           anf::to_kite(*call), anf::to_kite(*map));
      for (const auto &[call, later] : kept.ahead) {
        std::string names;
        for (const anf::Stmt *l : later)
          names += fmt::format("{}`{}` (slot {})", names.empty() ? "" : ", ", anf::to_kite(*l),
                               kept.index.at(l) + 1);
        lines.push_back(
            {call->loc, fmt::format("    a stop in `{}` starts {}\n", anf::to_kite(*call), names)});
      }
      std::sort(lines.begin(), lines.end(), [](const auto &a, const auto &b) {
        return std::make_pair(a.first.line, a.first.col) <
               std::make_pair(b.first.line, b.first.col);
      });
      for (const auto &l : lines) out << l.second;
    }
    if (p.tasks[t].fast && p.tasks[t].fast_writes && !kept.writes)
      out << "  its form writes memory and never runs: some form it may push is not kept, or "
             "makes arrays\n";
  }
}

}  // namespace kite::plan
