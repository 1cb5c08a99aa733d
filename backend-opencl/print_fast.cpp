// The tasks' sequential forms (ir/fast_clones.h): kite_fast.
//
// One function, kite_fast(c, task, a0, a1, .., &done), runs the sequential
// form of any task that has one, to the end: OpenCL C has no recursion, so
// a call pushes a frame on a stack in private memory (KITE_FAST_WORDS
// longs) and jumps straight to the callee's code (a label), and a return
// pops it and jumps back to where the caller stopped, through a switch
// over places. A frame holds the place to go on from, (task << 16) |
// resume point, the caller's frame, then the task's variables as raw bits,
// by id. The switch reaches into the middle of `if`s, `case`s and `while`s
// (their code is printed once, structured, with a case label after each
// call). While a task's code runs, its variables are also held in C
// variables (fv<id>), which the device compiler may keep in registers:
// every assignment writes the frame too, and after a call the C variables
// are read again from the frame, so none of them carries a value across a
// call. A task's local arrays (cps::Task::local_arrays) are
// made on the stack above its frame (fast_new): the length, then an
// element per long; a return pops them with the frame, and a `map` over
// one runs as a loop in order (fast_loop). It returns the task's result
// as raw bits with done = 1, or done = 0 where it stopped half way: its
// stack full (kite_fast_full; an array too large for it too), or the
// runtime saying stop (kite_fast_stop, every KITE_FAST_CHECK + 1 calls and
// iterations of `while` loops).
// It writes nothing but its stack, so the call then becomes a
// task and nothing is done twice that anyone could see. (Its errors are
// reported at once, and a second report of one is not made.)
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "backend-opencl/printer.h"

namespace kite::print {

namespace {

// Longs of a task's frame in kite_fast.
size_t frame_size(const anf::Task &task) { return 2 + task.vars.size(); }

// A variable's slot in its frame, as an lvalue of raw bits.
std::string frame_slot(const VarDecl *v) { return fmt::format("s[fp + {}]", 2 + v->id); }

// The C variable that holds a copy of a variable's slot while its task's
// code runs, so that the device compiler may keep it in a register: the
// frame is written through at every assignment, and the copies are read
// again from the frame where the task goes on after a call.
std::string form_var(const VarDecl *v) { return fmt::format("fv{}", v->id); }

// Assigns raw bits to a variable: its copy and its slot.
std::string form_set(const VarDecl *v, const std::string &bits) {
  return fmt::format("{} = {} = {};", frame_slot(v), form_var(v), bits);
}

// Where task t's code starts, and where it goes on after its k-th call.
long place(size_t t, int k) { return (long(t) << 16) | k; }

}  // namespace

void Printer::emit_fast(std::ostream &out) {
  if (!plan_.has_fast()) return;
  std::ostringstream s;
  const bool keeps = plan_.keeps();
  s << "long kite_fast(kite_ctx *c, int task";
  for (int i = 0; i < plan_.fast_arity; ++i) s << ", long a" << i;
  s << ", long link, int *done) {\n";
  s << "  long s[KITE_FAST_WORDS + 1];\n  int fp = 0, sp = 0;\n  long rv = 0;\n  uint calls = 0;\n";
  if (keeps) {
    // Where it stopped: the call it was making (its task, site and
    // arguments), and whether for a full stack; `held`: the record of the
    // bottom frame when it goes on from a kept frame.
    s << "  int held = -1, pt = -1, psite = -1, full = 0;\n";
    s << "  (void)link;\n";
    if (plan_.fast_arity > 0) {
      s << "  long ";
      for (int i = 0; i < plan_.fast_arity; ++i) s << (i ? ", " : "") << "pa" << i << " = 0L";
      s << ";\n";
    }
  }
  s << "  switch (task) {\n";
  for (size_t t = 0; t < p_.tasks.size(); ++t) {
    if (!p_.tasks[t].fast) continue;
    const anf::Task &task = *p_.tasks[t].source;
    std::ostringstream e;
    e << fmt::format("  case {}: /* {} */\n", t, task.decl->name);
    e << fmt::format("    if ({} > KITE_FAST_WORDS) return 0L;\n", frame_size(task));
    e << fmt::format("    s[0] = {}L; s[1] = -1;", place(t, 0));
    for (size_t i = 0; i < task.decl->param_vars.size(); ++i)
      e << fmt::format(" s[{}] = a{};", 2 + task.decl->param_vars[i]->id, i);
    e << fmt::format(" sp = {};\n    break;\n", frame_size(task));
    s << in_parts(plan_.parts.fast_parts[t], e.str());
  }
  if (keeps)
    s << "  default:\n    if (KITE_KEEP && task < 0) {\n      held = -1 - task;\n"
         "      goto kite_restore;\n    }\n    return 0L;\n  }\n";
  else
    s << "  default: return 0L;\n  }\n";
  s << "kite_next:\n  switch ((int)s[fp]) {\n";
  fast_calls_.assign(p_.tasks.size(), 0);
  for (size_t t = 0; t < p_.tasks.size(); ++t) {
    if (!p_.tasks[t].fast) continue;
    const anf::Task &task = *p_.tasks[t].source;
    task_ = int(t);
    std::map<const VarDecl *, std::string> saved = at_;
    for (const VarDecl *v : task.vars) at_[v] = from_bits(v->type, form_var(v));
    for (const VarDecl *a : p_.tasks[t].local_arrays) fast_base_[a] = "(int)" + form_var(a);
    fast_resume_ = 0;
    std::ostringstream form;
    form << fmt::format("  case {}: kite_task_{}: {{ /* task {} */\n", place(t, 0), t,
                        task.decl->name);
    // The copies: the parameters from the frame, the rest zero.
    std::string copies;
    for (const VarDecl *v : task.vars) {
      bool param = std::find(task.decl->param_vars.begin(), task.decl->param_vars.end(), v) !=
                   task.decl->param_vars.end();
      copies += fmt::format("{}{} = {}", copies.empty() ? "" : ", ", form_var(v),
                            param ? frame_slot(v) : "0L");
    }
    if (!copies.empty()) line(form, 4, "long " + copies + ";");
    fast_stmts(task.body, form, 4);
    line(form, 4, "rv = 0L;");
    fast_return(form, 4);
    form << "  }\n";
    s << in_parts(plan_.parts.fast_parts[t], form.str());
    fast_calls_[t] = fast_resume_;
    at_ = saved;
    fast_base_.clear();
    fast_elem_.clear();
  }
  s << "  }\n  return 0L;\n";
  if (keeps) kept_tail(s);
  s << "}\n\n";
  out << s.str();
}

void Printer::fast_stmts(const StmtList &list, std::ostream &s, int ind) {
  for (const anf::StmtPtr &st : list) fast_stmt(*st, s, ind);
}

// kite_fast's end where forms are kept (plan::KeptForm): a stop keeps what
// the form did. Every frame on its stack goes into a record (allocated, or
// the one it went on from): the record's link is the frame below's
// record, or the call's (`link`); its counter waits for the call the frame
// is making and for the later calls that a stop starts now as tasks
// (KeptForm::ahead: the record's mask says which, and their results go to
// its slots); and the frame's copy. The records are all written before
// anything is queued: the calls started ahead, the oldest first, for
// thieves, then the call the top frame was making, in hand. The last of
// a record's calls to return queues it (KITE_CODE_KEPT, kite_kept_signal),
// and kite_fast then goes on from its frame (kite_restore): a return from
// it hands the result to its link (kite_up), and goes on from the frame
// below when that was the last it waited for.
void Printer::kept_tail(std::ostream &s) {
  auto words_of = [&](size_t t) { return plan_.kept[t].frame_words; };
  // The places a kept frame may wait at: by place, its task.
  std::vector<std::pair<long, size_t>> places;
  for (size_t t = 0; t < p_.tasks.size(); ++t)
    if (plan_.kept[t].kept)
      for (int k = 1; k <= fast_calls_[t]; ++k) places.push_back({place(t, k), t});
  // kite_stop: keep, or (where some frame is not kept) lose what it did.
  s << "kite_stop:\n";
  s << "  if (!KITE_KEEP || (c->ctl[KITE_CTL_DONE] | c->ctl[KITE_CTL_STOP])) goto kite_drop;\n";
  s << "  for (int f = fp; f >= 0; f = (int)s[f + 1]) {\n    switch (((int)s[f]) >> 16) {\n";
  for (size_t t = 0; t < p_.tasks.size(); ++t)
    if (plan_.kept[t].kept)
      s << in_parts(plan_.parts.fast_parts[t], fmt::format("    case {}:", t));
  s << "\n      break;\n    default:\n      goto kite_drop;\n    }\n  }\n";
  s << "  {\n    int f = fp, above = -1, upper = -1;\n    for (;;) {\n";
  s << "      const int below = (int)s[f + 1];\n";
  s << "      const int x = below < 0 && held >= 0 ? held : kite_alloc(c, psite);\n";
  s << "      if (x < 0) {\n        *done = 2;\n        return KITE_NONE;\n      }\n";
  s << "      kite_rec X = KITE_REC(c, x);\n";
  s << "      const long mask = x == held ? X[KITE_KEPT_MASK] : 0L;\n";
  s << "      long ahead = 0L;\n      int words = 0;\n      switch ((int)s[f]) {\n";
  for (const auto &[pl, t] : places) {
    long bits = 0;
    for (const auto &[call, list] : plan_.kept[t].ahead)
      if (fast_place_.count(call) && fast_place_.at(call) == pl)
        for (const Stmt *later : list) bits |= 1L << plan_.kept[t].index.at(later);
    s << in_parts(
        plan_.parts.fast_parts[t],
        fmt::format("      case {}: words = {}; ahead = {}L; break;\n", pl, words_of(t), bits));
  }
  s << "      }\n      ahead &= ~mask;\n";
  s << "      *KITE_COUNTER(X, KITE_KEPT_COUNTER) = 1 + popcount(ahead);\n";
  s << "      X[KITE_KEPT_MASK] = mask | ahead;\n";
  s << "      X[KITE_KEPT_RESULT] = ahead; /* until the call it waits for returns */\n";
  s << "      for (int i = 0; i < words; ++i) X[KITE_KEPT_FRAME + i] = s[f + i];\n";
  s << "      if (below < 0 && x != held) X[0] = link;\n";
  s << "      if (upper >= 0) KITE_REC(c, upper)[0] = KITE_KEPT_LINK(x, 0);\n";
  s << "      s[f] = (long)(uint)s[f] | ((long)x << 32);\n";
  s << "      s[f + 1] = (long)(uint)below | ((long)(above + 1) << 32);\n";
  s << "      if (below < 0) break;\n      above = f;\n      upper = x;\n      f = below;\n";
  s << "    }\n    KITE_FENCE(); /* every record, before any call that signals one */\n";
  s << "    for (;;) {\n      const int x = (int)(s[f] >> 32);\n";
  s << "      const long ahead = KITE_REC(c, x)[KITE_KEPT_RESULT];\n";
  s << "      switch ((int)s[f]) {\n";
  for (const auto &[pl, t] : places) {
    const anf::Task &task = *p_.tasks[t].source;
    std::ostringstream e;
    std::map<const VarDecl *, std::string> saved = at_;
    for (const VarDecl *v : task.vars)
      at_[v] = from_bits(v->type, fmt::format("s[f + {}]", 2 + v->id));
    task_ = int(t);
    bool any = false;
    for (const auto &[call, list] : plan_.kept[t].ahead) {
      if (!fast_place_.count(call) || fast_place_.at(call) != pl) continue;
      for (const Stmt *later : list) {
        const int i = plan_.kept[t].index.at(later);
        if (!any) e << fmt::format("      case {}:\n", pl);
        any = true;
        e << fmt::format("        if (ahead & {}L) {{ /* {} */\n", 1L << i, anf::to_kite(*later));
        std::vector<std::string> args;
        const Expr &callx = *later->expr;
        for (size_t a = 1; a < callx.children.size(); ++a) args.push_back(expr(*callx.children[a]));
        kept_spawn(*callx.children[0]->task, args, fmt::format("KITE_KEPT_LINK(x, {})", i + 1),
                   std::to_string(site(callx.loc)), false, e, 10);
        e << "        }\n";
      }
    }
    at_ = saved;
    if (any) s << in_parts(plan_.parts.fast_parts[t], e.str() + "        break;\n");
  }
  s << "      }\n      if ((int)(s[f + 1] >> 32) == 0) break;\n";
  s << "      f = (int)(s[f + 1] >> 32) - 1;\n    }\n";
  s << "    const int x = (int)(s[fp] >> 32);\n    switch (pt) {\n";
  for (size_t t = 0; t < p_.tasks.size(); ++t) {
    if (!p_.tasks[t].fast) continue;
    const TaskDecl &callee = *p_.tasks[t].source->decl;
    std::vector<std::string> args;
    for (size_t i = 0; i < callee.param_vars.size(); ++i)
      args.push_back(from_bits(callee.param_vars[i]->type, fmt::format("pa{}", i)));
    std::ostringstream e;
    e << fmt::format("    case {}:\n", t);
    kept_spawn(callee, args, "KITE_KEPT_LINK(x, 0)", "psite", true, e, 6);
    e << "      break;\n";
    s << in_parts(plan_.parts.fast_parts[t], e.str());
  }
  s << "    }\n    *done = 2;\n    return KITE_NONE;\n  }\n";
  // A stop where some frame is not kept: the call becomes a task.
  s << "kite_drop:\n  if (held >= 0) {\n    *done = 2; /* the run is stopping */\n"
       "    return 0L;\n  }\n  return full ? kite_fast_full(c) : 0L;\n";
  // Goes on from a kept frame, at the bottom of the stack.
  s << "kite_restore: {\n  kite_rec X = KITE_REC(c, held);\n  int words = 0;\n"
       "  switch (((int)X[KITE_KEPT_FRAME]) >> 16) {\n";
  for (size_t t = 0; t < p_.tasks.size(); ++t)
    if (plan_.kept[t].kept)
      s << in_parts(plan_.parts.fast_parts[t],
                    fmt::format("  case {}: words = {}; break;\n", t, words_of(t)));
  s << "  }\n  for (int i = 0; i < words; ++i) s[i] = X[KITE_KEPT_FRAME + i];\n";
  s << "  fp = 0;\n  sp = words;\n  s[1] = -1;\n  rv = X[KITE_KEPT_RESULT];\n  goto "
       "kite_next;\n}\n";
  // The bottom frame, a kept one, returned rv.
  s << "kite_up: {\n  const long up = KITE_REC(c, held)[0];\n"
       "  const int node = KITE_LINK_NODE(up);\n"
       "  if ((node & ((1 << KITE_NODE_SHIFT) - 1)) != KITE_NODE_KEPT) {\n"
       "    kite_finish_at(c, held, 0, 1, up, 1, rv);\n    *done = 2;\n    return KITE_NONE;\n  }\n"
       "  kite_free(c, held);\n  held = KITE_LINK_PARENT(up);\n"
       "  if (!kite_kept_signal(c, held, node >> KITE_NODE_SHIFT, rv)) {\n"
       "    *done = 2;\n    return KITE_NONE;\n  }\n  goto kite_restore;\n}\n";
}

// A call started as a task by a stop: its record, made and queued (pushed
// for thieves), or with `ready` returned as an entry, which kite_fast's
// caller makes ready once it has counted the call as made (a block's
// `own` ends before anything can signal its record).
void Printer::kept_spawn(const TaskDecl &callee, const std::vector<std::string> &args,
                         const std::string &link, const std::string &site_, bool ready,
                         std::ostream &s, int ind) {
  const cps::Task &ct = p_.tasks[size_t(callee.id)];
  line(s, ind, fmt::format("{{ const int ch = kite_alloc(c, {});", site_));
  line(s, ind + 2, "if (ch >= 0) {");
  line(s, ind + 4, "kite_rec cf = KITE_REC(c, ch);");
  for (size_t i = 0; i < callee.param_vars.size(); ++i) {
    const VarDecl *param = callee.param_vars[i];
    line(s, ind + 4,
         fmt::format("{}(cf, {}) = {};", slot_macro(param->type), ct.var_slot[param->id], args[i]));
  }
  line(s, ind + 4, fmt::format("cf[0] = {};", link));
  const int code = p_.blocks[ct.entry_block].code;
  line(s, ind + 4,
       ready ? fmt::format("*done = 2;\n{}return KITE_ENTRY({}, ch);",
                           std::string(size_t(ind + 4), ' '), code)
             : fmt::format("kite_push(c, KITE_ENTRY({}, ch), {});", code, site_));
  line(s, ind + 2, "}");
  line(s, ind, "}");
}

void Printer::fast_stmt(const Stmt &st, std::ostream &s, int ind) {
  switch (st.kind) {
    case StmtKind::Let:
      if (st.vars.size() == 1 && fast_base_.count(st.vars[0])) {
        fast_new(st, s, ind);
        return;
      }
      for (const VarDecl *v : st.vars)
        line(s, ind, form_set(v, st.expr ? to_bits(v->type, expr(*st.expr)) : "0L"));
      return;
    case StmtKind::Set: {
      const Expr &target = *st.target;
      if (target.kind == ExprKind::Index) {
        // The value first, then the element's place, as the task form does.
        line(s, ind,
             fmt::format("{{ const long v = {}; s[{}] = v; }}",
                         to_bits(target.type->forced(), expr(*st.expr)), fast_element(target)));
        return;
      }
      auto elem = fast_elem_.find(target.var);
      const std::string bits = to_bits(target.var->type, expr(*st.expr));
      line(s, ind,
           elem != fast_elem_.end() ? elem->second + " = " + bits + ";"
                                    : form_set(target.var, bits));
      return;
    }
    case StmtKind::Return:
      line(s, ind,
           "rv = " + (st.expr ? to_bits(st.expr->type->forced(), expr(*st.expr)) : "0L") + ";");
      fast_return(s, ind);
      return;
    case StmtKind::If:
      line(s, ind, "if (" + expr(*st.expr) + ") {");
      fast_stmts(st.body, s, ind + 2);
      line(s, ind, "} else {");
      fast_stmts(st.else_body, s, ind + 2);
      line(s, ind, "}");
      return;
    case StmtKind::While:
      // An iteration counts as a call towards the next look at whether to
      // stop, so that a loop with no call in it (a leaf's) cannot hold its
      // form's subtree back from idle workers for long. Only below the
      // form's first frame: stopping there would only start the same loop
      // again as a task.
      line(s, ind, "while (" + expr(*st.expr) + ") {");
      line(s, ind + 2,
           fmt::format("if ((++calls & KITE_FAST_CHECK) == 0 && fp > 0{} && kite_fast_stop(c)) "
                       "return 0L;",
                       plan_.keeps() ? " && held < 0" : ""));
      fast_stmts(st.body, s, ind + 2);
      line(s, ind, "}");
      return;
    case StmtKind::Case:
      fast_case(st, s, ind);
      return;
    case StmtKind::Call:
      fast_call(st, s, ind);
      return;
    case StmtKind::For:
    case StmtKind::Map:
      fast_loop(st, s, ind);
      return;
    case StmtKind::Do:
    case StmtKind::Then:
      break;  // never in a sequential form (ir/fast_clones.h)
  }
  internal_error("statement kind in a sequential form");
}

// A local array (cps::Task::local_arrays), made on the form's stack above
// its frame: its length, then an element per long, as raw bits, zeroed as
// the heap's are. It goes when the frame is popped. One that does not fit
// (or a negative length, which the task form reports) stops the form as a
// full stack does, and the call becomes a task.
void Printer::fast_new(const Stmt &st, std::ostream &s, int ind) {
  const VarDecl *a = st.vars[0];
  line(s, ind, fmt::format("{{ /* {} */", anf::to_kite(st)));
  line(s, ind + 2, fmt::format("const int n = {};", expr(*st.expr->children[0])));
  line(s, ind + 2, "if (n < 0 || sp + 1 + n > KITE_FAST_WORDS) return kite_fast_full(c);");
  line(s, ind + 2, "s[sp] = (long)n;");
  line(s, ind + 2, "for (int k = 1; k <= n; ++k) s[sp + k] = 0L;");
  line(s, ind + 2, form_set(a, "(long)sp") + " sp += 1 + n;");
  line(s, ind, "}");
}

// A `for` or `map` over a local array, in order: its collection's place
// and its index live in the frame, so that a call in its body resumes in
// the middle of the loop.
void Printer::fast_loop(const Stmt &st, std::ostream &s, int ind) {
  const VarDecl *coll = st.coll_var, *index = st.index_var, *elem = st.elem_var;
  line(s, ind, fmt::format("/* {} */", anf::to_kite(st)));
  line(s, ind, form_set(coll, form_var(st.expr->var)));
  line(s, ind, form_set(index, "0L"));
  const std::string base = "(int)" + form_var(coll);
  const std::string i = "(int)" + form_var(index);
  fast_base_[coll] = base;
  fast_elem_[elem] = fmt::format("s[{} + 1 + {}]", base, i);
  at_[elem] = from_bits(elem->type, fast_elem_[elem]);
  line(s, ind, fmt::format("while ({} < (int)s[{}]) {{", i, base));
  fast_stmts(st.body, s, ind + 2);
  line(s, ind + 2, form_set(index, form_var(index) + " + 1L"));
  line(s, ind, "}");
}

// The place on the form's stack of element `index` of a local array,
// checked against its length; a bad index is reported at the task form's
// site, and the place is then the stack's spare long.
std::string Printer::fast_element(const Expr &index) {
  const std::string &base = fast_base_.at(index.children[0]->var);
  return fmt::format("kite_fast_at(c, {}, (int)s[{}], {}, {})", base, base,
                     expr(*index.children[1]), site(index.loc));
}

// An if per branch, not a switch: a switch's case labels would hide the
// resume points in the branches from kite_fast's switch. The tag and the
// field are read before any branch runs.
void Printer::fast_case(const Stmt &st, std::ostream &s, int ind) {
  line(s, ind,
       fmt::format("{{ KITE_DATA __global long *uv = kite_field(c, {}, 0, {}, {});", expr(*st.expr),
                   site(st.loc), null_name(st.null_name)));
  line(s, ind + 2, "const int tag = (int)uv[0];");
  std::string head = "if";
  const CaseBranch *fallback = nullptr;
  for (const CaseBranch &b : st.branches) {
    if (b.field.empty()) {
      fallback = &b;
      continue;
    }
    line(s, ind + 2, fmt::format("{} (tag == {}) {{", head, b.field_index));
    if (b.binder)
      line(s, ind + 4,
           form_set(b.binder,
                    to_bits(b.binder->type, fmt::format("{}(uv, 1)", slot_macro(b.binder->type)))));
    fast_stmts(b.body, s, ind + 4);
    head = "} else if";
  }
  line(s, ind + 2, head == "if" ? "{" : "} else {");
  if (fallback)
    fast_stmts(fallback->body, s, ind + 4);
  else
    line(s, ind + 4, fmt::format("kite_error(c, KITE_ERR_CASE, {}, 0, 0);", site(st.loc)));
  line(s, ind + 2, "}");
  line(s, ind, "}");
}

// A call: its arguments are read before the callee's frame is written, and
// this task's frame says where it goes on. A callee's leaf answer
// (ir/leaf_calls.h) is given here without a frame: fib's calls of fib(1)
// and fib(0), tree sum's of its leaves.
void Printer::fast_call(const Stmt &st, std::ostream &s, int ind) {
  const Expr &call = *st.expr;
  const TaskDecl *callee = call.children[0]->task;
  const cps::Task &ct = p_.tasks[size_t(callee->id)];
  const size_t frame = frame_size(*ct.source);
  const long here = place(size_t(task_), ++fast_resume_);
  fast_place_[&st] = here;
  line(s, ind, fmt::format("{{ /* {} */", anf::to_kite(st)));
  // A call that a stop started as a task (kept_tail): its result, in the
  // record of the frame, kept and gone on from at the bottom of the stack.
  const plan::KeptForm &kept = plan_.kept[size_t(task_)];
  const auto ahead = kept.index.find(&st);
  if (ahead != kept.index.end()) {
    const long bit = 1L << ahead->second;
    line(s, ind + 2,
         fmt::format("if (held >= 0 && fp == 0 && (KITE_REC(c, held)[KITE_KEPT_MASK] & {}L)) {{",
                     bit));
    line(s, ind + 4, fmt::format("KITE_REC(c, held)[KITE_KEPT_MASK] &= ~{}L;", bit));
    line(s, ind + 4,
         fmt::format("rv = KITE_REC(c, held)[KITE_KEPT_RESULT + {}];", ahead->second + 1));
    line(s, ind + 2, "} else {");
    ind += 2;
  }
  for (size_t i = 0; i < callee->param_vars.size(); ++i)
    line(s, ind + 2,
         fmt::format("const long b{} = {};", i,
                     to_bits(callee->param_vars[i]->type, expr(*call.children[i + 1]))));
  const ntg::LeafAnswer &leaf = ct.leaf;
  int in = ind + 2;
  if (leaf.any()) {
    std::map<const VarDecl *, std::string> saved = at_;
    for (size_t i = 0; i < callee->param_vars.size(); ++i)
      at_[callee->param_vars[i]] = from_bits(callee->param_vars[i]->type, fmt::format("b{}", i));
    std::string guard;  // errors at the callee's sites, as it would
    if (leaf.scrutinee) {
      const Stmt &cs = *ct.source->body[0];
      line(s, in,
           fmt::format("KITE_DATA __global long *u = kite_field(c, {}, 0, {}, {});",
                       expr(*leaf.scrutinee), site(cs.loc), null_name(cs.null_name)));
      guard = fmt::format("(int)u[0] == {}", leaf.field);
      if (leaf.binder) at_[leaf.binder] = fmt::format("{}(u, 1)", slot_macro(leaf.binder->type));
    } else {
      guard = (leaf.on_false ? "!" : "") + expr(*leaf.guard);
    }
    std::string value = to_bits(callee->result_type, expr(*leaf.value));
    at_ = saved;
    line(s, in, fmt::format("if ({}) {{", guard));
    line(s, in + 2, fmt::format("rv = {};", value));
    line(s, in, "} else {");
    in += 2;
  }
  if (plan_.keeps()) {
    // A stop: the frames are kept (kept_tail), or the call becomes a task.
    // A kept frame's run calls a task whose frames are not kept as a task.
    line(s, in,
         fmt::format("if ({}sp + {} > KITE_FAST_WORDS || ((++calls & KITE_FAST_CHECK) == 0 && "
                     "kite_fast_stop(c))) {{",
                     plan_.kept[size_t(callee->id)].kept ? "" : "held >= 0 || ", frame));
    std::string pend =
        fmt::format("s[fp] = {}L; pt = {}; psite = {}; full = sp + {} > KITE_FAST_WORDS;", here,
                    callee->id, site(call.loc), frame);
    for (size_t i = 0; i < callee->param_vars.size(); ++i) pend += fmt::format(" pa{0} = b{0};", i);
    line(s, in + 2, pend);
    line(s, in + 2, "goto kite_stop;");
    line(s, in, "}");
  } else {
    line(s, in, fmt::format("if (sp + {} > KITE_FAST_WORDS) return kite_fast_full(c);", frame));
    line(s, in, "if ((++calls & KITE_FAST_CHECK) == 0 && kite_fast_stop(c)) return 0L;");
  }
  std::string push = fmt::format("s[fp] = {}L; s[sp + 1] = fp;", here);
  for (size_t i = 0; i < callee->param_vars.size(); ++i)
    push += fmt::format(" s[sp + {}] = b{};", 2 + callee->param_vars[i]->id, i);
  line(s, in, push);
  line(s, in, fmt::format("fp = sp; sp += {};", frame));
  line(s, in, fmt::format("goto kite_task_{};", callee->id));
  line(s, in - 2, fmt::format("case {}:;", here));
  // Where the task goes on: its copies, from its frame.
  std::string reload;
  for (const VarDecl *v : p_.tasks[size_t(task_)].source->vars)
    reload += fmt::format("{}{} = {};", reload.empty() ? "" : " ", form_var(v), frame_slot(v));
  if (!reload.empty()) line(s, in, reload);
  if (leaf.any()) line(s, ind + 2, "}");
  if (ahead != kept.index.end()) {
    ind -= 2;
    line(s, ind + 2, "}");
  }
  if (st.target) line(s, ind + 2, form_set(st.target->var, "rv"));
  line(s, ind, "}");
}

// The task returns rv: its frame is popped, and its caller goes on, or
// kite_fast returns.
void Printer::fast_return(std::ostream &s, int ind) {
  line(s, ind, "sp = fp; fp = (int)s[fp + 1];");
  if (plan_.keeps())
    line(s, ind, "if (fp < 0) { if (held >= 0) goto kite_up; *done = 1; return rv; }");
  else
    line(s, ind, "if (fp < 0) { *done = 1; return rv; }");
  line(s, ind, "goto kite_next;");
}

}  // namespace kite::print
