// ANF (§3.3.1): the IR the task graphs are built from, and the pass that
// makes it from the checked AST (after closure conversion and return motion,
// ir/returns.h).
//
// A task's body is a list of statements whose kinds are listed once, in
// KITE_ANF_STMT_KINDS. A task call is a statement of its own, `f(a);` or
// `x <- f(a);` (kind Call), and no other statement contains one; the
// expressions are the checked AST's (typed, names resolved), free of task
// calls except for a Call's own, whose callee and arguments are call-free.
// Each task owns its variable table: every variable its statements use has
// an id, its index in the table, and the backend gives each id a record slot.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace kite::anf {

using ast::Expr;
using ast::ExprKind;
using ast::ExprPtr;
using ast::VarDecl;

#define KITE_ANF_STMT_KINDS(X)                                                  \
  X(Let)    /* x: t = e;  x, y: t;  declares variables, perhaps with a value */ \
  X(Set)    /* l <- e;  l a variable, an element or a field */                  \
  X(Do)     /* e;  a built-in run for its effect (print, the atomics) */        \
  X(Call)   /* f(a);  x <- f(a);  the only statement that calls a task */       \
  X(Return) /* return e;  return; */                                            \
  X(If)     /* if (e) { s } else { s } */                                       \
  X(Case)   /* case (e) { b... } */                                             \
  X(Then)   /* s then s */                                                      \
  X(For)    /* for (x = e[i]) { s } */                                          \
  X(Map)    /* map (x = e[i]) { s } */                                          \
  X(While)  /* while (e) { s } */

enum class StmtKind {
#define X(k) k,
  KITE_ANF_STMT_KINDS(X)
#undef X
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

struct CaseBranch {
  SourceLoc loc;
  std::string field;          // empty for default
  VarDecl *binder = nullptr;  // the variable bound to the field's value
  int field_index = -1;       // the union field this branch matches
  StmtList body;
};

struct Stmt {
  StmtKind kind = StmtKind::Do;
  SourceLoc loc;
  // Let: the value, or null. Set: the value. Do: the expression. Call: the
  // call (ExprKind::Call; callee children[0], arguments the rest). Return:
  // the value, or null. If, While: the condition. Case: the scrutinee. For,
  // Map: the collection.
  ExprPtr expr;
  // Set: what is assigned. Call: the variable the result goes to (a Name
  // of a plain variable: not a loop's element), or null.
  ExprPtr target;
  std::vector<VarDecl *> vars;  // Let: the variables it declares
  StmtList body;                // If: then. For, Map, While: the body. Then: the first side
  StmtList else_body;           // If: else. Then: the second side
  bool has_else = false;
  std::vector<CaseBranch> branches;  // Case
  std::string null_name;             // Case: how an error names a null scrutinee (ast::null_name)
  // For, Map: the element (reading it reads the collection at the index,
  // assigning it writes there), the index, and the collection, evaluated
  // once when the loop starts.
  VarDecl *elem_var = nullptr;
  VarDecl *index_var = nullptr;
  VarDecl *coll_var = nullptr;
};

struct Task {
  // The declaration: name, parameters, result type, and an anonymous
  // task's captures and closure. Its AST body has moved into `body`.
  std::unique_ptr<ast::TaskDecl> decl;
  StmtList body;
  // The variable table, by id (VarDecl::id): the parameters, the closure,
  // then every variable the statements bind, in the order Visitor meets
  // them (a Let's variables; a loop's collection, index and element; a
  // case's binders).
  std::vector<VarDecl *> vars;
  // By variable id: the loop whose element the variable is, or null.
  std::vector<const Stmt *> loop_of;
  // The variables the statements declare (the rest belong to `decl`).
  std::vector<std::unique_ptr<VarDecl>> owned;

  const Stmt *element_of(const VarDecl *v) const { return loop_of[size_t(v->id)]; }
};

struct Program {
  std::vector<Task> tasks;  // in the AST's order: tasks[i].decl->id == i
  std::vector<std::unique_ptr<ast::StructDecl>> structs;
  std::vector<std::unique_ptr<ast::ValueDecl>> values;  // top-level constants
  int main = -1;  // the task the program starts at (the checker found it)

  const ast::StructDecl *find_struct(const std::string &name) const;
};

// The pass: the checked AST's tasks in ANF. The AST is consumed.
Program to_anf(ast::Program &&program, TypeContext &types);

// The variables a statement binds: a Let's, a loop's collection, index and
// element, a case's binders.
std::vector<VarDecl *> bound_vars(const Stmt &s);

// The one way to walk ANF: a visitor whose defaults visit every child, in
// order (a statement's target, its expression, then its body, its else side
// and its branches' bodies; expressions as ast::Visitor walks them).
// Override a visit and call the base's to go on into the children.
class Visitor : public ast::Visitor {
 public:
  using ast::Visitor::visit;
  virtual void visit(const Stmt &s);
  void visit(const StmtList &list);
};

// Calls fn on every expression in the statements of `list`, parents first.
void for_each_expr(const StmtList &list, const std::function<void(const Expr &)> &fn);
// Calls fn on every statement of `list` and those nested in them, parents
// first.
void for_each_stmt(const StmtList &list, const std::function<void(const Stmt &)> &fn);
// The ids of the tasks that the call statements of `list` (nested ones too)
// call by name, each once, in increasing order.
std::vector<int> called_tasks(const StmtList &list);
// The tasks of `prog` whose type is `type` (a task type): those a task value
// of that type may be, in increasing order.
std::vector<int> tasks_of_type(const Program &prog, const Type *type);
// called_tasks, and for each call of a task value every task it may be
// (tasks_of_type).
std::vector<int> reachable_calls(const Program &prog, const StmtList &list);
// Whether `list` (nested statements too) calls a task, by name or value.
bool calls_any(const StmtList &list);

// Kite source text of a statement's head line (for dumps and the comments
// of generated code).
std::string to_kite(const Stmt &s);

// Prints the program as ast::dump prints the AST (structs, constants, then
// tasks, each in program order), with ANF's statement kinds (`kitec
// --dump-anf`; tests/anf).
void dump(const Program &program, std::ostream &out);

}  // namespace kite::anf
