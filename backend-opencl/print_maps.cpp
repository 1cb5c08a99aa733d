// Maps, reductions and scans: a map started, its records split, its chunks,
// a direct map's calls, and the kernels of the loops that may run on their own.
#include <fmt/format.h>

#include <map>
#include <utility>

#include "backend-opencl/printer.h"

namespace kite::print {

namespace {

// The most iterations a record of a map or a reduction runs.
const char *chunk_macro(const cps::Op &op) {
  if (op.reduction.scan) return "KITE_SCAN_CHUNK";
  if (!op.reduction.empty()) return "KITE_REDUCE_CHUNK";
  if (op.chunked) return "KITE_MAP_CHUNK";
  return op.direct ? "KITE_MAP_SPAWN_CHUNK" : "KITE_MAP_CALL_CHUNK";
}

// x fold y, in C, with wrapping arithmetic.
std::string fold_expr(const reductions::Accumulator &a, const std::string &x,
                      const std::string &y) {
  bool wide = a.var->type->forced()->kind == TypeKind::Long;
  const char *t = wide ? "long" : "int";
  const char *u = wide ? "ulong" : "uint";
  switch (a.fold) {
    case reductions::Fold::Add:
      return fmt::format("as_{}(({}){} + ({}){})", t, u, x, u, y);
    case reductions::Fold::Mul:
      return fmt::format("as_{}(({}){} * ({}){})", t, u, x, u, y);
    case reductions::Fold::And:
      return fmt::format("({} & {})", x, y);
    case reductions::Fold::Or:
      return fmt::format("({} | {})", x, y);
    case reductions::Fold::Xor:
      return fmt::format("({} ^ {})", x, y);
    case reductions::Fold::Min:
      return fmt::format("min({}, {})", x, y);
    case reductions::Fold::Max:
      return fmt::format("max({}, {})", x, y);
  }
  return x;
}

const char *fold_name(reductions::Fold f) {
  switch (f) {
    case reductions::Fold::Add:
      return "add";
    case reductions::Fold::Mul:
      return "mul";
    case reductions::Fold::And:
      return "and";
    case reductions::Fold::Or:
      return "or";
    case reductions::Fold::Xor:
      return "xor";
    case reductions::Fold::Min:
      return "min";
    case reductions::Fold::Max:
      return "max";
  }
  return "?";
}

// The value that a fold leaves unchanged: a chunk's accumulators start there.
std::string fold_identity(const reductions::Accumulator &a) {
  bool wide = a.var->type->forced()->kind == TypeKind::Long;
  switch (a.fold) {
    case reductions::Fold::Add:
    case reductions::Fold::Or:
    case reductions::Fold::Xor:
      return wide ? "0L" : "0";
    case reductions::Fold::Mul:
      return wide ? "1L" : "1";
    case reductions::Fold::And:
      return wide ? "-1L" : "-1";
    case reductions::Fold::Min:
      return wide ? "LONG_MAX" : "INT_MAX";
    case reductions::Fold::Max:
      return wide ? "LONG_MIN" : "INT_MIN";
  }
  return "0";
}

}  // namespace

void Printer::emit_map(const cps::Op &op, std::ostream &s, int ind) {
  const Stmt &st = *op.stmt;
  assign_first(st.coll_var, *st.expr, st, s, ind);
  line(s, ind, fmt::format("{{ int n = {};", loop_length(st)));
  line(s, ind + 2, "if (n == 0) {");
  emit_signal_node(op.node, s, ind + 4);
  if (op.direct) {
    // A map short enough to be one chunk runs here, in this record.
    line(s, ind + 2, "} else if (n <= KITE_MAP_SPAWN_CHUNK) {");
    line(s, ind + 4,
         fmt::format("KITE_I(f, {}) = 0; KITE_I(f, {}) = -1; /* in the task's record */",
                     op.lo_slot, op.hi_slot));
    line(s, ind + 4, "int lo = 0, hi = n;");
    emit_direct_chunk(op, s, ind + 4);
  }
  if (!op.reduction.empty()) {
    // A reduction short enough to be one chunk runs here, in order; so
    // does a scan whose body reads the array it writes.
    std::string cond = fmt::format("n <= {}", chunk_macro(op));
    for (const VarDecl *a : op.reduction.arrays)
      cond += fmt::format(" || {} == {}", slot(a), slot(st.coll_var));
    line(s, ind + 2, "} else if (" + cond + ") {");
    line(s, ind + 4, "{");
    const plan::LoopPlan &lp = loops_->at(&st);
    enter_loop(lp, s, ind + 6);
    std::string i = slot(st.index_var);
    line(s, ind + 6, fmt::format("for ({} = 0; {} < n; {} += 1) {{", i, i, i));
    emit_ops(p_.blocks[p_.graphs[op.graphs[0]].entry_block].ops, s, ind + 8);
    line(s, ind + 6, "}");
    exit_loop(lp, s, ind + 6);
    line(s, ind + 4, "}");
    emit_signal_node(op.node, s, ind + 4);
  }
  line(s, ind + 2, "} else {");
  // Every iteration runs in a copy of this record, linked to this map node;
  // the parent counts the iterations still running.
  line(s, ind + 4, fmt::format("*KITE_COUNTER(f, {}) = n;", op.counter_slot));
  if (op.reduction.scan) {
    // Room for every chunk's totals; phase 0: the chunks add them up.
    line(s, ind + 4,
         fmt::format("KITE_L(f, {}) = kite_new_array(c, (n + KITE_SCAN_CHUNK - 1) / "
                     "KITE_SCAN_CHUNK * {}, 8, {});",
                     op.totals_slot, op.reduction.accs.size(), site(st.loc)));
    line(s, ind + 4, fmt::format("KITE_I(f, {}) = 0;", op.phase_slot));
  }
  // (With the heap exhausted, kite_new_array has stopped the run.)
  line(s, ind + 4,
       fmt::format(
           "int ch = {}kite_alloc(c, {});",
           op.reduction.scan ? fmt::format("KITE_L(f, {}) == 0 ? -1 : ", op.totals_slot) : "",
           site(st.loc)));
  line(s, ind + 4, "if (ch >= 0) {");
  line(s, ind + 6, "kite_rec cf = KITE_REC(c, ch);");
  emit_copy_vars(op, "cf", s, ind + 6);
  line(s, ind + 6, fmt::format("KITE_I(cf, {}) = 0; KITE_I(cf, {}) = n;", op.lo_slot, op.hi_slot));
  if (op.step_slot >= 0) line(s, ind + 6, fmt::format("KITE_I(cf, {}) = 0;", op.step_slot));
  line(s, ind + 6, fmt::format("cf[0] = KITE_CALL_LINK(rec, {});", op.node));
  const int code = p_.blocks[op.split_block].code;
  if (op.kernel) {
    // A long map runs as its kernel (kite_offload): the record covers no
    // iterations and the counter waits for none, so that queued again
    // after the kernel it only ends the map.
    line(s, ind + 6, "#if KITE_OFFLOAD_MIN > 0");
    line(s, ind + 6, "if (n >= KITE_OFFLOAD_MIN) {");
    line(s, ind + 8,
         fmt::format("*KITE_COUNTER(f, {}) = 0; KITE_I(cf, {}) = n; KITE_I(cf, {}) = 1;",
                     op.counter_slot, op.lo_slot, op.step_slot));
    line(s, ind + 8, fmt::format("if (kite_offload(c, {}, ch, n)) ch = -1;", code));
    line(s, ind + 8,
         fmt::format("else {{ *KITE_COUNTER(f, {}) = n; KITE_I(cf, {}) = 0; KITE_I(cf, {}) = 0; }}",
                     op.counter_slot, op.lo_slot, op.step_slot));
    line(s, ind + 6, "}");
    line(s, ind + 6, "#endif");
    line(s, ind + 6, fmt::format("if (ch >= 0) kite_ready_at(c, ch, {}, {});", code, site(st.loc)));
  } else {
    line(s, ind + 6, fmt::format("kite_ready_at(c, ch, {}, {});", code, site(st.loc)));
  }
  line(s, ind + 4, "}");
  line(s, ind + 2, "}");
  line(s, ind, "}");
}

// Copies, raw, the slots of the variables a map iteration needs (and a
// scan's own).
void Printer::emit_copy_vars(const cps::Op &op, const char *to, std::ostream &s, int ind) {
  std::string copies;
  if (op.reduction.scan)
    copies = fmt::format("{}[{}] = f[{}]; {}[{}] = f[{}]; ", to, op.totals_slot, op.totals_slot, to,
                         op.phase_slot, op.phase_slot);
  for (int v : op.copy_vars) {
    int slot = p_.tasks[task_].var_slot[v];
    copies += fmt::format("{}[{}] = f[{}]; ", to, slot, slot);
  }
  if (!copies.empty()) line(s, ind, copies);
}

void Printer::emit_split(const cps::Block &b, std::ostream &s) {
  const cps::Op &op = b.loop;
  line(s, 4, "c->n_conts += 1;");
  line(s, 4, fmt::format("int lo = KITE_I(f, {}), hi = KITE_I(f, {});", op.lo_slot, op.hi_slot));
  // What a record splits down to: a chunk per lane of a worker for a
  // chunked map or reduction (then dealt out to the lanes, below), else a
  // chunk. A scan's groups start at multiples of its chunk size: chunk
  // k's totals are at k.
  const std::string group = op.step_slot >= 0 ? fmt::format("{} * KITE_LANES", chunk_macro(op))
                                              : std::string(chunk_macro(op));
  if (op.step_slot >= 0) line(s, 4, fmt::format("int step = KITE_I(f, {});", op.step_slot));
  const std::string more =
      fmt::format("{}hi - lo > {}", op.step_slot >= 0 ? "step == 0 && " : "", group);
  // Pushes a record for iterations from, from + step, ... < to (C
  // expressions; step 0: a range it may split further).
  auto push = [&](const std::string &from, const std::string &to, const char *step, int ind) {
    line(s, ind, fmt::format("int ch = kite_alloc(c, {});", site(op.stmt->loc)));
    line(s, ind, "if (ch < 0) return;");
    line(s, ind, "kite_rec cf = KITE_REC(c, ch);");
    emit_copy_vars(op, "cf", s, ind);
    line(s, ind, "cf[0] = f[0];");
    line(
        s, ind,
        fmt::format("KITE_I(cf, {}) = {}; KITE_I(cf, {}) = {};", op.lo_slot, from, op.hi_slot, to));
    if (op.step_slot >= 0) line(s, ind, fmt::format("KITE_I(cf, {}) = {};", op.step_slot, step));
    line(s, ind, "KITE_FENCE();");
    line(s, ind, fmt::format("kite_push(c, KITE_ENTRY({}, ch), {});", b.code, site(op.stmt->loc)));
  };
  if (op.step_slot >= 0 || op.reduction.scan) {
    // On a wide worker a record of a chunked map, a reduction or a scan
    // deals its range out in up to W parts of whole groups at a time, so
    // that n iterations are spread over the GPU in log_W(n) rounds, not
    // log_2(n): a round lasts as long as its longest block, and a split
    // waits in rounds whose other lanes run chunks (Mandelbrot 4096²:
    // 113 -> 81 ms on an H200). Maps whose iterations call tasks split in
    // halves: dealing the 2048 rows of the matrix product 32 ways made
    // it 765 -> 1320 ms, every row's inner map in flight at once.
    line(s, 4, "#if KITE_LANES > 1");
    line(s, 4, fmt::format("while ({}) {{", more));
    line(s, 6, fmt::format("int groups = (hi - lo + {} - 1) / ({});", group, group));
    line(s, 6, "int parts = min(groups, KITE_LANES);");
    line(s, 6, "for (int p = parts - 1; p >= 1; --p) {");
    line(s, 8, fmt::format("int a = lo + (int)((long)groups * p / parts) * ({});", group));
    line(s, 8,
         fmt::format("int b = min(hi, lo + (int)((long)groups * (p + 1) / parts) * ({}));", group));
    push("a", "b", "0", 8);
    line(s, 6, "}");
    line(s, 6, fmt::format("hi = min(hi, lo + (int)((long)groups / parts) * ({}));", group));
    line(s, 4, "}");
    line(s, 4, "#endif");
  }
  line(s, 4, fmt::format("while ({}) {{", more));
  line(s, 6,
       op.reduction.scan ? "int mid = lo + (hi - lo + KITE_SCAN_CHUNK - 1) / KITE_SCAN_CHUNK / 2 * "
                           "KITE_SCAN_CHUNK;"
                         : "int mid = lo + (hi - lo) / 2;");
  push("mid", "hi", "0", 6);
  line(s, 6, "hi = mid;");
  line(s, 4, "}");
  if (op.step_slot >= 0) {
    line(s, 4, "#if KITE_LANES > 1");
    line(s, 4, fmt::format("if (step == 0 && hi - lo > {}) {{", chunk_macro(op)));
    line(s, 6, "for (int k = 1; k < KITE_LANES && lo + k < hi; ++k) {");
    push("lo + k", "hi", "KITE_LANES", 8);
    line(s, 6, "}");
    line(s, 6, "step = KITE_LANES;");
    line(s, 4, "}");
    line(s, 4, "#endif");
    line(s, 4, "if (step == 0) step = 1;");
  }
  if (op.reduction.scan) {
    emit_scan_chunk(b, s);
    return;
  }
  if (op.chunked) {
    // The iterations of this chunk, then the parent's count goes down by
    // their number; the last chunk makes the map node happen there.
    // The chunk's variables live in C variables (no other block reads
    // this record meanwhile); a reduction's accumulators start at their
    // folds' identities and are folded into the parent's record after.
    const cps::Block &entry = p_.blocks[p_.graphs[op.graphs[0]].entry_block];
    line(s, 4, "int parent = KITE_LINK_PARENT(f[0]);");
    line(s, 4, "{");
    declare_accumulators(op, s, 6);
    const plan::LoopPlan &lp = loops_->at(op.stmt);
    enter_loop(lp, s, 6);
    std::string i = slot(op.stmt->index_var);
    line(s, 6, fmt::format("for ({} = lo; {} < hi; {} += step) {{", i, i, i));
    emit_ops(entry.ops, s, 8);
    line(s, 6, "}");
    exit_loop(lp, s, 6);
    if (!op.reduction.empty()) fold_into_parent(op, "parent", "r{}", s, 6);
    line(s, 4, "}");
    if (op.kernel) emit_map_kernel(b);
    line(s, 4, "int done = (hi - lo + step - 1) / step;");
    line(s, 4, "kite_free(c, rec);");
    line(s, 4, "KITE_FENCE();");
    line(s, 4,
         fmt::format("if (atomic_sub(KITE_COUNTER(KITE_REC(c, parent), {}), done) == done) {{",
                     op.counter_slot));
    line(s, 6, "KITE_FENCE();");
    emit_node_in_parent(op, s, 6);
    line(s, 4, "}");
    return;
  }
  if (op.direct) {
    line(s, 4, fmt::format("KITE_I(f, {}) = lo; KITE_I(f, {}) = hi;", op.lo_slot, op.hi_slot));
    emit_direct_chunk(op, s, 4);
    return;
  }
  // The record runs lo .. hi - 1, one iteration's graph after another.
  line(s, 4, fmt::format("KITE_I(f, {}) = lo; KITE_I(f, {}) = hi;", op.lo_slot, op.hi_slot));
  line(s, 4, fmt::format("{} = lo;", slot(op.stmt->index_var)));
  emit_inline_graph(op.graphs[0], s, 4);
}

// A reduction's accumulators as C variables r<id>, from their folds'
// identities (a chunk's or a work-item's share of the loop).
void Printer::declare_accumulators(const cps::Op &op, std::ostream &s, int ind) {
  std::string accs;
  for (const reductions::Accumulator &a : op.reduction.accs) {
    env_[a.var] = {fmt::format("r{}", a.var->id), ""};
    accs +=
        fmt::format("{} r{} = {}; ", c_type(a.var->type->forced()), a.var->id, fold_identity(a));
  }
  if (!accs.empty()) line(s, ind, accs);
}

// Folds each accumulator's share (`value`, a format of its id) into the
// task's record `parent` with one atomic, and ends the accumulators' C
// variables.
void Printer::fold_into_parent(const cps::Op &op, const std::string &parent, const char *value,
                               std::ostream &s, int ind) {
  line(s, ind, fmt::format("kite_rec pf = KITE_REC(c, {});", parent));
  for (const reductions::Accumulator &a : op.reduction.accs) {
    env_.erase(a.var);
    bool wide = a.var->type->forced()->kind == TypeKind::Long;
    line(s, ind,
         fmt::format("kite_fold_{}_{}((volatile __global {} *)&{}, {});", fold_name(a.fold),
                     wide ? "l" : "i", wide ? "long" : "int", slot(a.var, "pf"),
                     fmt::format(fmt::runtime(value), a.var->id)));
  }
}

// The kernel that runs map (or reduction) b.loop as one work-item per
// iteration (kite_offload, in runtime-cl/device/offload.cl): work-item (i, y)
// runs iteration i of the record that resume entry first + y names, with
// the record's variables in C variables, as a chunk does; a work-group
// may span several rows, each another map. A reduction's work-items start
// their accumulators at their folds' identities; each row of a work-group
// folds them in local memory, and its first work-item folds the row's
// into the task's record.
void Printer::emit_map_kernel(const cps::Block &b) {
  const cps::Op &op = b.loop;
  std::ostringstream text;
  std::ostream &s = text;
  s << fmt::format(
      "__kernel void kite_map_{}(__global long *pool, __global long *deques, "
      "__global int *deque_ctl,\n    __global long *printbuf, __global int *ctl, "
      "__global long *ctl64, __global long *stats,\n    __global int *params, "
      "__global long *heap, int first, int count) {{\n",
      b.code);
  line(s, 2, "kite_ctx ctx;");
  line(s, 2, "kite_ctx *c = &ctx;");
  line(s, 2, "kite_map_ctx(c, pool, ctl, ctl64, heap, params);");
  // Row y of the grid runs map first + y; rows past the last are padding.
  line(s, 2, "int y = (int)get_global_id(1);");
  line(s, 2,
       "int rec = y < count ? (int)(ctl64[KITE_CTL64_RESUMES + first + y] & 0xffffffffL) : -1;");
  line(s, 2, "kite_rec f = KITE_REC(c, rec < 0 ? 0 : rec);");
  line(s, 2, "int i = (int)get_global_id(0);");
  // The kernel holds its record's variables itself.
  std::map<const VarDecl *, Held> block_env;
  std::swap(env_, block_env);
  loops_ = &block_->kernel_loops;
  declare_accumulators(op, s, 2);
  // A reduction's work-items all reach the barriers below.
  line(s, 2,
       op.reduction.empty() ? fmt::format("if (rec < 0 || i >= KITE_I(f, {})) return;", op.hi_slot)
                            : fmt::format("if (rec >= 0 && i < KITE_I(f, {})) {{", op.hi_slot));
  const int ind = op.reduction.empty() ? 2 : 4;
  const cps::Block &entry = p_.blocks[p_.graphs[op.graphs[0]].entry_block];
  const plan::LoopPlan &lp = loops_->at(op.stmt);
  enter_loop(lp, s, ind);
  line(s, ind, slot(op.stmt->index_var) + " = i;");
  emit_ops(entry.ops, s, ind);
  exit_loop(lp, s, ind);
  if (!op.reduction.empty()) {
    line(s, 2, "}");
    // Work-groups of at most KITE_MAP_GROUP work-items (kite-run), powers
    // of two on both axes; each row of the group folds its own map's values.
    line(s, 2, "int x = (int)get_local_id(0);");
    line(s, 2, "int l = (int)get_local_id(1) * (int)get_local_size(0) + x;");
    for (const reductions::Accumulator &a : op.reduction.accs)
      line(s, 2,
           fmt::format("__local {} p{}[KITE_MAP_GROUP]; p{}[l] = r{};",
                       c_type(a.var->type->forced()), a.var->id, a.var->id, a.var->id));
    line(s, 2, "barrier(CLK_LOCAL_MEM_FENCE);");
    line(s, 2, "for (int h = (int)get_local_size(0) / 2; h > 0; h /= 2) {");
    std::string folds;
    for (const reductions::Accumulator &a : op.reduction.accs) {
      std::string p = fmt::format("p{}", a.var->id);
      folds += fmt::format("{}[l] = {}; ", p, fold_expr(a, p + "[l]", p + "[l + h]"));
    }
    line(s, 4, "if (x < h) { " + folds + "}");
    line(s, 4, "barrier(CLK_LOCAL_MEM_FENCE);");
    line(s, 2, "}");
    line(s, 2, "if (x == 0 && rec >= 0) {");
    fold_into_parent(op, "KITE_LINK_PARENT(f[0])", "p{}[l]", s, 4);
    line(s, 2, "}");
  }
  std::swap(env_, block_env);
  loops_ = &block_->loops;
  s << "}\n\n";
  kernels_ << in_part(b.task, text.str());
}

// A scan's chunk, lo .. hi - 1 (chunk k = lo / KITE_SCAN_CHUNK). Phase 0
// runs the body without writing elements, from the identities, and
// stores the chunk's totals at k; the last chunk turns the totals into
// prefixes, in order, from the task's accumulators, leaves their final
// values in the task's record, and queues its own record again for
// phase 1, which runs the body from chunk k's prefix, writing elements.
void Printer::emit_scan_chunk(const cps::Block &b, std::ostream &s) {
  const cps::Op &op = b.loop;
  const auto &accs = op.reduction.accs;
  const size_t width = accs.size();
  line(s, 4, fmt::format("int phase = KITE_I(f, {});", op.phase_slot));
  line(s, 4, fmt::format("long totals = KITE_L(f, {}) + 1;", op.totals_slot));
  line(s, 4, fmt::format("long at = (long)(lo / KITE_SCAN_CHUNK) * {};", width));
  line(s, 4, "{");
  for (size_t j = 0; j < width; ++j) {
    const reductions::Accumulator &a = accs[j];
    std::string t = c_type(a.var->type->forced());
    env_[a.var] = {fmt::format("r{}", a.var->id), ""};
    line(s, 6,
         fmt::format("{} r{} = phase == 0 ? {} : ({})c->heap[totals + at + {}];", t, a.var->id,
                     fold_identity(a), t, j));
  }
  const plan::LoopPlan &lp = loops_->at(op.stmt);
  enter_loop(lp, s, 6);
  const cps::Block &entry = p_.blocks[p_.graphs[op.graphs[0]].entry_block];
  std::string i = slot(op.stmt->index_var);
  line(s, 6, "if (phase == 0) {");
  skip_writes_of_ = op.stmt;
  line(s, 8, fmt::format("for ({} = lo; {} < hi; {} += 1) {{", i, i, i));
  emit_ops(entry.ops, s, 10);
  line(s, 8, "}");
  skip_writes_of_ = nullptr;
  for (size_t j = 0; j < width; ++j)
    line(s, 8, fmt::format("c->heap[totals + at + {}] = (long)r{};", j, accs[j].var->id));
  line(s, 6, "} else {");
  line(s, 8, fmt::format("for ({} = lo; {} < hi; {} += 1) {{", i, i, i));
  emit_ops(entry.ops, s, 10);
  line(s, 8, "}");
  line(s, 6, "}");
  exit_loop(lp, s, 6);
  for (const reductions::Accumulator &a : accs) env_.erase(a.var);
  line(s, 4, "}");
  line(s, 4, "int parent = KITE_LINK_PARENT(f[0]);");
  line(s, 4, "if (phase != 0) kite_free(c, rec);");
  line(s, 4, "KITE_FENCE();");
  line(s, 4,
       fmt::format("if (atomic_sub(KITE_COUNTER(KITE_REC(c, parent), {}), hi - lo) != hi - lo) {{",
                   op.counter_slot));
  line(s, 6, "if (phase == 0) kite_free(c, rec);");
  line(s, 6, "return;");
  line(s, 4, "}");
  line(s, 4, "KITE_FENCE();");
  line(s, 4, "kite_rec pf = KITE_REC(c, parent);");
  line(s, 4, fmt::format("int n = {};", loop_length(*op.stmt)));
  line(s, 4, "if (phase == 0) {");
  for (const reductions::Accumulator &a : accs)
    line(s, 6,
         fmt::format("{} r{} = {};", c_type(a.var->type->forced()), a.var->id, slot(a.var, "pf")));
  line(s, 6, "for (long k = 0; k < (n + KITE_SCAN_CHUNK - 1) / KITE_SCAN_CHUNK; ++k) {");
  for (size_t j = 0; j < width; ++j) {
    const reductions::Accumulator &a = accs[j];
    std::string t = c_type(a.var->type->forced());
    line(s, 8, fmt::format("{} t{} = ({})c->heap[totals + k * {} + {}];", t, j, t, width, j));
    line(s, 8, fmt::format("c->heap[totals + k * {} + {}] = (long)r{};", width, j, a.var->id));
    line(s, 8,
         fmt::format("r{} = {};", a.var->id,
                     fold_expr(a, fmt::format("r{}", a.var->id), fmt::format("t{}", j))));
  }
  line(s, 6, "}");
  for (const reductions::Accumulator &a : accs)
    line(s, 6, fmt::format("{} = r{};", slot(a.var, "pf"), a.var->id));
  line(s, 6, fmt::format("*KITE_COUNTER(pf, {}) = n;", op.counter_slot));
  line(s, 6,
       fmt::format("KITE_I(f, {}) = 1; KITE_I(f, {}) = 0; KITE_I(f, {}) = n;", op.phase_slot,
                   op.lo_slot, op.hi_slot));
  line(s, 6, "KITE_FENCE();");
  line(s, 6, fmt::format("kite_push(c, KITE_ENTRY({}, rec), {});", b.code, site(op.stmt->loc)));
  line(s, 6, "return;");
  line(s, 4, "}");
  line(s, 4, "kite_free_array(c, totals - 1, 8);");
  emit_node_in_parent(op, s, 4);
}

// The last chunk of a map, a reduction or a scan: the loop's node
// happens in the record that started it (`parent`).
void Printer::emit_node_in_parent(const cps::Op &op, std::ostream &s, int ind) {
  line(s, ind, "own = KITE_OWN(c, parent);");
  line(s, ind,
       fmt::format("int d = {}(c, parent, {}, 0, -1, &own);", signal_function(op.node, -1),
                   op.node));
  line(s, ind, "if (d >= 0) KITE_BLOCK_FINISH(d, 0);");
}

// Iterations lo .. hi - 1 of a direct map, in this record: the record's
// counter starts high and comes down by one per returning call; after
// the loop it comes down by the rest, so whoever brings it to zero, a
// call or this block, ends the chunk.
//
// An iteration that always makes its one call spawns it, unless the
// callee answers at the call (KITE_ANSWER_IN_MAPS): where it never does,
// the counter starts at the chunk's length instead, and the block counts
// nothing off it after the loop (on a GPU an acquire-release atomic that
// the lane's turn would wait for; UTS's way down its deepest path makes
// one at each level).
void Printer::emit_direct_chunk(const cps::Op &op, std::ostream &s, int ind) {
  const cps::Graph &g = p_.graphs[op.graphs[0]];
  const plan::DirectPlan &dp = block_->direct_maps.at(&op);
  const bool every = dp.every_iteration_calls;
  line(
      s, ind,
      fmt::format("*KITE_COUNTER(f, {}) = {};", g.outstanding_slot,
                  every ? "KITE_ANSWER_IN_MAPS ? KITE_SPAWN_COUNT : hi - lo" : "KITE_SPAWN_COUNT"));
  line(s, ind, "int spawned = 0;");
  line(s, ind, "KITE_COUNT_FENCE();");
  std::string decls;
  for (const VarDecl *v : dp.iteration) {
    env_[v] = {fmt::format("v{}", v->id), ""};
    decls += fmt::format("{} v{} = 0; ", c_type(v->type->forced()), v->id);
  }
  line(s, ind, decls);
  std::string i = slot(op.stmt->index_var);
  direct_index_ = i;
  line(s, ind, fmt::format("for ({} = lo; {} < hi; {} += 1) {{", i, i, i));
  emit_ops(op.inline_ops[0], s, ind + 2);
  line(s, ind, "}");
  for (const VarDecl *v : dp.iteration) env_.erase(v);
  line(s, ind, "KITE_DEC_FENCE(0);");
  line(s, ind,
       fmt::format("if ({}kite_sub(KITE_COUNTER(f, {}), KITE_SPAWN_COUNT - spawned) == "
                   "KITE_SPAWN_COUNT - spawned) {{",
                   every ? "KITE_ANSWER_IN_MAPS && " : "", g.outstanding_slot));
  // Every call has returned: end the chunk as a returning call would.
  line(s, ind + 2, fmt::format("*KITE_COUNTER(f, {}) = 1;", g.outstanding_slot));
  line(s, ind + 2, "int own = KITE_OWN(c, rec);");
  line(s, ind + 2,
       fmt::format("int d = {}(c, rec, -1, 0, {}, &own);", signal_function(-1, g.id), g.id));
  line(s, ind + 2, "if (d >= 0) KITE_BLOCK_FINISH(d, 0);");
  line(s, ind, "}");
}

}  // namespace kite::print
