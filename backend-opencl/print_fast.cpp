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
#include <functional>
#include <set>
#include <sstream>

#include "backend-opencl/printer.h"
#include "ir/fast_clones.h"
#include "ir/vars.h"

namespace kite::print {

namespace {

// A variable's slot in its frame, as an lvalue of raw bits.
std::string frame_slot(const VarDecl *v) { return fmt::format("s[fp + {}]", 2 + v->id); }

// The C variable that holds a variable's value while its task's code runs,
// so that the device compiler may keep it in a register: a call writes
// the ones read after it to the frame (Printer::fast_save), and they are
// read again from the frame where the task goes on after the call.
std::string form_var(const VarDecl *v) { return fmt::format("fv{}", v->id); }

// The copies of every variable of `task`, read again from its frame (where
// its code goes on after a call).
std::string form_reload(const anf::Task &task) {
  std::string reload;
  for (const VarDecl *v : task.vars)
    reload += fmt::format("{}{} = {};", reload.empty() ? "" : " ", form_var(v), frame_slot(v));
  return reload;
}

// Whether v is one of task's parameters, or its closure (a closure's
// hidden parameter).
bool is_param(const anf::Task &task, const VarDecl *v) {
  const auto &params = task.decl->param_vars;
  return v == task.decl->env || std::find(params.begin(), params.end(), v) != params.end();
}

// Where task t's code starts, and where it goes on after its k-th call.
long place(size_t t, int k) { return (long(t) << 16) | k; }

}  // namespace

// Assigns raw bits to a variable: its C variable (the frame gets it at the
// next call that reads it after, fast_save).
std::string Printer::fast_set(const VarDecl *v, const std::string &bits) const {
  if (fast_typed_.count(v)) return fmt::format("pv{} = {};", v->id, from_bits(v->type, bits));
  return fmt::format("{} = {};", form_var(v), bits);
}

// What a call (or a join that may suspend) writes to its frame before the
// frame is left: the variables the code after it may read before it
// assigns them, found on the structure of the code, and more where in
// doubt. After the call come the rest of each statement list around it,
// a later iteration of each loop around it (its condition, index and
// collection, and the variables its body names but does not declare: the
// ones it declares are made again each iteration) and a `then`'s second
// side; what a statement declares is assigned there before anything reads
// it. Not the call's own target, which the call's result assigns; not a
// parameter the task never assigns, whose slot still holds it; not a
// loop's element, which its collection and index give. Whatever goes on
// from the frame (the call's return, a kept frame going on, calls started
// ahead, kite_kept_move) reads only those slots. Before, every assignment
// wrote its slot: N-queens' form wrote about 60 slots a node, its calls
// now 3.
std::string Printer::fast_save(const Stmt &call) const {
  const anf::Task &task = *p_.tasks[size_t(task_)].source;
  vars::VarSet live, named, declared;
  // What `named` names that `declared` does not make.
  auto add = [&] {
    for (const VarDecl *v : named)
      if (!declared.count(v)) live.insert(v);
    named.clear();
    declared.clear();
  };
  auto add_list = [&](const StmtList &list, size_t from) {
    for (size_t i = from; i < list.size(); ++i) {
      vars::collect(*list[i], vars::Use::Any, named);
      vars::collect(*list[i], vars::Use::Declared, declared);
    }
    add();
  };
  for (size_t level = fast_at_.size(); level-- > 0;) {
    const StmtList &list = *fast_at_[level].list;
    add_list(list, fast_at_[level].i + 1);
    if (level == 0) continue;
    const Stmt &owner = *(*fast_at_[level - 1].list)[fast_at_[level - 1].i];
    switch (owner.kind) {
      case StmtKind::While:
      case StmtKind::For:
      case StmtKind::Map:
        vars::collect(owner, vars::Use::Any, named);
        vars::collect(owner.body, vars::Use::Declared, declared);
        add();
        break;
      case StmtKind::Then:
        if (&list == &owner.body) add_list(owner.else_body, 0);
        break;
      default:
        break;
    }
  }
  std::string save;
  for (const VarDecl *v : task.vars) {
    if (!live.count(v) || (call.target && call.target->var == v) || element_of(v) ||
        fast_params_kept_.count(v))
      continue;
    save += fmt::format("{}{} = {};", save.empty() ? "" : " ", frame_slot(v), form_var(v));
  }
  return save;
}

void Printer::emit_fast(std::ostream &out) {
  if (!plan_.has_fast()) return;
  std::ostringstream s;
  const bool keeps = plan_.keeps();
  // Out of line in a large program, as its other helpers are: the device
  // compiler would otherwise copy every form into each block that may call
  // one, specialised for its task (NVIDIA's did, eight times into one
  // block of tests/fast/sums.kite). A form runs many calls once started,
  // so its call costs it nothing measurable.
  s << "KITE_OUT_OF_LINE_GPU long kite_fast(kite_ctx *c, int task";
  for (int i = 0; i < plan_.fast_arity; ++i) s << ", long a" << i;
  s << ", long link, int *done) {\n";
  s << "  long s[KITE_FAST_WORDS + 1];\n  int fp = 0, sp = 0;\n  long rv = 0;\n  uint calls = 0;\n";
  if (keeps) {
    // Where it stopped: the call it was making (its task, site and
    // arguments), and whether for a full stack; `held`: the record of the
    // bottom frame when it goes on from a kept frame.
    s << "  int held = -1, pt = -1, psite = -1, full = 0;\n";
    // Whether some frame may have a record of calls started ahead: the
    // checks for one cost a register's test until a stop starts some.
    s << "  int kept = 0;\n";
    // Whether it wrote an element of an array on the heap: then a stop
    // must keep its frames, never lose them (plan::KeptForm::writes).
    s << "  int wrote = 0;\n";
    s << "  (void)link;\n";
    if (plan_.fast_arity > 0) {
      s << "  long ";
      for (int i = 0; i < plan_.fast_arity; ++i) s << (i ? ", " : "") << "pa" << i << " = 0L";
      s << ";\n";
    }
    // A closure's, where the call it was making is of a task value.
    if (has_closure_form()) s << "  long penv = 0L;\n";
  }
  s << "  switch (task) {\n";
  for (size_t t = 0; t < p_.tasks.size(); ++t) {
    // (A closure is called by value only, from a form: fast_value_call.)
    if (!p_.tasks[t].fast || p_.tasks[t].source->decl->env) continue;
    const anf::Task &task = *p_.tasks[t].source;
    std::ostringstream e;
    e << fmt::format("  case {}: /* {} */\n", t, task.decl->name);
    e << fmt::format("    if ({} > KITE_FAST_WORDS) return 0L;\n", fast_frame(t));
    e << fmt::format("    s[0] = {}L; s[1] = 0xffffffffL;", place(t, 0));
    for (size_t i = 0; i < task.decl->param_vars.size(); ++i)
      e << fmt::format(" s[{}] = a{};", 2 + task.decl->param_vars[i]->id, i);
    if (const plan::FastAccumulate &acc = plan_.accumulate[t]; acc.call)
      e << fmt::format(" s[{}] = 0L;", acc.slot);
    e << fmt::format(" sp = {};\n    break;\n", fast_frame(t));
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
      copies += fmt::format("{}{} = {}", copies.empty() ? "" : ", ", form_var(v),
                            is_param(task, v) ? frame_slot(v) : "0L");
    }
    // The parameters the task never assigns: their slots hold them
    // throughout (fast_save).
    vars::VarSet written;
    vars::collect(task.body, vars::Use::Written, written);
    fast_params_kept_.clear();
    for (const VarDecl *v : task.decl->param_vars)
      if (!written.count(v)) fast_params_kept_.insert(v);
    if (task.decl->env) fast_params_kept_.insert(task.decl->env);
    if (!copies.empty()) line(form, 4, "long " + copies + ";");
    fast_stmts(task.body, form, 4);
    line(form, 4, "rv = 0L;");
    fast_return(form, 4);
    form << "  }\n";
    std::string text = form.str();
    if (plan_.sums[t].sum) {
      // Where forms keep, the frames are what a stop keeps.
      std::ostringstream sum;
      fast_sum_form(t, copies, sum);
      text = "#if !KITE_KEEP\n" + sum.str() + "#else\n" + text + "#endif\n";
    }
    s << in_parts(plan_.parts.fast_parts[t], text);
    fast_calls_[t] = fast_resume_;
    at_ = saved;
    fast_base_.clear();
    fast_elem_.clear();
  }
  s << "  }\n  return 0L;\n";
  if (keeps) kept_tail(s);
  s << "}\n";
  // The forms, where some worker runs one (KITE_FORMS_RUN, config.cl);
  // elsewhere a stand-in that never runs either: every call site asks
  // kite_fast_now first.
  out << "#if KITE_FORMS_RUN\n";
  if (keeps) kept_helpers(out);
  out << s.str();
  out << "#else\nlong kite_fast(kite_ctx *c, int task";
  for (int i = 0; i < plan_.fast_arity; ++i) out << ", long a" << i;
  out << ", long link, int *done) {\n  return 0L;\n}\n#endif\n\n";
}

bool Printer::has_closure_form() const {
  for (const cps::Task &t : p_.tasks)
    if (t.fast && t.source->decl->env) return true;
  return false;
}

// Longs of task t's frame in kite_fast (plan::Plan::fast_frame_words).
size_t Printer::fast_frame(size_t t) const { return size_t(plan_.fast_frame_words(p_, t)); }

void Printer::fast_stmts(const StmtList &list, std::ostream &s, int ind) {
  const plan::FastAccumulate &acc = plan_.accumulate[size_t(task_)];
  fast_at_.push_back({&list, 0});
  for (size_t i = 0; i < list.size(); ++i) {
    fast_at_.back().i = i;
    if (fast_sum_ && list[i]->kind == StmtKind::Call) {
      i = fast_sum_run(list, i, s, ind);  // the return
      continue;
    }
    if (fast_sum_) {
      fast_stmt(*list[i], s, ind);
      continue;
    }
    if (list[i].get() == acc.call) {
      fast_accumulate(*list[i], *list[i + 1], s, ind);
      ++i;  // the return
      continue;
    }
    if (acc.tails.count(list[i].get())) {
      fast_tail(*list[i], *list[i + 1], s, ind);
      ++i;  // the return
      continue;
    }
    fast_stmt(*list[i], s, ind);
  }
  fast_at_.pop_back();
}

// Kept forms (plan::KeptForm): a stop keeps what the form did.
//
// A stop (kite_fast_stop, every KITE_FAST_CHECK + 1 calls) starts calls
// ahead (kite_kept_promote): the oldest frame that has calls it may start
// (plan::KeptForm::ahead), and every frame below it kept, gets a record (a
// counter, a mask of the calls started, their results) and starts them as
// tasks, which thieves take first; the form goes on. The record's counter
// holds one more than the calls under way: the frame's own, which it gives
// up where it reaches a call it started: with only its own left, the
// result is there; else the form suspends (kite_suspend). A suspended
// form, or one whose stack is full (kite_stop), keeps every frame in a
// record (kite_keep): its link (the frame below's record, or the call's
// `link`), its counter, which now counts the call the frame is making, its
// calls started ahead, and the frame. Every record is written before
// anything that signals one is queued; the call the top frame was making,
// or the top frame's own count, goes back to kite_fast's caller, which
// queues or gives it up once it has counted the call as made (a block's
// `own` ends first; kite_kept_go). The last call to return to a kept
// record queues it (KITE_CODE_KEPT, kite_kept_signal), and kite_fast goes
// on from its frame at the bottom of a new stack (kite_restore); a kept
// frame that returns hands its result to its link (kite_up), and goes on
// from the frame below where that was the last it waited for.
void Printer::kept_tail(std::ostream &s) {
  s << "kite_stop:\n";
  s << "  if (!KITE_KEEP || (c->ctl[KITE_CTL_DONE] | c->ctl[KITE_CTL_STOP])) goto kite_drop;\n";
  // Under the rule, a full stack of a form that has kept and started
  // nothing, while others need work, loses it as a form that does not keep
  // would: its call becomes a task, whose calls the others take. A form
  // that goes on from a kept frame holds its work until it ends or starts
  // calls ahead, so keeping one where workers run dry left them idle (UTS
  // on 16 cores of PoCL: 90-204 ms against 30-35; docs/design.md).
  s << "  if (KITE_FAST == 1 && full && held < 0 && !kept && !wrote && kite_fast_stop(c)) goto "
       "kite_drop;\n";
  // A kept full stack makes the worker's next calls tasks, as a lost one
  // does (kite_fast_full): with two workers, the other takes those (UTS on
  // the 2-core EPYC: 78-80 ms so, 83-86 without). A lone worker needs none.
  s << "  KITE_NARROW_COUNT(c->n_full += full);\n"
       "  if (full && c->num_workers > 1) c->fast_skip = KITE_FAST_SKIP;\n";
  // Every frame kept, each with its arrays (from its place up to the
  // frame above) in a record.
  s << "  for (int f = fp, top = sp; f >= 0; top = f, f = (int)s[f + 1])\n"
       "    if (kite_kept_words(((int)s[f]) >> 16) == 0 ||\n"
       "        top - f > KITE_RECORD_STRIDE - KITE_KEPT_FRAME) goto kite_drop;\n";
  s << "  goto kite_keep;\n";
  s << "kite_suspend:\n  pt = -1;\n";
  // The calls its frames may start ahead start too, where the rule says
  // others need work (a keep of a full stack, with one worker, keeps its
  // frames only, which go on with their calls when they are resumed).
  s << "kite_keep: {\n    int f = fp, above = -1, upper = -1;\n"
       "    const int starts = kite_fast_stop(c);\n    for (;;) {\n";
  s << "      const int below = (int)s[f + 1], pw = (int)(s[f + 1] >> 32);\n";
  s << "      const int x = pw ? pw - 1 : kite_alloc(c, psite);\n";
  s << "      if (x < 0) {\n        *done = 2;\n        return KITE_NONE;\n      }\n";
  s << "      kite_rec X = KITE_REC(c, x);\n";
  s << "      if (!pw) KITE_KEPT_MADE(X);\n";
  s << "      const long mask = pw ? X[KITE_KEPT_MASK] : 0L;\n";
  s << "      const long ahead = (starts ? kite_kept_ahead(s, f) : 0L) & ~mask;\n";
  s << "      const int words = (above >= 0 ? above : sp) - f; /* with its arrays */\n";
  s << "      /* A frame's own count becomes the count of the call it makes. */\n";
  s << "      if (!pw)\n        *KITE_COUNTER(X, KITE_KEPT_COUNTER) = 1 + (int)popcount(ahead);\n"
       "      else if (ahead)\n"
       "        atomic_add(KITE_COUNTER(X, KITE_KEPT_COUNTER), (int)popcount(ahead));\n";
  s << "      X[KITE_KEPT_MASK] = mask | ahead;\n";
  s << "      X[KITE_KEPT_RESULT] = ahead; /* until the call it waits for returns */\n";
  s << "      for (int i = 0; i < words; ++i) X[KITE_KEPT_FRAME + i] = s[f + i];\n";
  // In the place of the link to the frame below (made again where it goes
  // on): its longs, and where it was, which its arrays' places count from.
  s << "      X[KITE_KEPT_FRAME + 1] = (long)(uint)f | ((long)words << 32);\n";
  s << "      if (below < 0 && x != held) X[0] = link;\n";
  s << "      if (upper >= 0) KITE_REC(c, upper)[0] = KITE_KEPT_LINK(x, 0);\n";
  s << "      s[f] = (long)(uint)(int)s[f] | ((long)x << 32);\n";
  s << "      s[f + 1] = (long)(uint)below | ((long)(above + 1) << 32);\n";
  s << "      if (below < 0) break;\n      above = f;\n      upper = x;\n      f = below;\n";
  s << "    }\n    KITE_FENCE(); /* every record, before any call that signals one */\n";
  s << "    for (;;) {\n      const int x = (int)(s[f] >> 32);\n";
  s << "      const long ahead = KITE_REC(c, x)[KITE_KEPT_RESULT];\n";
  s << "      if (ahead) kite_kept_start(c, s, f, x, ahead);\n";
  s << "      if ((int)(s[f + 1] >> 32) == 0) break;\n";
  s << "      f = (int)(s[f + 1] >> 32) - 1;\n    }\n";
  s << "    const int x = (int)(s[fp] >> 32);\n";
  s << "    *done = 2;\n    if (pt < 0) return KITE_ENTRY(KITE_CODE_KEPT_RELEASE, x);\n";
  s << "    switch (pt) {\n";
  for (size_t t = 0; t < p_.tasks.size(); ++t) {
    if (!p_.tasks[t].fast) continue;
    const TaskDecl &callee = *p_.tasks[t].source->decl;
    std::vector<std::string> args;
    for (size_t i = 0; i < callee.param_vars.size(); ++i)
      args.push_back(from_bits(callee.param_vars[i]->type, fmt::format("pa{}", i)));
    std::ostringstream e;
    e << fmt::format("    case {}:\n", t);
    const std::string env =
        callee.env ? fmt::format("KITE_L(cf, {}) = penv;", p_.tasks[t].var_slot[callee.env->id])
                   : "";
    kept_spawn(callee, args, "KITE_KEPT_LINK(x, 0)", "psite", true, e, 6, env);
    e << "      break;\n";
    s << e.str();
  }
  s << "    }\n    return KITE_NONE;\n  }\n";
  // A stop where some frame is not kept: the call becomes a task.
  s << "kite_drop:\n  if (held >= 0) {\n    *done = 2; /* the run is stopping */\n"
       "    return KITE_NONE;\n  }\n  return full ? kite_fast_full(c) : 0L;\n";
  // Goes on from a kept frame, at the bottom of the stack: its own count
  // is back.
  s << "kite_restore: {\n  kite_rec X = KITE_REC(c, held);\n"
       "  const long at = X[KITE_KEPT_FRAME + 1];\n"
       "  const int words = (int)(at >> 32);\n"
       "  for (int i = 0; i < words; ++i) s[i] = X[KITE_KEPT_FRAME + i];\n";
  if (plan_.kept_arrays) s << "  kite_kept_move(s, ((int)s[0]) >> 16, -(int)at);\n";
  s << "  fp = 0;\n  sp = words;\n  s[1] = (long)(uint)-1 | ((long)(held + 1) << 32);\n"
       "  kept = 1;\n"
       "  *KITE_COUNTER(X, KITE_KEPT_COUNTER) = 1;\n  rv = X[KITE_KEPT_RESULT];\n"
       "  goto kite_next;\n}\n";
  // The bottom frame, a kept one, returned rv.
  s << "kite_up: {\n  const long up = KITE_REC(c, held)[0];\n"
       "  const int node = KITE_LINK_NODE(up);\n"
       "  if ((node & ((1 << KITE_NODE_SHIFT) - 1)) != KITE_NODE_KEPT) {\n"
       "    kite_finish_at(c, held, 0, 1, up, 1, rv);\n    *done = 2;\n    return KITE_NONE;\n  }\n"
       "  kite_free(c, held);\n  held = KITE_LINK_PARENT(up);\n"
       "  if (!kite_kept_signal(c, held, node >> KITE_NODE_SHIFT, rv)) {\n"
       "    *done = 2;\n    return KITE_NONE;\n  }\n  goto kite_restore;\n}\n";
}

// The functions kite_fast's kept forms call (kept_tail): by place, the
// calls a frame waiting there may start ahead; by task, its kept frame's
// longs (0: not kept); the calls started; a stop's choice of frame.
void Printer::kept_helpers(std::ostream &out) {
  std::ostringstream s;
  // The places where a frame waits at `call` (the call's own, and its
  // join's where it was started ahead), as case labels.
  auto places_of = [&](const Stmt *call) {
    std::string labels = fmt::format("  case {}:\n", fast_place_.at(call));
    if (fast_join_.count(call)) labels += fmt::format("  case {}:\n", fast_join_.at(call));
    return labels;
  };
  s << "/* Kept forms (print_fast.cpp): the calls the frame at s[f] may start\n"
       " * ahead where it waits, as bits of its record's mask. */\n";
  s << "long kite_kept_ahead(const long *s, int f) {\n  switch ((int)s[f]) {\n";
  for (size_t t = 0; t < p_.tasks.size(); ++t) {
    const plan::KeptForm &k = plan_.kept[t];
    if (!k.kept) continue;
    for (const auto &[call, list] : k.ahead) {
      long bits = 0;
      for (const Stmt *later : list) bits |= 1L << k.index.at(later);
      s << places_of(call) << fmt::format("    return {}L;\n", bits);
    }
    // A map's later iterations (plan::KeptForm::maps), those with a slot.
    for (const auto &[call, map] : k.maps) {
      s << places_of(call);
      s << fmt::format(
          "    {{ const int n = min((int)s[(int)s[f + {}]], KITE_KEPT_SLOTS);\n"
          "      long bits = 0L;\n"
          "      for (int j = (int)s[f + {}] + 1; j < n; ++j) bits |= 1L << j;\n"
          "      return bits; }}\n",
          2 + map->coll_var->id, 2 + map->index_var->id);
    }
  }
  s << "  }\n  return 0L;\n}\n\n";
  s << "/* The longs of task `task`'s kept frame; 0: its frames are not kept. */\n";
  s << "int kite_kept_words(int task) {\n  switch (task) {\n";
  for (size_t t = 0; t < p_.tasks.size(); ++t)
    if (plan_.kept[t].kept)
      s << fmt::format("  case {}:\n    return {};\n", t, plan_.kept[t].frame_words);
  s << "  }\n  return 0;\n}\n\n";
  if (plan_.kept_arrays) {
    s << "/* A kept frame of task `task` that goes on `by` longs from where it was:\n"
         " * the places of its arrays (0: not made) move with it. */\n";
    s << "void kite_kept_move(long *s, int task, int by) {\n  switch (task) {\n";
    for (size_t t = 0; t < p_.tasks.size(); ++t) {
      if (!plan_.kept[t].arrays) continue;
      s << fmt::format("  case {}:\n", t);
      for (const VarDecl *v : plan_.kept[t].places)
        s << fmt::format("    if (s[{0}] != 0) s[{0}] += by;\n", 2 + v->id);
      s << "    return;\n";
    }
    s << "  }\n}\n\n";
  }
  s << "/* The calls `bits` that the frame at s[f] may start ahead where it waits,\n"
       " * started as tasks whose results go to record x. */\n";
  s << "__attribute__((noinline)) void kite_kept_start(kite_ctx *c, long *s, int f, int x, "
       "long bits) {\n";
  s << "  switch ((int)s[f]) {\n";
  for (size_t t = 0; t < p_.tasks.size(); ++t) {
    const plan::KeptForm &k = plan_.kept[t];
    if (!k.kept) continue;
    const anf::Task &task = *p_.tasks[t].source;
    std::map<const VarDecl *, std::string> saved = at_;
    for (const VarDecl *v : task.vars)
      at_[v] = from_bits(v->type, fmt::format("s[f + {}]", 2 + v->id));
    task_ = int(t);
    for (const auto &[call, list] : k.ahead) {
      s << places_of(call);
      for (const Stmt *later : list) {
        const int i = k.index.at(later);
        s << fmt::format("    if (bits & {}L) {{ /* {} */\n", 1L << i, anf::to_kite(*later));
        std::vector<std::string> args;
        const Expr &callx = *later->expr;
        for (size_t a = 1; a < callx.children.size(); ++a) args.push_back(expr(*callx.children[a]));
        kept_spawn(*callx.children[0]->task, args, fmt::format("KITE_KEPT_LINK(x, {})", i + 1),
                   std::to_string(site(callx.loc)), false, s, 6);
        s << "    }\n";
      }
      s << "    break;\n";
    }
    for (const auto &[call, map] : k.maps) {
      // Iteration j's call: the arguments with j for the map's index.
      s << places_of(call);
      // The last first: the next iteration is then the newest entry of this
      // worker's deque, which the frame takes back where no thief took it
      // (fast_call), and thieves take the last ones.
      s << fmt::format(
          "    for (int j = KITE_KEPT_SLOTS - 1; j >= 0; --j)\n"
          "      if (bits & (1L << j)) {{ /* {} */\n",
          anf::to_kite(*call));
      const std::string index = at_[map->index_var];
      at_[map->index_var] = "j";
      std::vector<std::string> args;
      const Expr &callx = *call->expr;
      for (size_t a = 1; a < callx.children.size(); ++a) args.push_back(expr(*callx.children[a]));
      at_[map->index_var] = index;
      // Its slot holds its record until its result comes.
      kept_spawn(*callx.children[0]->task, args, "KITE_KEPT_LINK(x, 1 + j)",
                 std::to_string(site(callx.loc)), false, s, 8,
                 "KITE_REC(c, x)[KITE_KEPT_RESULT + 1 + j] = ch;");
      s << "      }\n    break;\n";
    }
    at_ = saved;
  }
  s << "  }\n}\n\n";
  s << "/* A stop: the oldest frame from s[fp] down that may start calls ahead,\n"
       " * with every frame below it kept, starts them, in a record of its own\n"
       " * whose count holds one more, its own; the form goes on. Returns 1\n"
       " * where it started some. */\n";
  s << "__attribute__((noinline)) int kite_kept_promote(kite_ctx *c, long *s, int fp) {\n";
  s << "  int best = -1;\n  long bits = 0L;\n";
  s << "  for (int f = fp; f >= 0; f = (int)s[f + 1]) {\n";
  s << "    if (kite_kept_words(((int)s[f]) >> 16) == 0) {\n      best = -1;\n      continue;\n"
       "    }\n";
  s << "    const int pw = (int)(s[f + 1] >> 32);\n";
  s << "    const long b = kite_kept_ahead(s, f) & ~(pw ? KITE_REC(c, pw - 1)[KITE_KEPT_MASK] "
       ": 0L);\n";
  s << "    if (b) {\n      best = f;\n      bits = b;\n    }\n  }\n";
  s << "  if (best < 0) return 0;\n";
  s << "  int x = (int)(s[best + 1] >> 32) - 1;\n";
  s << "  if (x < 0) {\n    x = kite_alloc(c, -1);\n    if (x < 0) return 0;\n"
       "    KITE_KEPT_MADE(KITE_REC(c, x));\n"
       "    *KITE_COUNTER(KITE_REC(c, x), KITE_KEPT_COUNTER) = 1 + (int)popcount(bits);\n"
       "    KITE_REC(c, x)[KITE_KEPT_MASK] = bits;\n"
       "    s[best + 1] = (long)(uint)(int)s[best + 1] | ((long)(x + 1) << 32);\n"
       "  } else {\n"
       "    KITE_REC(c, x)[KITE_KEPT_MASK] |= bits;\n"
       "    atomic_add(KITE_COUNTER(KITE_REC(c, x), KITE_KEPT_COUNTER), (int)popcount(bits));\n"
       "  }\n";
  s << "  KITE_FENCE(); /* the record, before the calls that signal it */\n";
  s << "  kite_kept_start(c, s, best, x, bits);\n#if KITE_KEEP\n  c->n_kept += 1;\n#endif\n"
       "  return 1;\n}\n\n";
  out << s.str();
}

// A call started as a task by a stop: its record, made and queued (pushed
// for thieves), or with `ready` returned as an entry, which kite_fast's
// caller makes ready once it has counted the call as made (a block's
// `own` ends before anything can signal its record).
void Printer::kept_spawn(const TaskDecl &callee, const std::vector<std::string> &args,
                         const std::string &link, const std::string &site_, bool ready,
                         std::ostream &s, int ind, const std::string &before_push) {
  const cps::Task &ct = p_.tasks[size_t(callee.id)];
  line(s, ind, fmt::format("{{ const int ch = kite_alloc(c, {});", site_));
  line(s, ind + 2, "if (ch >= 0) {");
  line(s, ind + 4, "kite_rec cf = KITE_REC(c, ch);");
  store_params(callee, args, "cf", s, ind + 4);
  line(s, ind + 4, fmt::format("cf[0] = {};", link));
  if (!before_push.empty()) line(s, ind + 4, before_push);
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
      if (fast_sum_ && !st.expr &&
          std::all_of(st.vars.begin(), st.vars.end(), [&](const VarDecl *v) {
            return plan_.sums[size_t(task_)].results.count(v) != 0;
          }))
        return;  // a call's result, never read (fast_sum_run)
      if (st.vars.size() == 1 && fast_base_.count(st.vars[0])) {
        fast_new(st, s, ind);
        return;
      }
      for (const VarDecl *v : st.vars)
        line(s, ind, fast_set(v, st.expr ? to_bits(v->type, expr(*st.expr)) : "0L"));
      return;
    case StmtKind::Set: {
      const Expr &target = *st.target;
      if (fast_clones::writes_memory(st, p_.tasks[size_t(task_)].local_arrays)) {
        // An element of an array on the heap (cps::Task::fast_writes): the
        // value first, then the element's place, as the task form does;
        // from here on a stop keeps the form's work instead of losing it.
        line(s, ind,
             fmt::format("{{ {} v = {}; {} = v; }}", c_type(target.type->forced()), expr(*st.expr),
                         expr(target)));
        if (plan_.keeps() && !fast_plain_writes_) line(s, ind, "wrote = 1;");
        return;
      }
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
                                    : fast_set(target.var, bits));
      return;
    }
    case StmtKind::Return:
      if (fast_sum_) {  // (fast_sum_form)
        if (st.expr)
          line(s, ind,
               fmt::format("sum = {};",
                           fast_sum_add(to_bits(st.expr->type->forced(), expr(*st.expr)))));
        line(s, ind, fmt::format("goto kite_sum_{};", task_));
        return;
      }
      line(s, ind,
           "rv = " + (st.expr ? to_bits(st.expr->type->forced(), expr(*st.expr)) : "0L") + ";");
      // With what the code added before it started again (fast_accumulate).
      if (plan_.accumulate[size_t(task_)].call)
        line(s, ind, fmt::format("if (!KITE_KEEP) rv = {};", fast_acc_sum("rv")));
      fast_return(s, ind);
      return;
    case StmtKind::If:
      line(s, ind, "if (" + expr(*st.expr) + ") {");
      fast_stmts(st.body, s, ind + 2);
      line(s, ind, "} else {");
      fast_stmts(st.else_body, s, ind + 2);
      line(s, ind, "}");
      return;
    case StmtKind::While: {
      const bool plain = fast_plain_enter(st, s, ind);
      const int in = plain ? ind + 2 : ind;
      line(s, in, "while (" + expr(*st.expr) + ") {");
      fast_iteration_look(s, in + 2);
      fast_stmts(st.body, s, in + 2);
      line(s, in, "}");
      if (plain) fast_plain_leave(st, s, ind);
      return;
    }
    case StmtKind::Case:
      fast_case(st, s, ind);
      return;
    case StmtKind::Call:
      if (st.expr->children[0]->kind == ExprKind::Name && st.expr->children[0]->task)
        fast_call(st, s, ind);
      else
        fast_value_call(st, s, ind);
      return;
    case StmtKind::For:
    case StmtKind::Map:
      fast_loop(st, s, ind);
      return;
    case StmtKind::Then:  // one side, then the other
      fast_stmts(st.body, s, ind);
      fast_stmts(st.else_body, s, ind);
      return;
    case StmtKind::Do:
      break;  // never in a sequential form (ir/fast_clones.h)
  }
  internal_error("statement kind in a sequential form");
}

// A local array (cps::Task::local_arrays), made on the form's stack above
// its frame: its length, then an element per long, as raw bits, zeroed as
// the heap's are. It goes when the frame is popped. One that does not fit
// (or a negative length, which the task form reports) stops the form as a
// full stack does, and the call becomes a task. Where forms keep and the
// frame is kept with its arrays (plan::KeptForm::arrays), such an array
// pops the frame instead, before its first call, and its call becomes a
// task from the frame below, which is kept (kite_stop; the arguments are
// the parameters, which the task assigns only after its arrays): a form
// that went on from a kept frame cannot lose its work. There, too, a frame
// with its arrays must fit a record.
void Printer::fast_new(const Stmt &st, std::ostream &s, int ind) {
  const VarDecl *a = st.vars[0];
  line(s, ind, fmt::format("{{ /* {} */", anf::to_kite(st)));
  line(s, ind + 2, fmt::format("const int n = {};", expr(*st.expr->children[0])));
  if (!plan_.kept[size_t(task_)].arrays) {
    line(s, ind + 2, "if (n < 0 || sp + 1 + n > KITE_FAST_WORDS) return kite_fast_full(c);");
  } else {
    line(s, ind + 2,
         "if (n < 0 || sp + 1 + n > KITE_FAST_WORDS || (KITE_KEEP && (held >= 0 || kept) && "
         "sp + 1 + n - fp > KITE_RECORD_STRIDE - KITE_KEPT_FRAME)) {");
    const TaskDecl &decl = *p_.tasks[size_t(task_)].source->decl;
    // (No site of its own: where the record pool is exhausted, as for a
    // stop's calls started ahead, the error names none.)
    std::string pend = fmt::format("pt = {}; psite = -1; full = 1;", task_);
    for (size_t i = 0; i < decl.param_vars.size(); ++i)
      pend += fmt::format(" pa{} = {};", i, frame_slot(decl.param_vars[i]));
    line(s, ind + 4, "if (!KITE_KEEP || fp == 0) return kite_fast_full(c);");
    line(s, ind + 4, pend);
    line(s, ind + 4, "sp = fp; fp = (int)s[fp + 1];");
    line(s, ind + 4, "goto kite_stop;");
    line(s, ind + 2, "}");
  }
  line(s, ind + 2, "s[sp] = (long)n;");
  line(s, ind + 2, "for (int k = 1; k <= n; ++k) s[sp + k] = 0L;");
  line(s, ind + 2, fast_set(a, "(long)sp") + " sp += 1 + n;");
  line(s, ind, "}");
}

// The outermost loop of a form that calls no task (insertion sort's and a
// merge's): no call returns into it, so its assignments write the
// variables' copies alone (fast_set), which the C compiler keeps in
// registers, and fast_plain_leave writes back the slots of those it
// assigned; the lengths of the heap arrays it indexes and does not assign
// are read once before it (kite_elem_n then reads no length of its own).
// Returns whether it is one (then fast_plain_leave follows the loop).
bool Printer::fast_plain_enter(const Stmt &loop, std::ostream &s, int ind) {
  if (fast_plain_ > 0 || anf::calls_any(loop.body)) return false;
  vars::VarSet written;
  vars::collect(loop, vars::Use::Written, written);
  std::set<const VarDecl *> arrays;
  std::function<void(const Expr &)> scan = [&](const Expr &e) {
    ast::for_each_expr(e, [&](const Expr &x) {
      if (x.kind != ExprKind::Index) return;
      const Expr &a = *x.children[0];
      if (a.kind == ExprKind::Name && a.var && at_.count(a.var) && !fast_base_.count(a.var) &&
          !written.count(a.var) && a.var->type->forced()->kind == TypeKind::Array)
        arrays.insert(a.var);
    });
  };
  anf::for_each_stmt(loop.body, [&](const Stmt &st) {
    if (st.expr) scan(*st.expr);
    if (st.target) scan(*st.target);
  });
  if (loop.expr) scan(*loop.expr);
  std::vector<const VarDecl *> by_id(arrays.begin(), arrays.end());
  std::sort(by_id.begin(), by_id.end(),
            [](const VarDecl *a, const VarDecl *b) { return a->id < b->id; });
  line(s, ind, "{");
  // The heap's address in a C variable, as a task form's loop has it
  // (enter_loop): elements are then plain loads and stores, and a bad
  // index is reported where the loop ends (kite_loop_faults).
  ++loop_depth_;
  loop_heap_ = fmt::format("hp{}", loop_heap_count_++);
  line(s, ind + 2, fmt::format("KITE_DATA __global long *const {} = c->heap;", loop_heap_));
  for (const VarDecl *a : by_id) {
    const std::string n = fmt::format("fl{}", a->id);
    line(s, ind + 2, fmt::format("const int {} = kite_length(c, {});", n, at_.at(a)));
    fast_lengths_[a] = n;
  }
  // The variables it names, but not its loops' collections, indices and
  // elements (whose code reads the copies), as C variables of their types:
  // the copies hold raw bits, whose conversions at every use the C
  // compiler does not always see through.
  std::set<const VarDecl *> loops{loop.coll_var, loop.index_var, loop.elem_var};
  anf::for_each_stmt(loop.body, [&](const Stmt &st) {
    if (st.kind == StmtKind::For || st.kind == StmtKind::Map)
      loops.insert({st.coll_var, st.index_var, st.elem_var});
  });
  vars::VarSet named;
  vars::collect(loop, vars::Use::Any, named);
  for (const VarDecl *v : named) {
    if (loops.count(v) || !at_.count(v) || element_of(v) || fast_base_.count(v) ||
        fast_elem_.count(v))
      continue;
    line(s, ind + 2, fmt::format("{} pv{} = {};", c_type(v->type), v->id, at_.at(v)));
    fast_plain_saved_[v] = at_.at(v);
    at_[v] = fmt::format("pv{}", v->id);
    fast_typed_.insert(v);
  }
  // Whether it writes an element of a heap array: then the form has
  // written from here on (a loop of no iteration writes nothing, but only
  // keeps the form from losing its work).
  bool writes = false;
  anf::for_each_stmt(loop.body, [&](const Stmt &st) {
    writes = writes || fast_clones::writes_memory(st, p_.tasks[size_t(task_)].local_arrays);
  });
  fast_plain_writes_ = plan_.keeps() && writes;
  if (fast_plain_writes_) line(s, ind + 2, "wrote = 1;");
  ++fast_plain_;
  return true;
}

// The indices ir/bounds proved for a range `for` of the task form that
// calls no task (plan::LoopPlan::proved), or null.
const std::vector<const Expr *> *Printer::fast_proved(const Stmt &loop) const {
  for (const plan::BlockPlan &b : plan_.blocks)
    if (auto it = b.loops.find(&loop); it != b.loops.end())
      return it->second.proved.empty() ? nullptr : &it->second.proved;
  return nullptr;
}

// bounds_proof's test in a form, whose range is in its copy and whose
// lengths fast_plain_enter read: each index at the first iteration and the
// next (the loop's iterations counted in kite_range_length).
std::string Printer::fast_bounds_proof(const Stmt &loop, const std::vector<const Expr *> &indices) {
  const std::string coll = form_var(loop.coll_var);
  const std::string n = fmt::format("kite_range_length({})", coll);
  std::map<const VarDecl *, std::string> saved = at_;
  std::string proof = n + " > 0";
  for (const Expr *e : indices) {
    std::string length = known_length(*e->children[0]);
    if (length.empty()) length = fmt::format("kite_length(c, {})", expr(*e->children[0]));
    std::string at[2];
    for (int k = 0; k < 2; ++k) {
      at_[loop.index_var] = fmt::format("((int){})", k);
      if (loop.elem_var)
        at_[loop.elem_var] =
            k == 0 ? fmt::format("((int){})", coll) : fmt::format("as_int((uint){} + 1u)", coll);
      at[k] = expr(*e->children[1]);
    }
    at_ = saved;
    proof += fmt::format(" && kite_affine_in({}, {}, {} - 1, {})", at[0], at[1], n, length);
  }
  return proof;
}

void Printer::fast_plain_leave(const Stmt &loop, std::ostream &s, int ind) {
  --fast_plain_;
  fast_plain_writes_ = false;
  --loop_depth_;
  loop_heap_.clear();
  fast_lengths_.clear();
  line(s, ind + 2, "kite_loop_faults(c);");
  vars::VarSet written;
  vars::collect(loop, vars::Use::Written, written);
  std::string back;
  for (const VarDecl *v : written)
    if (at_.count(v) && !element_of(v) && fast_typed_.count(v))
      back += (back.empty() ? "" : " ") +
              fmt::format("{} = {};", form_var(v), to_bits(v->type, at_.at(v)));
  if (!back.empty()) line(s, ind + 2, back);
  line(s, ind, "}");
  for (const auto &[v, was] : fast_plain_saved_) at_[v] = was;
  fast_plain_saved_.clear();
  fast_typed_.clear();
}

// An iteration of a loop that is not over a local array counts as a call
// towards the next look at whether to stop (`while`, and `for` over a
// range), so that a loop with no call in it (a leaf's) cannot hold its
// form's subtree back from idle workers for long. Only below the form's
// first frame: stopping there would only start the same loop again as a
// task. A `for` over a range that calls no task looks once per chunk of
// KITE_FAST_CHECK + 1 iterations instead (`when`, fast_loop).
void Printer::fast_iteration_look(std::ostream &s, int ind, const char *when) {
  // In a loop that calls no task and writes memory, the form has written
  // (fast_plain_enter): a look could only start calls ahead under
  // --fast-calls stop, and it costs the loop dearly elsewhere (cilksort
  // 10^7 with one worker of PoCL on the 2-core EPYC: 1,516 ms with it in
  // the merges' loops, 1,270 without, medians of 7).
  if (fast_plain_writes_) s << "#if KITE_FAST == 3\n";
  line(s, ind,
       fmt::format(plan_.keeps() ? "if ({} && fp > 0 && kite_fast_stop(c)) {{ if (!KITE_KEEP || "
                                   "(held < 0 && !kept && !wrote)) return 0L; if (KITE_FAST != 1 "
                                   "&& kite_kept_promote(c, s, (int)s[fp + 1])) kept = 1; }}"
                                 : "if ({} && fp > 0 && kite_fast_stop(c)) return 0L;",
                   when));
  if (fast_plain_writes_) s << "#endif\n";
}

// A `for` or `map` over a local array, or a `for` over a range, in order:
// its collection (the array's place, or the range) and its index live in
// the frame, so that a call in its body resumes in the middle of the loop.
void Printer::fast_loop(const Stmt &st, std::ostream &s, int ind) {
  const VarDecl *coll = st.coll_var, *index = st.index_var, *elem = st.elem_var;
  line(s, ind, fmt::format("/* {} */", anf::to_kite(st)));
  if (coll->type->kind == TypeKind::Range) {
    // The range checked where the task form checks it; the element is
    // first + index, as there.
    const bool plain = fast_plain_enter(st, s, ind);
    const int in = plain ? ind + 2 : ind;
    line(s, in, fast_set(coll, to_bits(coll->type, expr(*st.expr))));
    line(s, in, fast_set(index, "0L"));
    const std::string i = "(int)" + form_var(index);
    auto print = [&](int at) {
      if (!plain) {
        if (elem) at_[elem] = fmt::format("((int){} + {})", form_var(coll), i);
        line(s, at, fmt::format("while ({} < kite_range_length({})) {{", i, form_var(coll)));
        fast_iteration_look(s, at + 2);
        fast_stmts(st.body, s, at + 2);
        line(s, at + 2, fast_set(index, form_var(index) + " + 1L"));
        line(s, at, "}");
        return;
      }
      // No call returns into it: its iterations in chunks of
      // KITE_FAST_CHECK + 1, each a counted loop with no look in it, which
      // the C compiler may unroll and vectorise, and a look after each
      // whole chunk (a loop of tests/fast/leaf_loops.kite's kind with one
      // worker of PoCL on the 2-core EPYC: 237-436 ms with a look in
      // every iteration, 68-69 ms so, 62-101 ms with no look at all).
      const std::string x = fmt::format("fx{}", index->id), n = fmt::format("fn{}", index->id);
      const std::string saved = at_[index];
      at_[index] = x;
      if (elem) at_[elem] = fmt::format("((int){} + {})", form_var(coll), x);
      line(s, at, fmt::format("{{ const int {} = kite_range_length({});", n, form_var(coll)));
      line(s, at + 2, fmt::format("while ({} < {}) {{", i, n));
      line(s, at + 4, fmt::format("const int lim = min({} - {}, KITE_FAST_CHECK + 1);", n, i));
      line(s, at + 4, fmt::format("int {} = {};", x, i));
      line(s, at + 4, fmt::format("for (const int end = {0} + lim; {0} < end; ++{0}) {{", x));
      fast_stmts(st.body, s, at + 6);
      line(s, at + 4, "}");
      line(s, at + 4, fmt::format("{} = (long){};", form_var(index), x));
      fast_iteration_look(s, at + 4, "lim == KITE_FAST_CHECK + 1");
      line(s, at + 2, "}");
      line(s, at, "}");
      at_[index] = saved;
    };
    // In a loop that calls no task, the indices ir/bounds proved for the
    // task form's loop unchecked where the same test before it holds, as
    // there (emit_for).
    if (const std::vector<const Expr *> *proved = plain ? fast_proved(st) : nullptr) {
      line(s, in, fmt::format("if ({}) {{", fast_bounds_proof(st, *proved)));
      proved_ = proved;
      print(in + 2);
      proved_ = nullptr;
      line(s, in, "} else {");
      print(in + 2);
      line(s, in, "}");
    } else {
      print(in);
    }
    if (plain) fast_plain_leave(st, s, ind);
    return;
  }
  if (!fast_base_.count(st.expr->kind == ExprKind::Name ? st.expr->var : nullptr)) {
    // An array on the heap: its elements read there, as the task form
    // reads them, and its length at each iteration where a call in the
    // body returns into the loop. A loop that calls no task is printed as
    // the task form's (fast_plain_enter), its length read once.
    const bool plain = fast_plain_enter(st, s, ind);
    const int in = plain ? ind + 2 : ind;
    line(s, in, fast_set(coll, to_bits(coll->type, expr(*st.expr))));
    line(s, in, fast_set(index, "0L"));
    const std::string i = "(int)" + form_var(index);
    at_[elem] = element(elem->type, form_var(coll), i, st.loc, false);
    const std::string n = fmt::format("fn{}", index->id);
    if (plain) line(s, in, fmt::format("const int {} = kite_length(c, {});", n, form_var(coll)));
    line(s, in,
         fmt::format("while ({} < {}) {{", i,
                     plain ? n : fmt::format("kite_length(c, {})", form_var(coll))));
    fast_iteration_look(s, in + 2);
    fast_stmts(st.body, s, in + 2);
    line(s, in + 2, fast_set(index, form_var(index) + " + 1L"));
    line(s, in, "}");
    if (plain) fast_plain_leave(st, s, ind);
    return;
  }
  line(s, ind, fast_set(coll, form_var(st.expr->var)));
  line(s, ind, fast_set(index, "0L"));
  const std::string base = "(int)" + form_var(coll);
  const std::string i = "(int)" + form_var(index);
  fast_base_[coll] = base;
  fast_elem_[elem] = fmt::format("s[{} + 1 + {}]", base, i);
  at_[elem] = from_bits(elem->type, fast_elem_[elem]);
  line(s, ind, fmt::format("while ({} < (int)s[{}]) {{", i, base));
  fast_stmts(st.body, s, ind + 2);
  line(s, ind + 2, fast_set(index, form_var(index) + " + 1L"));
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
           fast_set(b.binder,
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

// A call's arguments (b<i>), read before anything of the callee's is
// written, and the callee's leaf answer where it has one (ir/leaf_calls.h):
// `if (guard) { rv = value; } else {` left open. Returns the indentation of
// the code of the call proper.
int Printer::fast_call_arguments(const Stmt &st, std::ostream &s, int ind) {
  const Expr &call = *st.expr;
  const TaskDecl *callee = call.children[0]->task;
  std::vector<std::string> names;
  for (size_t i = 0; i < callee->param_vars.size(); ++i) {
    names.push_back(fmt::format("b{}", i));
    line(s, ind,
         fmt::format("const long b{} = {};", i,
                     to_bits(callee->param_vars[i]->type, expr(*call.children[i + 1]))));
  }
  const std::optional<FastLeaf> leaf = fast_leaf(*callee, names, s, ind);
  if (!leaf) return ind;
  line(s, ind, fmt::format("if ({}) {{", leaf->guard));
  line(s, ind + 2, fmt::format("rv = {};", leaf->value));
  line(s, ind, "} else {");
  return ind + 2;
}

// The leaf answer (ir/leaf_calls.h) of a call of `callee` whose arguments
// are the raw bits in C variables `args`: what it reads first (a union's
// tag, through a pointer named `u`, with the callee's errors at its sites)
// is printed here; its guard and value are returned. None where the
// callee gives none.
std::optional<Printer::FastLeaf> Printer::fast_leaf(const TaskDecl &callee,
                                                    const std::vector<std::string> &args,
                                                    std::ostream &s, int ind) {
  const cps::Task &ct = p_.tasks[size_t(callee.id)];
  const ntg::LeafAnswer &leaf = ct.leaf;
  if (!leaf.any()) return std::nullopt;
  std::map<const VarDecl *, std::string> saved = at_;
  for (size_t i = 0; i < callee.param_vars.size(); ++i)
    at_[callee.param_vars[i]] = from_bits(callee.param_vars[i]->type, args[i]);
  FastLeaf out;
  if (leaf.scrutinee) {
    const Stmt &cs = *ct.source->body[0];
    line(s, ind,
         fmt::format("KITE_DATA __global long *u = kite_field(c, {}, 0, {}, {});",
                     expr(*leaf.scrutinee), site(cs.loc), null_name(cs.null_name)));
    out.guard = fmt::format("(int)u[0] == {}", leaf.field);
    if (leaf.binder) at_[leaf.binder] = fmt::format("{}(u, 1)", slot_macro(leaf.binder->type));
  } else {
    out.guard = (leaf.on_false ? "!" : "") + expr(*leaf.guard);
  }
  out.value = to_bits(callee.result_type, expr(*leaf.value));
  at_ = saved;
  return out;
}

// The sum of the accumulator of the running task's frame and `bits`, as
// raw bits of the task's result type (plan::FastAccumulate), wrapping.
std::string Printer::fast_acc_sum(const std::string &bits) const {
  const plan::FastAccumulate &acc = plan_.accumulate[size_t(task_)];
  if (acc.addend->type->forced()->kind == TypeKind::Long)
    return fmt::format("as_long((ulong)s[fp + {}] + (ulong)({}))", acc.slot, bits);
  return fmt::format("(long)as_int((uint)(int)s[fp + {}] + (uint)(int)({}))", acc.slot, bits);
}

// `y <- t(..)` and `return a + y` in t's own form (plan::FastAccumulate):
// where forms do not keep, a goes into the frame's accumulator and t's code
// starts again in the same frame on the call's arguments (a leaf answer
// returns at once, with the accumulator); where they keep, the call and the
// return as they are, the accumulator never read.
void Printer::fast_accumulate(const Stmt &st, const Stmt &ret, std::ostream &s, int ind) {
  const plan::FastAccumulate &acc = plan_.accumulate[size_t(task_)];
  fast_tail(st, ret, s, ind,
            fmt::format("s[fp + {}] = {};", acc.slot, fast_acc_sum(form_var(acc.addend))),
            "the sum so far, and again");
}

// `y <- f(..)` and `return y` (plan::FastAccumulate::tails): where forms
// do not keep, f's frame takes the place of this task's, which returns
// where this one would (the task's own: its code starts again on the
// call's arguments, its accumulator kept); a leaf answer returns at once.
// Where forms keep, the call and the return as they are. `first`: a line
// the jump's code starts with (fast_accumulate's sum).
void Printer::fast_tail(const Stmt &st, const Stmt &ret, std::ostream &s, int ind,
                        const std::string &first, const std::string &what) {
  const TaskDecl *callee = st.expr->children[0]->task;
  const size_t t = size_t(callee->id);
  s << "#if !KITE_KEEP\n";
  line(s, ind, fmt::format("{{ /* {}; {}: {} */", anf::to_kite(st), anf::to_kite(ret), what));
  if (!first.empty()) line(s, ind + 2, first);
  const int in = fast_call_arguments(st, s, ind + 2);
  line(s, in, "if ((++calls & KITE_FAST_CHECK) == 0 && kite_fast_stop(c)) return 0L;");
  std::string args;
  for (size_t i = 0; i < callee->param_vars.size(); ++i)
    args += fmt::format(" s[fp + {}] = b{};", 2 + callee->param_vars[i]->id, i);
  if (int(t) == task_) {
    if (!args.empty()) line(s, in, args.substr(1));
  } else {
    const size_t frame = fast_frame(t);
    line(s, in, fmt::format("if (fp + {} > KITE_FAST_WORDS) return kite_fast_full(c);", frame));
    if (const plan::FastAccumulate &acc = plan_.accumulate[t]; acc.call)
      args += fmt::format(" s[fp + {}] = 0L;", acc.slot);
    line(s, in, fmt::format("s[fp] = {}L;{} sp = fp + {};", place(t, 0), args, frame));
  }
  line(s, in, fmt::format("goto kite_task_{};", t));
  if (in > ind + 2) line(s, ind + 2, "}");
  if (plan_.accumulate[size_t(task_)].call)
    line(s, ind + 2, fmt::format("rv = {};", fast_acc_sum("rv")));
  fast_return(s, ind + 2);
  line(s, ind, "}");
  s << "#else\n";
  fast_stmt(st, s, ind);
  fast_stmt(ret, s, ind);
  s << "#endif\n";
}

// The call of `callee`'s form proper, its arguments in b<i> (and, for a
// closure, its closure in C variable `env`): a full stack or a stop (the
// call becomes a task, or the frames are kept), else its frame pushed and
// its code jumped to; it comes back at `here`. `at`: the call's place in
// the source.
void Printer::fast_enter(const TaskDecl &callee, long here, const std::string &env, SourceLoc at,
                         std::ostream &s, int in) {
  const size_t frame = fast_frame(size_t(callee.id));
  if (plan_.keeps()) {
    // A full stack keeps the frames (kept_tail), or the call becomes a
    // task; so does, where the form goes on from a kept frame, a call of a
    // task whose frames are not kept. A stop starts calls ahead.
    line(s, in,
         fmt::format("if ({}sp + {} > KITE_FAST_WORDS) {{",
                     plan_.kept[size_t(callee.id)].kept ? "" : "held >= 0 || ", frame));
    // The call, where it becomes a task from a kept frame (kite_keep).
    std::string pending = fmt::format("pt = {}; psite = {};", callee.id, site(at));
    for (size_t i = 0; i < callee.param_vars.size(); ++i)
      pending += fmt::format(" pa{0} = b{0};", i);
    if (!env.empty()) pending += fmt::format(" penv = {};", env);
    line(s, in + 2,
         fmt::format("s[fp] = {}L; {} full = sp + {} > KITE_FAST_WORDS;", here, pending, frame));
    line(s, in + 2, "goto kite_stop;");
    line(s, in, "}");
    line(s, in, "if ((++calls & KITE_FAST_CHECK) == 0 && kite_fast_stop(c)) {");
    line(s, in + 2, "if (!KITE_KEEP) return 0L;");
    line(s, in + 2, fmt::format("s[fp] = {}L;", here));
    // Under the rule: a form that has kept nothing loses its work, as one
    // that does not keep; one that goes on from a kept frame keeps every
    // frame again, each starting its calls ahead, and this call becomes a
    // task (kept_tail). Under --fast-calls stop, a stop starts calls ahead
    // and the form goes on; where there is none to start, a form that has
    // kept nothing loses its work.
    line(s, in + 2, "if (KITE_FAST == 1) {");
    line(s, in + 4, "if (held < 0 && !kept && !wrote) return 0L;");
    line(s, in + 4, pending + " full = 0;");
    line(s, in + 4, "goto kite_stop;");
    line(s, in + 2, "}");
    line(s, in + 2,
         "if (kite_kept_promote(c, s, fp)) kept = 1; else if (!kept && held < 0 && !wrote) "
         "return 0L;");
    line(s, in, "}");
  } else {
    line(s, in, fmt::format("if (sp + {} > KITE_FAST_WORDS) return kite_fast_full(c);", frame));
    line(s, in, "if ((++calls & KITE_FAST_CHECK) == 0 && kite_fast_stop(c)) return 0L;");
  }
  std::string push = fmt::format("s[fp] = {}L; s[sp + 1] = fp;", here);
  for (size_t i = 0; i < callee.param_vars.size(); ++i)
    push += fmt::format(" s[sp + {}] = b{};", 2 + callee.param_vars[i]->id, i);
  if (!env.empty()) push += fmt::format(" s[sp + {}] = {};", 2 + callee.env->id, env);
  if (const plan::FastAccumulate &acc = plan_.accumulate[size_t(callee.id)]; acc.call)
    push += fmt::format(" s[sp + {}] = 0L;", acc.slot);
  line(s, in, push);
  line(s, in, fmt::format("fp = sp; sp += {};", frame));
  line(s, in, fmt::format("goto kite_task_{};", callee.id));
}

// A call of a task value: whichever task it names (every task of its
// type has a form, ir/fast_clones.cpp), its closure, if it is one, in the
// callee's closure slot; one place to go on from for all of them. A null
// value is reported at the call, as the task form's dispatcher reports it,
// and the form stops: the run is stopping.
void Printer::fast_value_call(const Stmt &st, std::ostream &s, int ind) {
  const Expr &call = *st.expr;
  const Type *type = call.children[0]->type->forced();
  const long here = place(size_t(task_), ++fast_resume_);
  fast_place_[&st] = here;
  line(s, ind, fmt::format("{{ /* {} */", anf::to_kite(st)));
  for (size_t i = 0; i < type->params.size(); ++i)
    line(s, ind + 2,
         fmt::format("const long b{} = {};", i,
                     to_bits(type->params[i], expr(*call.children[i + 1]))));
  line(s, ind + 2, "long env;");
  line(s, ind + 2,
       fmt::format("const int vt = kite_value_task(c, {}, {}, {}, &env);", expr(*call.children[0]),
                   site(call.loc), null_name(call, 0)));
  const std::string save = fast_save(st);
  if (!save.empty()) line(s, ind + 2, save);
  const char *first = "if";
  for (int t : anf::tasks_of_type(*p_.anf, type)) {
    const TaskDecl &callee = *p_.tasks[size_t(t)].source->decl;
    line(s, ind + 2, fmt::format("{} (vt == {}) {{ /* {} */", first, t, callee.name));
    fast_enter(callee, here, callee.env ? "env" : "", call.loc, s, ind + 4);
    first = "} else if";
  }
  if (std::string(first) == "if") {
    line(s, ind + 2, plan_.keeps() ? "goto kite_drop;" : "return 0L;");
  } else {
    line(s, ind + 2, "} else {");
    line(s, ind + 4, plan_.keeps() ? "goto kite_drop;" : "return 0L;");
    line(s, ind + 2, "}");
  }
  line(s, ind, fmt::format("case {}:;", here));
  const std::string reload = form_reload(*p_.tasks[size_t(task_)].source);
  if (!reload.empty()) line(s, ind + 2, reload);
  if (st.target) line(s, ind + 2, fast_set(st.target->var, "rv"));
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
  const long here = place(size_t(task_), ++fast_resume_);
  fast_place_[&st] = here;
  line(s, ind, fmt::format("{{ /* {} */", anf::to_kite(st)));
  // A call that a stop started as a task (kept_tail): its result, in the
  // record of the frame, kept and gone on from at the bottom of the stack.
  const plan::KeptForm &kept = plan_.kept[size_t(task_)];
  // What the frame must hold before it is left (its call, a stop, a
  // suspended join): the variables read after the call.
  const std::string save = fast_save(st);
  const auto ahead = kept.index.find(&st);
  const auto map = kept.maps.find(&st);
  if (ahead != kept.index.end() || map != kept.maps.end()) {
    // Where a suspended frame goes on: here, with its copies read again.
    const long join = place(size_t(task_), ++fast_resume_);
    fast_join_[&st] = join;
    // Only where forms keep (KITE_KEEP): the place alone, never reached
    // elsewhere, cost one PoCL worker 12% on fib(32).
    s << "#if KITE_KEEP\n";
    line(s, ind + 2,
         fmt::format("if (0) {{ case {}:; {} }}", join,
                     form_reload(*p_.tasks[size_t(task_)].source)));
    // Its bit and slot: by the call, or by the map's iteration.
    const std::string j = map != kept.maps.end() ? "(int)" + form_var(map->second->index_var) : "";
    const std::string bit = !j.empty() ? fmt::format("({} < KITE_KEPT_SLOTS ? 1L << {} : 0L)", j, j)
                                       : fmt::format("{}L", 1L << ahead->second);
    const std::string slot = !j.empty() ? "1 + " + j : std::to_string(ahead->second + 1);
    line(s, ind + 2, "const int pw = kept ? (int)(s[fp + 1] >> 32) : 0;");
    line(s, ind + 2, fmt::format("if (pw && (KITE_REC(c, pw - 1)[KITE_KEPT_MASK] & {})) {{", bit));
    // Both ways on from here (a suspend, and the result taken where the
    // call returns) read the frame. Elsewhere the call writes it where it
    // leaves the frame, below, and a leaf answer does not: UTS's map,
    // whose calls are nearly all answered so, wrote three slots an
    // iteration before (one PoCL worker on the 2-core EPYC 4.6% slower,
    // two 3.6%, medians of 15 and 21 in turns).
    if (!save.empty()) line(s, ind + 4, save);
    line(s, ind + 4, "kite_rec X = KITE_REC(c, pw - 1);");
    int in = ind + 4;
    if (!j.empty()) {
      // A map's iteration that no thief took is still the newest entry of
      // this worker's deque (kite_kept_start): taken back, it is made here
      // as if never started.
      const cps::Task &ct = p_.tasks[size_t(callee->id)];
      s << "#if !KITE_WIDE\n";
      line(s, in,
           fmt::format("if (*KITE_COUNTER(X, KITE_KEPT_COUNTER) != 1 && kite_unpush(c, "
                       "KITE_ENTRY({}, (int)X[KITE_KEPT_RESULT + {}]), KITE_KEPT_LINK(pw - 1, "
                       "{}))) {{",
                       p_.blocks[ct.entry_block].code, slot, slot));
      line(s, in + 2, fmt::format("kite_free(c, (int)X[KITE_KEPT_RESULT + {}]);", slot));
      line(s, in + 2, "kite_sub(KITE_COUNTER(X, KITE_KEPT_COUNTER), 1);");
      line(s, in + 2, fmt::format("X[KITE_KEPT_MASK] &= ~{};", bit));
      line(s, in, "} else");
      s << "#endif\n";
      line(s, in, "{");
      in += 2;
    }
    line(s, in,
         fmt::format("if (*KITE_COUNTER(X, KITE_KEPT_COUNTER) != 1) {{ s[fp] = {}L; goto "
                     "kite_suspend; }}",
                     join));
    line(s, in, "KITE_FENCE(); /* its result, written before its count */");
    line(s, in, fmt::format("X[KITE_KEPT_MASK] &= ~{};", bit));
    line(s, in, fmt::format("rv = X[KITE_KEPT_RESULT + {}];", slot));
    // On where the call returns, as a call that returned would: the copies
    // are read again there, and nothing else joins the paths.
    line(s, in, fmt::format("goto kite_r{};", here));
    if (in > ind + 4) line(s, ind + 4, "}");
    line(s, ind + 2, "}");
    s << "#endif\n";
  }
  const ntg::LeafAnswer &leaf = ct.leaf;
  const int in = fast_call_arguments(st, s, ind + 2);
  if (!save.empty()) line(s, in, save);
  fast_enter(*callee, here, "", call.loc, s, in);
  line(s, in - 2,
       ahead != kept.index.end() || map != kept.maps.end()
           ? fmt::format("case {0}: kite_r{0}:;", here)
           : fmt::format("case {}:;", here));
  // Where the task goes on: its copies, from its frame.
  const std::string reload = form_reload(*p_.tasks[size_t(task_)].source);
  if (!reload.empty()) line(s, in, reload);
  if (leaf.any()) line(s, ind + 2, "}");
  if (st.target) line(s, ind + 2, fast_set(st.target->var, "rv"));
  line(s, ind, "}");
}

// Sums (plan::SumForm): a task whose form only adds up what its calls of
// itself return runs its whole call tree in its own frame. The calls still
// to be made are a list above the frame, their arguments a slot each (the
// last of a run's calls pushed first, so that they run in the order of the
// source, depth first), and `sum` adds up every return's value but for
// the calls' results: a return adds its value and takes the next call off
// the list, a run of calls pushes all but its first and goes on with the
// first in place, and when the list is empty the task returns the sum. A
// leaf answer is added without going on the list. Every call counts
// towards the next look at whether to stop, which loses the form's work
// as any stop does; a full list stops it as a full stack does.
void Printer::fast_sum_form(size_t t, const std::string &copies, std::ostream &s) {
  const anf::Task &task = *p_.tasks[t].source;
  s << fmt::format("  case {}: kite_task_{}: {{ /* task {}, adding up its calls */\n", place(t, 0),
                   t, task.decl->name);
  if (!copies.empty()) line(s, 4, "long " + copies + ";");
  line(s, 4, "const int base = sp;");
  line(s, 4, "long sum = 0L;");
  s << fmt::format("  kite_sum_top_{}:;\n", t);
  line(s, 4, "if ((++calls & KITE_SUM_CHECK) == 0 && kite_fast_stop(c)) return 0L;");
  fast_sum_ = true;
  fast_stmts(task.body, s, 4);
  fast_sum_ = false;
  s << fmt::format("  kite_sum_{}:;\n", t);
  const auto &params = task.decl->param_vars;
  const size_t slots = std::max<size_t>(params.size(), 1);
  line(s, 4, "if (sp > base) {");
  line(s, 6, fmt::format("sp -= {};", slots));
  line(s, 6, fast_sum_next(task, [](size_t i) { return fmt::format("s[sp + {}]", i); }));
  line(s, 6, fmt::format("goto kite_sum_top_{};", t));
  line(s, 4, "}");
  line(s, 4, "rv = sum;");
  fast_return(s, 4);
  s << "  }\n";
}

// The copies of the task's variables for its next call (fast_sum_form):
// its parameters from `arg(i)`, the rest zero, as a new frame's.
std::string Printer::fast_sum_next(const anf::Task &task,
                                   const std::function<std::string(size_t)> &arg) const {
  std::string next;
  const auto &params = task.decl->param_vars;
  for (const VarDecl *v : task.vars) {
    auto p = std::find(params.begin(), params.end(), v);
    next += fmt::format("{}{} = {};", next.empty() ? "" : " ", form_var(v),
                        p != params.end() ? arg(size_t(p - params.begin())) : "0L");
  }
  return next;
}

// A run of calls that the return right after it adds up (fast_sum_form):
// every call's arguments in order, the return's other terms added, the
// calls after the first pushed on the list (or their leaf answers added),
// and the first made in place. Returns the index of the return.
size_t Printer::fast_sum_run(const StmtList &list, size_t i, std::ostream &s, int ind) {
  const plan::SumForm &sf = plan_.sums[size_t(task_)];
  const anf::Task &task = *p_.tasks[size_t(task_)].source;
  std::vector<const Stmt *> calls;
  size_t r = i;
  for (; list[r]->kind != StmtKind::Return; ++r)
    if (list[r]->kind == StmtKind::Call) calls.push_back(list[r].get());
  const Stmt &ret = *list[r];
  std::string what;
  for (const Stmt *c : calls) what += anf::to_kite(*c) + "; ";
  line(s, ind, fmt::format("{{ /* {}{}: added up */", what, anf::to_kite(ret)));
  const auto &params = task.decl->param_vars;
  std::vector<std::vector<std::string>> args(calls.size());
  for (size_t k = 0; k < calls.size(); ++k) {
    const Expr &call = *calls[k]->expr;
    for (size_t a = 0; a < params.size(); ++a) {
      args[k].push_back(fmt::format("b{}_{}", k, a));
      line(s, ind + 2,
           fmt::format("const long {} = {};", args[k][a],
                       to_bits(params[a]->type, expr(*call.children[a + 1]))));
    }
  }
  // The return's terms that are not the calls' results.
  for (const Expr *e : plan::sum_terms(*ret.expr))
    if (!(e->kind == ExprKind::Name && !e->task && sf.results.count(e->var)))
      line(s, ind + 2,
           fmt::format("sum = {};", fast_sum_add(to_bits(e->type->forced(), expr(*e)))));
  const TaskDecl &self = *task.decl;
  const size_t slots = std::max<size_t>(params.size(), 1);
  for (size_t k = calls.size(); k-- > 0;) {
    line(s, ind + 2, "{");
    int in = ind + 4;
    const std::optional<FastLeaf> leaf = fast_leaf(self, args[k], s, in);
    if (leaf) {
      line(s, in, fmt::format("if ({}) {{", leaf->guard));
      line(s, in + 2, fmt::format("sum = {};", fast_sum_add(leaf->value)));
      if (k == 0) line(s, in + 2, fmt::format("goto kite_sum_{};", task_));
      line(s, in, "} else {");
      in += 2;
    }
    if (k > 0) {
      line(s, in, fmt::format("if (sp + {} > KITE_FAST_WORDS) return kite_fast_full(c);", slots));
      std::string push;
      for (size_t a = 0; a < args[k].size(); ++a)
        push += fmt::format("s[sp + {}] = {}; ", a, args[k][a]);
      line(s, in, fmt::format("{}sp += {};", push, slots));
    } else {
      line(s, in, fast_sum_next(task, [&](size_t a) { return args[0][a]; }));
      line(s, in, fmt::format("goto kite_sum_top_{};", task_));
    }
    if (leaf) line(s, in - 2, "}");
    line(s, ind + 2, "}");
  }
  line(s, ind, "}");
  return r;
}

// `sum` plus `bits`, raw bits of the running task's integer result,
// wrapping (fast_sum_form).
std::string Printer::fast_sum_add(const std::string &bits) const {
  const Type *type = p_.tasks[size_t(task_)].source->decl->result_type->forced();
  if (type->kind == TypeKind::Long) return fmt::format("as_long((ulong)sum + (ulong)({}))", bits);
  return fmt::format("(long)as_int((uint)(int)sum + (uint)(int)({}))", bits);
}

// The task returns rv: its frame is popped, and its caller goes on, or
// kite_fast returns.
void Printer::fast_return(std::ostream &s, int ind) {
  if (plan_.keeps()) {
    // A frame with a record of calls started ahead (all of them used by
    // now) frees it; the kept bottom frame hands its result on (kite_up).
    line(s, ind, "{ const long up = s[fp + 1]; sp = fp; fp = (int)up;");
    line(
        s, ind + 2,
        "if (kept && (up >> 32)) { if (fp < 0 && held >= 0) goto kite_up; kite_free(c, (int)(up >> "
        "32) - 1); } }");
    line(s, ind, "if (fp < 0) { *done = 1; return rv; }");
  } else {
    line(s, ind, "sp = fp; fp = (int)s[fp + 1];");
    line(s, ind, "if (fp < 0) { *done = 1; return rv; }");
  }
  line(s, ind, "goto kite_next;");
}

}  // namespace kite::print
