// Statements, the loops that call no task, and the blocks: kite_block's cases, or in
// a large program a function per block.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "backend-opencl/printer.h"
#include "frontend/builtins.h"

namespace kite::print {

void Printer::line(std::ostream &s, int indent, const std::string &text) {
  s << std::string(indent, ' ') << text << "\n";
}

// `v = value` by statement `st`, where value is C text; held in a C
// variable l<id> too where the plan says (plan::Local).
void Printer::assign_first(const VarDecl *v, const Expr &e, const Stmt &st, std::ostream &s,
                           int ind) {
  const std::string value = expr(e);
  auto local = block_->locals.find(&st);
  if (local == block_->locals.end()) {
    line(s, ind, slot(v) + " = " + value + ";");
    return;
  }
  std::string name = fmt::format("l{}", v->id);
  line(s, ind,
       fmt::format("const {} {} = {}; {} = {};", c_type(v->type->forced()), name, value, slot(v),
                   name));
  env_[v] = {name, ""};
  if (local->second.has_length) env_[v].length = length(local->second.length);
}

// A known length (plan::Length) in C.
std::string Printer::length(const plan::Length &l) {
  if (!l.count) return fmt::format("n{}", l.array->id);
  return fmt::format("(l{} != 0 ? {} : 0)", l.array->id, expr(*l.count));
}

void Printer::emit_assign(const Stmt &st, std::ostream &s, int ind) {
  const Expr &target = *st.target;
  if (skip_writes_of_ && target.kind == ExprKind::Name && element_of(target.var) == skip_writes_of_)
    return;  // a scan's first phase: totals only
  std::string value = expr(*st.expr);
  if (target.kind == ExprKind::Name) {
    line(s, ind, lvalue(target.var) + " = " + value + ";");
  } else {
    // The right side first, then the target's address: a[i] <- e reads e
    // before it checks i, as C would for `a[i] = e` written with a temporary.
    line(s, ind,
         fmt::format("{{ {} v = {}; {} = v; }}", c_type(target.type->forced()), value,
                     expr(target)));
  }
}

void Printer::emit_exec(const Stmt &st, std::ostream &s, int ind) {
  switch (st.kind) {
    case StmtKind::Let:
      if (st.vars.size() == 1 && st.expr) {
        assign_first(st.vars[0], *st.expr, st, s, ind);
        return;
      }
      for (VarDecl *v : st.vars)
        line(s, ind, slot(v) + " = " + (st.expr ? expr(*st.expr) : "0") + ";");
      return;
    case StmtKind::Set:
      emit_assign(st, s, ind);
      return;
    case StmtKind::Return:
      if (!st.expr) return;
      if (block_->finish_ahead) {  // at most one return runs (ir/returns)
        line(s, ind,
             "ret = " + to_bits(st.expr->type->forced(), expr(*st.expr)) +
                 "; f[1] = ret; has_ret = 1;");
        return;
      }
      line(s, ind, "f[1] = " + to_bits(st.expr->type->forced(), expr(*st.expr)) + ";");
      return;
    case StmtKind::Do:
      if (st.expr->kind == ExprKind::Call &&
          st.expr->children[0]->builtin == int(Builtin::print_)) {
        emit_print(*st.expr, s, ind);
        return;
      }
      line(s, ind, "(void)(" + expr(*st.expr) + ");");
      return;
    case StmtKind::Call:  // a Spawn op
    case StmtKind::Then:
    case StmtKind::If:
    case StmtKind::Case:
    case StmtKind::For:
    case StmtKind::Map:
    case StmtKind::While:  // ops of their own (emit_ops)
      break;
  }
  internal_error("statement kind reached the backend unchecked");
}

// The task is finished (or has handed its end to a tail call): the
// arrays only it used go back to the heap.
void Printer::emit_free_arrays(std::ostream &s, int ind) {
  for (const VarDecl *v : p_.tasks[task_].local_arrays)
    line(s, ind,
         fmt::format("kite_free_array(c, {}, {});", slot(v),
                     is_wide(v->type->forced()->elem) ? 8 : 4));
}

void Printer::emit_graph_start(int graph, std::ostream &s, int ind) {
  const cps::Graph &g = p_.graphs[graph];
  if (counted(g))
    line(s, ind, fmt::format("*KITE_COUNTER(f, {}) = {};", g.outstanding_slot, g.outstanding_init));
  for (int b : g.blocks) {
    const cps::Block &blk = p_.blocks[b];
    if (!blk.is_entry && blk.counter_init != 1)
      line(s, ind, fmt::format("*KITE_COUNTER(f, {}) = {};", blk.counter_slot, blk.counter_init));
  }
}

// A graph starts inline: its counters, then its entry block.
void Printer::emit_inline_graph(int graph, std::ostream &s, int ind) {
  emit_graph_start(graph, s, ind);
  const cps::Block &entry = p_.blocks[p_.graphs[graph].entry_block];
  emit_ops(entry.ops, s, ind);
  emit_block_end(entry, s, ind);
}

// The number of elements of a loop's collection, held in its slot.
std::string Printer::loop_length(const Stmt &loop) {
  const VarDecl *coll = loop.coll_var;
  if (auto held = env_.find(coll); held != env_.end() && !held->second.length.empty())
    return held->second.length;
  return coll->type->kind == TypeKind::Range ? "kite_range_length(" + slot(coll) + ")"
                                             : "kite_length(c, " + slot(coll) + ")";
}

void Printer::emit_ops(const std::vector<cps::Op> &ops, std::ostream &s, int ind) {
  for (const cps::Op &op : ops) {
    const Stmt &st = *op.stmt;
    switch (op.kind) {
      case cps::OpKind::Exec:
        emit_exec(st, s, ind);
        break;
      case cps::OpKind::Spawn:
        // A call its callee may answer here shares the record only if
        // it does not (emit_spawn).
        if (!cps::answered_at_call(p_, op)) share_record(op, s, ind);
        emit_spawn(op, s, ind);
        break;
      case cps::OpKind::If:
        line(s, ind, "if (" + expr(*st.expr) + ") {");
        emit_part(op, 0, s, ind + 2);
        line(s, ind, "} else {");
        emit_part(op, 1, s, ind + 2);
        line(s, ind, "}");
        break;
      case cps::OpKind::Case:
        emit_case(op, s, ind);
        break;
      case cps::OpKind::Then:
        if (op.parallel) {
          emit_inline_graph(op.graphs[0], s, ind);  // its end queues the second side
          share_record(op, s, ind);
        } else {
          emit_part(op, 0, s, ind);
          emit_part(op, 1, s, ind);
        }
        break;
      case cps::OpKind::For:
        // A sequential loop's body runs again after what it shared.
        share_record(op, s, ind);
        emit_for(op, s, ind);
        break;
      case cps::OpKind::Map:
        share_record(op, s, ind);
        emit_map(op, s, ind);
        break;
    }
  }
}

// Part i of a nested statement: its graph started inline, or its code.
void Printer::emit_part(const cps::Op &op, size_t i, std::ostream &s, int ind) {
  if (op.parallel)
    emit_inline_graph(op.graphs[i], s, ind);
  else
    emit_ops(op.inline_ops[i], s, ind);
}

void Printer::emit_case(const cps::Op &op, std::ostream &s, int ind) {
  const Stmt &st = *op.stmt;
  line(s, ind, fmt::format("{{ long u = {};", expr(*st.expr)));
  line(s, ind + 2,
       fmt::format("KITE_DATA __global long *uv = kite_field(c, u, 0, {}, {});", site(st.loc),
                   null_name(st.null_name)));
  line(s, ind + 2, "switch ((int)uv[0]) {");
  bool has_default = false;
  for (size_t i = 0; i < st.branches.size(); ++i) {
    const CaseBranch &b = st.branches[i];
    if (b.field.empty()) {
      has_default = true;
      line(s, ind + 2, "default: {");
    } else {
      line(s, ind + 2, fmt::format("case {}: {{", b.field_index));
      if (b.binder)
        line(s, ind + 4,
             fmt::format("{} = {}(uv, 1);", slot(b.binder), slot_macro(b.binder->type)));
    }
    emit_part(op, i, s, ind + 4);
    line(s, ind + 4, "break;");
    line(s, ind + 2, "}");
  }
  if (!has_default)
    line(s, ind + 2, fmt::format("default: kite_error(c, KITE_ERR_CASE, {}, 0, 0);", site(st.loc)));
  line(s, ind + 2, "}");
  line(s, ind, "}");
}

void Printer::emit_for(const cps::Op &op, std::ostream &s, int ind) {
  const Stmt &st = *op.stmt;
  if (st.kind == StmtKind::While) {
    emit_while(op, s, ind);
    return;
  }
  if (!op.reduction.empty()) {
    emit_map(op, s, ind);
    return;
  }
  if (!op.parallel) {
    const plan::LoopPlan &lp = loops_->at(&st);
    std::ostringstream loop;
    line(loop, ind, "{");
    enter_loop(lp, loop, ind + 2);
    std::string i = slot(st.index_var);
    line(loop, ind + 2, slot(st.coll_var) + " = " + expr(*st.expr) + ";");
    line(loop, ind + 2, fmt::format("int n = {};", loop_length(st)));
    if (!lp.proved.empty()) {
      // The loop without the checks ir/bounds proved needless, if the
      // proof holds; else as written.
      line(loop, ind + 2, fmt::format("if ({}) {{", bounds_proof(st, lp.proved)));
      proved_ = &lp.proved;
      line(loop, ind + 4, fmt::format("for ({} = 0; {} < n; {} += 1) {{", i, i, i));
      emit_ops(op.inline_ops[0], loop, ind + 6);
      line(loop, ind + 4, "}");
      proved_ = nullptr;
      line(loop, ind + 2, "} else {");
      line(loop, ind + 4, fmt::format("for ({} = 0; {} < n; {} += 1) {{", i, i, i));
      emit_ops(op.inline_ops[0], loop, ind + 6);
      line(loop, ind + 4, "}");
      line(loop, ind + 2, "}");
    } else {
      line(loop, ind + 2, fmt::format("for ({} = 0; {} < n; {} += 1) {{", i, i, i));
      emit_ops(op.inline_ops[0], loop, ind + 4);
      line(loop, ind + 2, "}");
    }
    exit_loop(lp, loop, ind + 2);
    // What the loop leaves for the block's return, in h<id>.
    std::string decls, copies;
    for (const VarDecl *v : lp.held_after) {
      decls += fmt::format("{} h{}; ", c_type(v->type->forced()), v->id);
      copies += fmt::format("h{} = v{}; ", v->id, v->id);
      env_[v] = {fmt::format("h{}", v->id), ""};
    }
    if (!copies.empty()) line(loop, ind + 2, copies);
    line(loop, ind, "}");
    if (!decls.empty()) line(s, ind, decls);
    s << loop.str();
    return;
  }
  std::string i = slot(st.index_var);
  assign_first(st.coll_var, *st.expr, st, s, ind);
  // Chained: iteration i + 1 starts when iteration i's graph is done. The
  // loop's counter holds its detached calls, plus 1 until the last step.
  line(s, ind, i + " = 0;");
  line(s, ind, fmt::format("*KITE_COUNTER(f, {}) = 1;", op.counter_slot));
  line(s, ind, fmt::format("if ({} == 0) {{", loop_length(st)));
  emit_loop_done(op, s, ind + 2);
  line(s, ind, "} else {");
  emit_inline_graph(op.graphs[0], s, ind + 2);
  line(s, ind, "}");
}

// The condition under which `indices`, those ir/bounds found for `loop`,
// are in bounds at every iteration (the loop's n iterations counted in
// `n`, its variables not yet set). Each index is evaluated at the first
// iteration and the next (kite_affine_in).
std::string Printer::bounds_proof(const Stmt &loop, const std::vector<const Expr *> &indices) {
  const VarDecl *coll = loop.coll_var;
  const bool range = coll->type->kind == TypeKind::Range;
  auto at = [&](int k) {
    at_[loop.index_var] = fmt::format("((int){})", k);
    if (range && loop.elem_var)
      at_[loop.elem_var] = k == 0 ? fmt::format("((int){})", slot(coll))
                                  : fmt::format("as_int((uint){} + 1u)", slot(coll));
  };
  std::string proof = "n > 0";
  for (const Expr *e : indices) {
    std::string array = expr(*e->children[0]);
    std::string length = known_length(*e->children[0]);
    at(0);
    std::string first = expr(*e->children[1]);
    at(1);
    std::string next = expr(*e->children[1]);
    at_.clear();
    proof += fmt::format(" && kite_affine_in({}, {}, n - 1, {})", first, next,
                         !length.empty() ? length : "kite_length(c, " + array + ")");
  }
  return proof;
}

// A while is a for whose step tests its condition instead of its index.
void Printer::emit_while(const cps::Op &op, std::ostream &s, int ind) {
  const Stmt &st = *op.stmt;
  if (!op.parallel) {
    const plan::LoopPlan &lp = loops_->at(&st);
    line(s, ind, "{");
    enter_loop(lp, s, ind + 2);
    line(s, ind + 2, "while (" + expr(*st.expr) + ") {");
    emit_ops(op.inline_ops[0], s, ind + 4);
    line(s, ind + 2, "}");
    exit_loop(lp, s, ind + 2);
    line(s, ind, "}");
    return;
  }
  // Chained: the step block tests the condition again when an
  // iteration's graph is done.
  line(s, ind, fmt::format("*KITE_COUNTER(f, {}) = 1;", op.counter_slot));
  line(s, ind, "if (!(" + expr(*st.expr) + ")) {");
  emit_loop_done(op, s, ind + 2);
  line(s, ind, "} else {");
  emit_inline_graph(op.graphs[0], s, ind + 2);
  line(s, ind, "}");
}

void Printer::emit_block_end(const cps::Block &b, std::ostream &s, int ind) {
  // Whoever the signals below wake reads what this block wrote; while
  // `own` holds, they wake nobody but this lane (kite_signal and
  // kite_finish fence before they hand anything over).
  if (!b.notify.empty()) {
    // A block of this record may start elsewhere: `own` is 0 from here.
    if (block_->own_ends_at_end.count(&b)) line(s, ind, "own = 0;");
    const plan::Notify &n = plan_.blocks[b.id].notify;
    line(s, ind, n.dec_first ? "KITE_DEC_FENCE(0);" : "KITE_FENCE();");
    for (int w : b.notify)
      if (std::find(n.tails.begin(), n.tails.end(), w) == n.tails.end())
        line(s, ind, ready_when_last(p_.blocks[w]));
    if (!n.tails.empty()) ready_tail_blocks(n.tails, p_.graphs[b.graph], "0", "return;", s, ind);
  }
  // Its graph does not count its end (cps::Block::end_implied): the
  // event its last op started may already have ended the task.
  if (b.end_implied) return;
  // What this block made ready went on this lane's stack, if the record
  // is still private (KITE_OWN).
  line(s, ind, "if (!own) own = KITE_OWN(c, rec);");
  // The signal's graph either counts this event off with a kite_dec, which
  // releases what this block wrote (KITE_DEC_FENCE), or fences itself.
  if (b.notify.empty()) line(s, ind, "KITE_DEC_FENCE(own);");
  line(s, ind,
       fmt::format("{{ int d = {}(c, rec, -1, 0, {}, {}); if (d >= 0) {} }}",
                   signal_function(-1, b.graph), b.graph, "&own", finish_d()));
}

void Printer::emit_step(const cps::Block &b, std::ostream &s) {
  const cps::Op &op = b.loop;
  const Stmt &st = *op.stmt;
  line(s, 4, "c->n_conts += 1;");
  if (st.kind == StmtKind::While) {
    line(s, 4, "if (" + expr(*st.expr) + ") {");
  } else {
    std::string i = slot(st.index_var);
    line(s, 4, fmt::format("{} += 1;", i));
    line(s, 4, fmt::format("if ({} < {}) {{", i, loop_length(st)));
  }
  emit_inline_graph(op.graphs[0], s, 6);
  line(s, 4, "} else {");
  emit_loop_done(op, s, 6);
  line(s, 4, "}");
}

// A chained loop has stepped past its last iteration.
void Printer::emit_loop_done(const cps::Op &op, std::ostream &s, int ind) {
  line(s, ind, fmt::format("if (atomic_dec(KITE_COUNTER(f, {})) == 1) {{", op.counter_slot));
  emit_signal_node(op.node, s, ind + 2);
  line(s, ind, "}");
}

// A loop that calls no task (plan::LoopPlan): its variables in C
// variables v<id>, and the lengths it measures in n<id>.
void Printer::enter_loop(const plan::LoopPlan &lp, std::ostream &s, int ind) {
  if (++loop_depth_ == 1) {
    // The heap's address in a C variable of its own: read through `c`, it
    // would be read again after every store of an element, which the C
    // compiler must assume may have changed `c->heap` (PoCL's CPU device
    // has one address space; cilksort 10^7 with one worker on the 2-core
    // EPYC: 1700 ms, 1490 with it).
    loop_heap_ = fmt::format("hp{}", loop_heap_count_++);
    line(s, ind, fmt::format("KITE_DATA __global long *const {} = c->heap;", loop_heap_));
  }
  std::string decls;
  for (const VarDecl *v : lp.promoted)
    decls += fmt::format("{} v{} = {}; ", c_type(v->type->forced()), v->id, slot(v));
  if (!decls.empty()) line(s, ind, decls);
  for (const VarDecl *v : lp.promoted) env_[v] = {fmt::format("v{}", v->id), ""};
  std::string lens;
  for (const VarDecl *v : lp.measured) {
    lens += fmt::format("int n{} = kite_length(c, {}); ", v->id, env_[v].name);
    env_[v].length = fmt::format("n{}", v->id);
  }
  if (!lens.empty()) line(s, ind, lens);
}

// The loop has ended: its faults reported and its variables stored back.
void Printer::exit_loop(const plan::LoopPlan &lp, std::ostream &s, int ind) {
  if (--loop_depth_ == 0) loop_heap_.clear();
  if (lp.reports_faults) line(s, ind, "kite_loop_faults(c);");
  for (const VarDecl *v : lp.measured) env_[v].length.clear();
  for (const VarDecl *v : lp.promoted) env_.erase(v);
  std::string stores;
  for (const VarDecl *v : lp.stored) stores += fmt::format("{} = v{}; ", slot(v), v->id);
  if (!stores.empty()) line(s, ind, stores);
}

void Printer::emit_next_iteration(const cps::Block &b, std::ostream &s) {
  const cps::Op &op = b.loop;
  line(s, 4, "c->n_conts += 1;");
  line(s, 4, fmt::format("{} += 1;", slot(op.stmt->index_var)));
  emit_inline_graph(op.graphs[0], s, 4);
}

void Printer::emit_blocks(std::ostream &out) {
  const char *head =
      "void kite_block(kite_ctx *c, int rec, int code) {\n"
      "  kite_rec f = KITE_REC(c, rec);\n"
      "  switch (code) {\n";
  // A large program's blocks are functions of their own; the switch calls
  // them.
  std::ostringstream blocks, functions;
  blocks << head;
  for (const cps::Block &b : p_.blocks) {
    if (b.code < 0) continue;
    helper_task_ = b.task;  // its helpers are its part's
    std::string body = block_body(b);
    helper_task_ = -1;
    if (!large()) {
      blocks << fmt::format("  case {}: {}", b.code, body);
      continue;
    }
    functions << in_part(
        b.task,
        fmt::format(
            "__attribute__((noinline)) void kite_code_{}(kite_ctx *c, int rec, kite_rec f) {}\n",
            b.code, body));
    blocks << in_part(b.task,
                      fmt::format("  case {0}: kite_code_{0}(c, rec, f); break;\n", b.code));
  }
  // A kept frame of a sequential form goes on (print_fast.cpp).
  if (plan_.keeps()) {
    std::string zeros;
    for (int i = 0; i < plan_.fast_arity; ++i) zeros += ", 0L";
    blocks << "#if KITE_KEEP\n  case KITE_CODE_KEPT: {\n";
    // In a program in parts, only the part that kept it (fast.cl).
    if (plan_.split())
      blocks << "#if KITE_SPLIT\n    if (KITE_KEPT_PART(f) != KITE_PART) {\n"
             << "      kite_park(c, KITE_ENTRY(KITE_CODE_KEPT, rec), KITE_KEPT_PART(f));\n"
             << "      return;\n    }\n#endif\n";
    blocks << "    int done = 0;\n"
           << fmt::format("    const long r = kite_fast(c, -1 - rec{}, 0L, &done);\n", zeros)
           << "    if (done == 2 && r != KITE_NONE) kite_kept_go(c, r);\n"
           << "    return;\n  }\n#endif\n";
  }
  // A code of another part waits for its part's launch (parts.cl).
  if (plan_.split())
    blocks << "#if KITE_SPLIT\n  default: kite_block_foreign(c, rec, code); return;\n#endif\n";
  // A large program's blocks leave their task's finish to here (joins.cl).
  blocks << (large() ? "  }\n  kite_finish_pending(c);\n}\n\n" : "  }\n}\n\n");
  out << functions.str() << blocks.str();
}

// The block's parameters held in C variables p<id> (plan::BlockPlan).
void Printer::hold_params(std::ostream &s, int ind) {
  std::string decls;
  for (const VarDecl *v : block_->held_params)
    decls += fmt::format("const {} p{} = {}; ", c_type(v->type->forced()), v->id, slot(v));
  if (!decls.empty()) line(s, ind, decls);
  for (const VarDecl *v : block_->held_params) env_[v] = {fmt::format("p{}", v->id), ""};
}

// One block's code, as a braced statement that returns at its end.
std::string Printer::block_body(const cps::Block &b) {
  std::ostringstream s;
  task_ = b.task;
  block_ = &plan_.blocks[b.id];
  loops_ = &block_->loops;
  const TaskDecl &t = *p_.tasks[b.task].source->decl;
  bool task_entry = p_.tasks[b.task].entry_block == b.id;
  const char *what = task_entry                        ? "entry"
                     : b.kind == cps::BlockKind::Step  ? "next iteration"
                     : b.kind == cps::BlockKind::Split ? "map split"
                     : b.kind == cps::BlockKind::Next  ? "next map iteration"
                                                       : "continuation";
  s << fmt::format("{{ /* task {}: {} b{} */\n", t.name, what, b.id);
  // A continuation's `own`: whether its record is private to this lane
  // (KITE_OWN; then no other lane signals it either).
  const char *own = block_->own_at_start == plan::BlockPlan::Own::Yes         ? "1"
                    : block_->own_at_start == plan::BlockPlan::Own::IfPrivate ? "KITE_OWN(c, rec)"
                                                                              : "0";
  line(s, 4, fmt::format("int own = {};", own));
  if (b.kind == cps::BlockKind::Step) {
    emit_step(b, s);
  } else if (b.kind == cps::BlockKind::Split || b.kind == cps::BlockKind::Next) {
    hold_params(s, 4);
    if (b.kind == cps::BlockKind::Split)
      emit_split(b, s);
    else
      emit_next_iteration(b, s);
  } else {
    if (task_entry) {
      line(s, 4, "c->n_tasks += 1;");
      for (const VarDecl *v : p_.tasks[task_].local_arrays) line(s, 4, slot(v) + " = 0;");
    } else {
      line(s, 4, "c->n_conts += 1;");
    }
    if (task_entry || b.starts_graph) emit_graph_start(b.graph, s, 4);
    if (block_->finish_ahead)
      line(s, 4, "const long link0 = KITE_LINK_AHEAD(f); long ret = 0; int has_ret = 0;");
    hold_params(s, 4);
    emit_ops(b.ops, s, 4);
    emit_block_end(b, s, 4);
  }
  env_.clear();
  line(s, 4, "return;");
  s << "  }\n";
  return s.str();
}

// `own` is 0 from op on, where the plan says it may still be 1
// (plan::BlockPlan::own_ends_at).
void Printer::share_record(const cps::Op &op, std::ostream &s, int ind) {
  if (block_->own_ends_at.count(&op)) line(s, ind, "own = 0;");
}

}  // namespace kite::print
