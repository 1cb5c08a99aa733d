// The printers of the uber-kernel's generated half (emit.h): a Printer
// writes the OpenCL C of what the plan (plan.h) decided, a concern per
// file, and decides nothing itself. What it keeps is where it is: the
// block, the loop and the kernel being printed, the C names of the
// variables in scope, and the numbering of what it has written (sites,
// strings, helper functions).
//
//   print_values.cpp  C types, record slots, heap records, print, main's record
//   print_expr.cpp    expressions; array elements and their bounds checks
//   print_stmt.cpp    statements, loops that call no task, blocks, kite_block
//   print_calls.cpp   task calls and the task-value dispatchers
//   print_maps.cpp    maps, reductions, scans: splits, chunks, kernels
//   print_signal.cpp  kite_signal and the tasks' signal functions
//   print_fast.cpp    kite_fast: the tasks' sequential forms
//   emit.cpp          the artifact: its header's counts, the runtime, the rest
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "backend-opencl/emit.h"
#include "backend-opencl/plan.h"

namespace kite::print {

using namespace ast;
using anf::CaseBranch;
using anf::Stmt;
using anf::StmtKind;
using anf::StmtList;

// How a value of a type is held (print_values.cpp).
bool is_wide(const Type *t);
std::string c_type(const Type *t);
const char *slot_macro(const Type *t);
std::string to_bits(const Type *t, const std::string &v);
std::string from_bits(const Type *t, const std::string &bits);

class Printer {
 public:
  Printer(const cps::Program &p, const plan::Plan &plan, Artifact &out, EmitOptions options)
      : p_(p), plan_(plan), source_(*p.anf), out_(out), options_(options) {}
  // Whether some loop nest checks an element (the runtime's KITE_LOOP_CHECKS).
  bool loop_checks() const { return plan_.loop_checks; }
  // Whether the program has too many blocks to keep them in one function
  // (plan::Shape; the runtime's KITE_LARGE).
  bool large() const { return plan_.large(); }

  // The generated half of the program (emit.cpp).
  std::string run();

  // A program in parts (parts.h): `text` kept only in the programs of task
  // `task`'s part, or of `parts` (#if KITE_IN_PART); unchanged in a program
  // of one part, or for task -1.
  std::string in_part(int task, const std::string &text) const;
  std::string in_parts(const std::vector<int> &parts, const std::string &text) const;
  // kite_part_of_code and kite_part_of_node (runtime-cl/device/parts.cl).
  std::string part_tables() const;

 private:
  // print_values.cpp
  std::string slot(const VarDecl *v, const char *record = "f");
  std::string make_record(const std::vector<std::pair<const Type *, std::string>> &members, int tag,
                          SourceLoc loc);
  std::string construct(const Expr &e, const Type *t);
  void emit_print(const Expr &call, std::ostream &s, int ind);
  void emit_start(std::ostream &s);
  void emit_constant(const ValueDecl &v, std::ostream &s);

  // print_expr.cpp
  int site(SourceLoc loc);
  int null_name(const std::string &text);
  int null_name(const Expr &e, size_t i);
  const Stmt *element_of(const VarDecl *v) const;
  std::string element(const Type *elem, const std::string &array, const std::string &index,
                      SourceLoc loc, bool checked = true, const std::string &length = "");
  std::string known_length(const Expr &a) const;
  std::string lvalue(const VarDecl *v);
  std::string expr(const Expr &e);
  std::string binary(const Expr &e, const Type *t);
  std::string wrapping(const Type *t, const std::string &a, const char *op, const std::string &b);
  std::string element_address(const Expr &index_expr);
  std::string builtin_call(const Expr &e, const Type *t);
  bool proved(const Expr &index) const;

  // print_stmt.cpp
  void line(std::ostream &s, int indent, const std::string &text);
  void assign_first(const VarDecl *v, const Expr &e, const Stmt &st, std::ostream &s, int ind);
  std::string length(const plan::Length &l);
  void emit_assign(const Stmt &st, std::ostream &s, int ind);
  void emit_exec(const Stmt &st, std::ostream &s, int ind);
  void emit_free_arrays(std::ostream &s, int ind);
  void emit_graph_start(int graph, std::ostream &s, int ind);
  void emit_inline_graph(int graph, std::ostream &s, int ind);
  std::string loop_length(const Stmt &loop);
  void emit_ops(const std::vector<cps::Op> &ops, std::ostream &s, int ind);
  void emit_part(const cps::Op &op, size_t i, std::ostream &s, int ind);
  void emit_case(const cps::Op &op, std::ostream &s, int ind);
  void emit_for(const cps::Op &op, std::ostream &s, int ind);
  std::string bounds_proof(const Stmt &loop, const std::vector<const Expr *> &indices);
  void emit_while(const cps::Op &op, std::ostream &s, int ind);
  void emit_block_end(const cps::Block &b, std::ostream &s, int ind);
  void emit_step(const cps::Block &b, std::ostream &s);
  void emit_loop_done(const cps::Op &op, std::ostream &s, int ind);
  void enter_loop(const plan::LoopPlan &lp, std::ostream &s, int ind);
  void exit_loop(const plan::LoopPlan &lp, std::ostream &s, int ind);
  void emit_next_iteration(const cps::Block &b, std::ostream &s);
  void emit_blocks(std::ostream &out);
  void hold_params(std::ostream &s, int ind);
  std::string block_body(const cps::Block &b);
  void share_record(const cps::Op &op, std::ostream &s, int ind);

  // print_calls.cpp
  void emit_dispatcher(size_t index);
  void emit_value_spawn(const cps::Op &op, std::ostream &s, int ind);
  void emit_spawn(const cps::Op &op, std::ostream &s, int ind);
  void emit_call_record(const cps::Op &op, const std::vector<std::string> &args, std::ostream &s,
                        int ind);
  std::string link(const cps::Op &op);
  void store_params(const TaskDecl &callee, const std::vector<std::string> &args, const char *rec,
                    std::ostream &s, int ind);
  void answered(const cps::Op &op, const std::string &value, std::ostream &s, int ind);
  bool fast_plain_enter(const Stmt &loop, std::ostream &s, int ind);
  const std::vector<const Expr *> *fast_proved(const Stmt &loop) const;
  std::string fast_bounds_proof(const Stmt &loop, const std::vector<const Expr *> &indices);
  void fast_plain_leave(const Stmt &loop, std::ostream &s, int ind);
  void emit_fast_call(const cps::Op &op, const std::vector<std::string> &args, std::ostream &s,
                      int ind);
  // print_fast.cpp
  void emit_fast(std::ostream &out);
  void fast_stmts(const StmtList &list, std::ostream &s, int ind);
  void fast_stmt(const Stmt &st, std::ostream &s, int ind);
  void fast_call(const Stmt &st, std::ostream &s, int ind);
  int fast_call_arguments(const Stmt &st, std::ostream &s, int ind);
  void fast_enter(const TaskDecl &callee, long here, const std::string &env, SourceLoc at,
                  std::ostream &s, int in);
  void fast_value_call(const Stmt &st, std::ostream &s, int ind);
  // Whether some closure has a form (its stop keeps its closure: penv).
  bool has_closure_form() const;
  struct FastLeaf {
    std::string guard, value;
  };
  std::optional<FastLeaf> fast_leaf(const TaskDecl &callee, const std::vector<std::string> &args,
                                    std::ostream &s, int ind);
  void fast_sum_form(size_t t, const std::string &copies, std::ostream &s);
  size_t fast_sum_run(const StmtList &list, size_t i, std::ostream &s, int ind);
  std::string fast_sum_add(const std::string &bits) const;
  std::string fast_set(const VarDecl *v, const std::string &bits) const;
  std::string fast_sum_next(const anf::Task &task,
                            const std::function<std::string(size_t)> &arg) const;
  void fast_accumulate(const Stmt &call, const Stmt &ret, std::ostream &s, int ind);
  void fast_tail(const Stmt &call, const Stmt &ret, std::ostream &s, int ind,
                 const std::string &first = "", const std::string &what = "in this frame");
  std::string fast_acc_sum(const std::string &bits) const;
  size_t fast_frame(size_t t) const;
  void fast_case(const Stmt &st, std::ostream &s, int ind);
  void fast_return(std::ostream &s, int ind);
  void fast_new(const Stmt &st, std::ostream &s, int ind);
  // `when`: every iteration counts as a call (the default), or the one
  // after a whole chunk of them (fast_loop).
  void fast_iteration_look(std::ostream &s, int ind,
                           const char *when = "(++calls & KITE_FAST_CHECK) == 0");
  void fast_loop(const Stmt &st, std::ostream &s, int ind);
  std::string fast_element(const Expr &index);
  void kept_tail(std::ostream &s);
  void kept_helpers(std::ostream &out);
  void kept_spawn(const TaskDecl &callee, const std::vector<std::string> &args,
                  const std::string &link, const std::string &site_, bool ready, std::ostream &s,
                  int ind, const std::string &before_push = "");

  // print_maps.cpp
  void emit_map(const cps::Op &op, std::ostream &s, int ind);
  void emit_copy_vars(const cps::Op &op, const char *to, std::ostream &s, int ind);
  void emit_split(const cps::Block &b, std::ostream &s);
  void declare_accumulators(const cps::Op &op, std::ostream &s, int ind);
  void fold_into_parent(const cps::Op &op, const std::string &parent, const char *value,
                        std::ostream &s, int ind);
  void emit_map_kernel(const cps::Block &b);
  void emit_scan_chunk(const cps::Block &b, std::ostream &s);
  void emit_node_in_parent(const cps::Op &op, std::ostream &s, int ind);
  void emit_direct_chunk(const cps::Op &op, std::ostream &s, int ind);

  // print_signal.cpp
  bool counted(const cps::Graph &g) const;
  void ready_tail_blocks(const std::vector<int> &tails, const cps::Graph &g, const char *own,
                         const char *ret, std::ostream &s, int ind);
  std::string ready_when_last(const cps::Block &w);
  std::string ready_when_last_in_signal(const cps::Block &w, bool last = false);
  std::string finish_d() const;
  void emit_signal_node(int node, std::ostream &s, int ind);
  std::string signal_function(int node, int graph) const;
  void emit_signal(std::ostream &s);
  void emit_signal_function(const std::string &name, int only, std::ostream &s);
  void emit_record_done(const cps::Graph &g, bool fenced, const std::string &hi, std::ostream &s);

  // What it prints from, and where it is.
  const cps::Program &p_;
  const plan::Plan &plan_;
  const anf::Program &source_;  // what the ops point into
  Artifact &out_;
  EmitOptions options_;
  int task_ = -1;
  int helper_task_ = -1;        // the task whose part the helpers made now belong to; -1: all
  std::ostringstream helpers_;  // construction and print helpers, emitted first
  std::ostringstream dispatch_helpers_;
  std::map<std::string, int> null_names_;  // null_name: text -> string index
  std::ostringstream kernels_;             // map kernels (emit_map_kernel), emitted last
  // A variable held in a C variable where the code being printed is: its
  // name, and its length if it is an array whose length the C code knows.
  struct Held {
    std::string name, length;
  };
  std::map<const VarDecl *, Held> env_;
  const plan::BlockPlan *block_ = nullptr;                         // the block being printed
  const std::map<const Stmt *, plan::LoopPlan> *loops_ = nullptr;  // its loops, or its kernel's
  // The indices proved in bounds where the code being printed is (in the
  // unchecked copy of a loop, plan::LoopPlan::proved), or null.
  const std::vector<const Expr *> *proved_ = nullptr;
  std::string direct_index_;                   // the index of the direct map being emitted
  const Stmt *skip_writes_of_ = nullptr;       // a scan whose element writes are left out
  std::map<const VarDecl *, std::string> at_;  // a loop variable's value in a bounds proof;
                                               // a variable's slot in a sequential form
  bool fast_sum_ = false;        // printing a form that adds up its calls (plan::SumForm)
  int fast_resume_ = 0;          // resume points so far in the sequential form being printed
  std::vector<int> fast_calls_;  // by task: its form's resume points
  std::map<const Stmt *, long> fast_place_;  // a form's call: where its caller goes on
  std::map<const Stmt *, long> fast_join_;   // a call started ahead: where its frame resumes
  // Where the form's code being printed is: each statement list around it
  // and the index of its statement being printed there, outermost first
  // (fast_stmts); what a call saves in its frame is read from it.
  struct FastAt {
    const StmtList *list;
    size_t i;
  };
  std::vector<FastAt> fast_at_;
  std::set<const VarDecl *> fast_params_kept_;  // the task's parameters it never assigns
  std::string fast_save(const Stmt &call) const;
  // In a sequential form: the local arrays it keeps on its stack (and the
  // collections of loops over them), each as the C expression of its place
  // there; and the elements of loops over them, as lvalues of raw bits.
  std::map<const VarDecl *, std::string> fast_base_;
  std::map<const VarDecl *, std::string> fast_elem_;
  // Inside a loop of a form that calls no task (fast_plain_enter): the
  // copies alone are written, and the lengths of the arrays it indexes
  // that it does not assign, by variable, are C variables read before it.
  int fast_plain_ = 0;
  bool fast_plain_writes_ = false;  // it writes an element of a heap array
  std::map<const VarDecl *, std::string> fast_lengths_;
  // There, the variables it names as typed C variables (pv<id>), and what
  // they were in at_ before it.
  std::set<const VarDecl *> fast_typed_;
  std::map<const VarDecl *, std::string> fast_plain_saved_;
  int loop_depth_ = 0;  // loops that call no task around the code being emitted
  // Inside such a loop nest: the C variable that holds the heap's address
  // (hp<k>, enter_loop), which no store in the loop can change, so the C
  // compiler need not load c->heap again after each store of an element.
  std::string loop_heap_;
  int loop_heap_count_ = 0;
  int helper_count_ = 0;
  // The C type of a closure's task id: only the kind matters here.
  const Type long_t_storage_{TypeKind::Long};
  const Type *long_t_ = &long_t_storage_;
};

}  // namespace kite::print
