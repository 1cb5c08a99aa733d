// Task calls: a named task's record made and queued, a tail call, an answer
// at the call site, and a call of a task value through its type's dispatcher.
#include <fmt/format.h>

#include <map>
#include <sstream>

#include "backend-opencl/printer.h"

namespace kite::print {

// A call of a task value goes through a dispatcher per task type: it
// makes the record of whichever task the value names (defunctionalisation,
// §4.2) and returns it, or -1. The plan numbers them (Plan::dispatchers).
void Printer::emit_dispatcher(size_t index) {
  const Type *type = plan_.dispatchers[index];
  std::ostringstream h;
  h << "int kite_call_value_" << index
    << "(kite_ctx *c, long fn, int site, int null_name, long link";
  for (size_t i = 0; i < type->params.size(); ++i)
    h << ", " << c_type(type->params[i]) << " a" << i;
  h << ") {\n";
  h << "  long env;\n  int id = kite_value_task(c, fn, site, null_name, &env);\n";
  h << "  if (id < 0) return -1;\n";
  h << "  int ch = kite_alloc(c, site);\n  if (ch < 0) return -1;\n";
  h << "  kite_rec cf = KITE_REC(c, ch);\n  cf[0] = link;\n";
  h << "  switch (id) {\n";
  for (int id : anf::tasks_of_type(source_, type)) {
    const TaskDecl *t = source_.tasks[size_t(id)].decl.get();
    const cps::Task &ct = p_.tasks[t->id];
    h << fmt::format("  case {}: /* {} */\n", t->id, t->name);
    std::vector<std::string> args;
    for (size_t i = 0; i < t->param_vars.size(); ++i) args.push_back(fmt::format("a{}", i));
    store_params(*t, args, "cf", h, 4);
    if (t->env) h << fmt::format("    KITE_L(cf, {}) = env;\n", ct.var_slot[t->env->id]);
    h << fmt::format("    kite_ready_at(c, ch, {}, site);\n    return ch;\n",
                     p_.blocks[ct.entry_block].code);
  }
  h << "  }\n  kite_error(c, KITE_ERR_NULL, site, null_name, 0);\n  return -1;\n}\n\n";
  dispatch_helpers_ << h.str();
}

void Printer::emit_value_spawn(const cps::Op &op, std::ostream &s, int ind) {
  const Expr &call = *op.stmt->expr;
  const cps::NodeInfo &info = p_.nodes[op.node];
  std::string args =
      fmt::format("{}, {}, {}, ", expr(*call.children[0]), site(call.loc), null_name(call, 0));
  args += op.tail ? "f[0]" : link(op);
  for (size_t i = 1; i < call.children.size(); ++i) args += ", " + expr(*call.children[i]);
  std::string fn =
      fmt::format("kite_call_value_{}", plan_.dispatcher(call.children[0]->type->forced()));
  line(s, ind, fmt::format("{{ /* {} */", anf::to_kite(*op.stmt)));
  if (info.detached_from >= 0)
    line(s, ind + 2, fmt::format("atomic_inc(KITE_COUNTER(f, {}));", info.detached_slot));
  line(s, ind + 2, fmt::format("{}(c, {});", fn, args));
  if (p_.nodes[op.node].direct) line(s, ind + 2, "spawned += 1;");
  if (op.tail) {
    emit_free_arrays(s, ind + 2);
    line(s, ind + 2, "kite_free(c, rec);");
    line(s, ind + 2, "return;");
  }
  line(s, ind, "}");
}

void Printer::emit_spawn(const cps::Op &op, std::ostream &s, int ind) {
  const Expr &call = *op.stmt->expr;
  if (call.children[0]->kind != ExprKind::Name || !call.children[0]->task) {
    emit_value_spawn(op, s, ind);
    return;
  }
  const TaskDecl *callee = call.children[0]->task;
  const cps::Task &ct = p_.tasks[callee->id];
  line(s, ind, fmt::format("{{ /* {} */", anf::to_kite(*op.stmt)));
  if (op.tail) {
    // Everything else in this task has happened: the callee takes over
    // this record (every record has room for any task) and answers this
    // task's caller. The arguments are read before any is written.
    for (size_t i = 0; i < callee->param_vars.size(); ++i)
      line(s, ind + 2,
           fmt::format("{} a{} = {};", c_type(callee->param_vars[i]->type), i,
                       expr(*call.children[i + 1])));
    emit_free_arrays(s, ind + 2);
    std::vector<std::string> args;
    for (size_t i = 0; i < callee->param_vars.size(); ++i) args.push_back(fmt::format("a{}", i));
    store_params(*callee, args, "f", s, ind + 2);
    line(s, ind + 2,
         fmt::format("kite_tail_at(c, rec, {}, {});", p_.blocks[ct.entry_block].code,
                     site(call.loc)));
    line(s, ind + 2, "return;");
    line(s, ind, "}");
    return;
  }
  const bool fast = cps::fast_at_call(p_, op);
  if (!cps::answered_at_call(p_, op) && !fast) {
    std::vector<std::string> args;
    for (size_t i = 0; i < callee->param_vars.size(); ++i)
      args.push_back(expr(*call.children[i + 1]));
    emit_call_record(op, args, s, ind + 2);
    line(s, ind, "}");
    return;
  }
  // The callee may answer here (ir/leaf_calls.h), or run its sequential
  // form here (ir/fast_clones.h): both read the arguments, held in C
  // variables a0, a1, ...
  std::vector<std::string> args;
  for (size_t i = 0; i < callee->param_vars.size(); ++i) {
    line(s, ind + 2,
         fmt::format("const {} a{} = {};", c_type(callee->param_vars[i]->type), i,
                     expr(*call.children[i + 1])));
    args.push_back(fmt::format("a{}", i));
  }
  if (!cps::answered_at_call(p_, op)) {
    emit_fast_call(op, args, s, ind + 2);
    line(s, ind, "}");
    return;
  }
  std::map<const VarDecl *, std::string> saved = at_;
  for (size_t i = 0; i < callee->param_vars.size(); ++i) at_[callee->param_vars[i]] = args[i];
  std::string guard;  // errors at the callee's sites, as it would
  if (ct.leaf.scrutinee) {
    // The union's tag, and the field's value as the binder.
    const Stmt &cs = *ct.source->body[0];
    // Only where the runtime says (KITE_ANSWER_BY_CASE).
    line(s, ind + 2,
         fmt::format("KITE_DATA __global long *u{} = KITE_ANSWER_BY_CASE ? "
                     "kite_field(c, {}, 0, {}, {}) : 0;",
                     op.node, expr(*ct.leaf.scrutinee), site(cs.loc), null_name(cs.null_name)));
    guard = fmt::format("(KITE_ANSWER_BY_CASE && (int)u{}[0] == {})", op.node, ct.leaf.field);
    if (ct.leaf.binder)
      at_[ct.leaf.binder] = fmt::format("{}(u{}, 1)", slot_macro(ct.leaf.binder->type), op.node);
  } else {
    guard = expr(*ct.leaf.guard);
  }
  std::string value = to_bits(callee->result_type, expr(*ct.leaf.value));
  at_ = saved;
  const cps::NodeInfo &info = p_.nodes[op.node];
  // In a direct map, only where the runtime says (KITE_ANSWER_IN_MAPS).
  line(s, ind + 2,
       fmt::format("if ({}{}{}) {{", info.direct ? "KITE_ANSWER_IN_MAPS && " : "",
                   ct.leaf.on_false ? "!" : "", guard));
  line(s, ind + 4, "c->n_answered += 1;");
  answered(op, value, s, ind + 4);
  line(s, ind + 2, "} else {");
  if (fast) {
    emit_fast_call(op, args, s, ind + 4);
  } else {
    share_record(op, s, ind + 4);
    emit_call_record(op, args, s, ind + 4);
  }
  line(s, ind + 2, "}");
  line(s, ind, "}");
}

// A call answered where it stands, by a leaf answer or a sequential form,
// with `value` (raw bits). In a direct map the value goes straight to its
// element (the chunk counts only the calls it spawned); elsewhere it is
// signalled as a call that returned at once: `own` still holds if nothing
// of this record has been queued yet.
void Printer::answered(const cps::Op &op, const std::string &value, std::ostream &s, int ind) {
  const cps::NodeInfo &info = p_.nodes[op.node];
  if (!info.direct) {
    line(s, ind,
         fmt::format("{{ int d = {}(c, rec, {}, {}, -1, &own); if (d >= 0) {} }}",
                     signal_function(op.node, -1), op.node, value, finish_d()));
  } else if (info.store) {
    const Stmt &loop = *element_of(info.store->target->var);
    const Type *elem = info.store->target->var->type;
    line(s, ind,
         fmt::format("{} = {};", element(elem, slot(loop.coll_var), direct_index_, loop.loc, false),
                     from_bits(elem, value)));
  } else {
    line(s, ind, fmt::format("(void)({});", value));
  }
}

// A call of a task with a sequential form (ir/fast_clones.h), outside a
// direct map: where the runtime's rule says so (kite_fast_now), the form
// runs here and its result is signalled as a call that returned at once;
// else, or when the form stopped half way, the call becomes a task.
void Printer::emit_fast_call(const cps::Op &op, const std::vector<std::string> &args,
                             std::ostream &s, int ind) {
  const TaskDecl *callee = op.stmt->expr->children[0]->task;
  std::string call = fmt::format("kite_fast(c, {}", callee->id);
  for (size_t i = 0; i < size_t(plan_.fast_arity); ++i)
    call += i < args.size() ? ", " + to_bits(callee->param_vars[i]->type, args[i]) : ", 0L";
  call += ", " + link(op);
  const cps::NodeInfo &info = p_.nodes[op.node];
  line(s, ind, "int done = 0;");
  // In a direct map, only where the runtime says (KITE_ANSWER_IN_MAPS), as
  // for a leaf answer: its chunk may count on every call being a task.
  // A form that writes asks with 2 (only where forms keep), and where a
  // stop could not keep it (plan::KeptForm::writes) never runs.
  const cps::Task &ct = p_.tasks[size_t(callee->id)];
  const std::string now = !ct.fast_writes
                              ? fmt::format("kite_fast_now(c, {})", ct.fast_wide_skips() ? 1 : 0)
                          : plan_.kept[size_t(callee->id)].writes ? "kite_fast_now(c, 2)"
                                                                  : "0";
  line(s, ind,
       fmt::format("const long r = {}{} ? {}, &done) : 0L;",
                   info.direct ? "KITE_ANSWER_IN_MAPS && " : "", now, call));
  line(s, ind, "if (done == 1) {");
  line(s, ind + 2, "c->n_fast += 1;");
  answered(op, "r", s, ind + 2);
  if (plan_.keeps()) {
    // The form stopped and kept its frames (print_fast.cpp): the bottom
    // one's record answers this call, as the call's task would. Only where
    // forms keep (KITE_KEEP): elsewhere the branch is left out of the
    // kernel (tree sum 22 on an H100: 14.0 ms with it, 13.3 without).
    s << "#if KITE_KEEP\n";
    line(s, ind, "} else if (done == 2) {");
    line(s, ind + 2, "c->n_kept += 1;");
    share_record(op, s, ind + 2);
    if (info.direct) line(s, ind + 2, "spawned += 1;");
    line(s, ind + 2, "if (r != KITE_NONE) kite_kept_go(c, r);");
    s << "#endif\n";
  }
  line(s, ind, "} else {");
  share_record(op, s, ind + 2);
  emit_call_record(op, args, s, ind + 2);
  line(s, ind, "}");
}

// A call's record, made and queued: `args` are the arguments' C values.
void Printer::emit_call_record(const cps::Op &op, const std::vector<std::string> &args,
                               std::ostream &s, int ind) {
  const Expr &call = *op.stmt->expr;
  const TaskDecl *callee = call.children[0]->task;
  const cps::Task &ct = p_.tasks[callee->id];
  line(s, ind, fmt::format("int ch = kite_alloc(c, {});", site(call.loc)));
  line(s, ind, "if (ch >= 0) {");
  line(s, ind + 2, "kite_rec cf = KITE_REC(c, ch);");
  const cps::NodeInfo &info = p_.nodes[op.node];
  if (info.detached_from >= 0)
    line(s, ind + 2, fmt::format("atomic_inc(KITE_COUNTER(f, {}));", info.detached_slot));
  store_params(*callee, args, "cf", s, ind + 2);
  line(s, ind + 2, fmt::format("cf[0] = {};", link(op)));
  line(
      s, ind + 2,
      fmt::format("kite_ready_at(c, ch, {}, {});", p_.blocks[ct.entry_block].code, site(call.loc)));
  if (p_.nodes[op.node].direct) line(s, ind + 2, "spawned += 1;");
  line(s, ind, "}");
}

// The arguments `args` (C values) of a call of `callee`, stored in its
// parameters' slots of record `rec`.
void Printer::store_params(const TaskDecl &callee, const std::vector<std::string> &args,
                           const char *rec, std::ostream &s, int ind) {
  const cps::Task &ct = p_.tasks[size_t(callee.id)];
  for (size_t i = 0; i < callee.param_vars.size(); ++i) {
    const VarDecl *param = callee.param_vars[i];
    line(s, ind,
         fmt::format("{}({}, {}) = {};", slot_macro(param->type), rec, ct.var_slot[param->id],
                     args[i]));
  }
}

// Where a call's result goes: node `op.node` of this record; in a direct
// map, with the iteration's place in its chunk above KITE_NODE_SHIFT.
std::string Printer::link(const cps::Op &op) {
  if (!p_.nodes[op.node].direct) return fmt::format("KITE_CALL_LINK(rec, {})", op.node);
  return fmt::format("KITE_CALL_LINK(rec, {} + (({} - lo) << KITE_NODE_SHIFT))", op.node,
                     direct_index_);
}

}  // namespace kite::print
