// The abstract syntax tree of a Kite program, with source locations.
//
// The parser (frontend/parse.h) builds it from ANTLR's parse tree; the type
// checker (frontend/check.h) fills in the `type` of every expression and the
// `decl` of every name; later passes (ir/) rewrite it in place or read it.
// Nodes are owned by unique_ptr; a Program owns everything under it.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "frontend/source.h"
#include "frontend/types.h"

namespace kite::ast {

struct Expr;
struct Stmt;
struct TaskDecl;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

// A type as written in the source: `int`, `array<int>`, `task<int, int>`,
// `(int, bool)` (a tuple), `future<int>`.
struct TypeExpr {
  SourceLoc loc;
  std::string name;                             // "int", "array", "task", "(tuple)", a struct name
  std::vector<std::unique_ptr<TypeExpr>> args;  // generic arguments / tuple members
};
using TypeExprPtr = std::unique_ptr<TypeExpr>;

// `x: t` in a parameter list or struct/union body.
struct Param {
  SourceLoc loc;
  std::string name;
  TypeExprPtr type;
};

// A local variable, parameter or temporary. Every use of a name points at
// one of these after checking; ir/ passes give each a record slot.
struct VarDecl {
  SourceLoc loc;
  std::string name;  // unique within its task after ir/rename
  Type *type = nullptr;
  bool is_param = false;
  bool is_temp = false;  // introduced by the compiler (ANF)
  int id = -1;           // index among its task's variables (ir/ passes)
  // The element variable of a for/map loop over an array aliases the element:
  // reading it reads c[i], assigning it writes c[i].
  struct Stmt *alias_of = nullptr;
};

#define KITE_EXPR_KINDS(X)                                     \
  X(IntLit)    /* 42, 0x2A, 42L: value, is_long */             \
  X(FloatLit)  /* 1.5, 1e-3 (double), 1.5f (float) */          \
  X(BoolLit)   /* true, false */                               \
  X(StringLit) /* "text": only as an argument of print */      \
  X(Name)      /* x: a variable, task or top-level constant */ \
  X(Call)      /* e(args) */                                   \
  X(Unary)     /* - ! ~ e */                                   \
  X(Binary)    /* e op e */                                    \
  X(Field)     /* e.x, e.0 */                                  \
  X(Index)     /* e[e] */                                      \
  X(Tuple)     /* (e, e, ...) */                               \
  X(Construct) /* t{ f = e, ... } */                           \
  X(New)       /* new<t>(e) */                                 \
  X(Range)     /* [e, e] */                                    \
  X(AnonTask)  /* task (p): t { s } */                         \
  X(Future)    /* task e */

enum class ExprKind {
#define X(k) k,
  KITE_EXPR_KINDS(X)
#undef X
};

// Operators, listed once with their spelling.
// clang-format off
#define KITE_BINARY_OPS(X)                                                   \
  X(Mul, "*") X(Div, "/") X(Mod, "%") X(Add, "+") X(Sub, "-")                \
  X(Shl, "<<") X(Shr, ">>") X(Lt, "<") X(Le, "<=") X(Gt, ">") X(Ge, ">=")    \
  X(Eq, "==") X(Ne, "!=") X(BitAnd, "&") X(BitXor, "^") X(BitOr, "|")        \
  X(And, "&&") X(Or, "||")
// clang-format on

enum class BinaryOp {
#define X(k, s) k,
  KITE_BINARY_OPS(X)
#undef X
};
const char *spelling(BinaryOp op);

enum class UnaryOp { Neg, Not, BitNot };
const char *spelling(UnaryOp op);

struct FieldInit {
  SourceLoc loc;
  std::string name;
  ExprPtr value;
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  Type *type = nullptr;  // set by the checker; a call's type is future<r>

  // Literals.
  // IntLit: the value as a long (hexadecimal digits spell its bits); the
  // checker wraps it to 32 bits when the literal is an int.
  int64_t int_value = 0;
  bool is_long = false;  // IntLit with L suffix, or adapted to a long
  bool fits_int = true;  // IntLit: an int can hold it (hexadecimal: 32 bits)
  double float_value = 0;
  bool is_float32 = false;  // FloatLit with f suffix
  bool bool_value = false;
  std::string text;  // StringLit contents (unescaped); Name; Field name

  // Name: what it refers to (one of these after checking).
  VarDecl *var = nullptr;
  TaskDecl *task = nullptr;            // a named task
  struct ValueDecl *global = nullptr;  // a top-level constant
  int builtin = -1;                    // a prelude function (kite::Builtin)
  int field = -1;                      // Field: the struct field or tuple member selected

  // Operators.
  BinaryOp binop = BinaryOp::Add;
  UnaryOp unop = UnaryOp::Neg;
  bool in_parens = false;  // written as `(e)` (for hints about precedence)

  // Children: Call (callee = children[0], args = rest), Unary (1), Binary (2),
  // Field (1), Index (2), Tuple (n), New (size args), Range (2), Future (1).
  std::vector<ExprPtr> children;
  // How a run-time error names children[i] when it was never given a value
  // (null_name below), for the children checked: a Field's record, the
  // callee of a call of a task value, print's tuples. Set by the checker.
  std::vector<std::string> null_names;

  TypeExprPtr type_expr;           // New's element type; Construct's type name
  std::vector<FieldInit> fields;   // Construct
  std::unique_ptr<TaskDecl> anon;  // AnonTask
};

#define KITE_STMT_KINDS(X)                      \
  X(ExprStmt) /* e; */                          \
  X(Decl)     /* x: t = e;  x = e;  x, y: t; */ \
  X(Assign)   /* l <- e; */                     \
  X(Return)   /* return e; / return; */         \
  X(Then)     /* s then s */                    \
  X(Block)    /* { s... } */                    \
  X(If)       /* if (e) { s } else { s } */     \
  X(Case)     /* case (e) { b... } */           \
  X(For)      /* for (x = e[i]) { s } */        \
  X(Map)      /* map (x = e[i]) { s } */        \
  X(While)    /* while (e) { s } */

enum class StmtKind {
#define X(k) k,
  KITE_STMT_KINDS(X)
#undef X
};

struct CaseBranch {
  SourceLoc loc;
  std::string field;              // empty for default
  std::string binder;             // the variable bound to the field's value
  VarDecl *binder_var = nullptr;  // owned by the task's locals
  int field_index = -1;           // the union field this branch matches
  StmtList body;
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;

  // ExprStmt: expr. Return: expr (may be null). Assign: target <- expr.
  // Decl: vars with optional type and init (init only with one var).
  // If/Case/For/Map/While: expr is the condition / scrutinee / collection.
  ExprPtr expr;
  ExprPtr target;
  std::vector<std::unique_ptr<VarDecl>> vars;
  std::vector<VarDecl *> temps;  // Decl of compiler temporaries (owned by the task)
  TypeExprPtr decl_type;

  StmtList body;       // Block, If-then, For/Map/While body, Then-first (1 stmt)
  StmtList else_body;  // If-else, Then-second (1 stmt)
  bool has_else = false;

  std::vector<CaseBranch> branches;  // Case
  std::string null_name;             // Case: the scrutinee's null_name (set by the checker)

  // For/Map: element alias and optional index variable. The checker adds an
  // index variable when none was written and a variable holding the
  // collection, evaluated once when the loop starts.
  std::unique_ptr<VarDecl> elem_var;
  std::unique_ptr<VarDecl> index_var;
  std::unique_ptr<VarDecl> coll_var;
};

struct TaskDecl {
  SourceLoc loc;
  std::string name;
  std::vector<Param> params;
  TypeExprPtr result;  // null: unit
  StmtList body;

  // Set by the checker.
  std::vector<VarDecl *> param_vars;  // owned by `locals`
  Type *result_type = nullptr;
  Type *type = nullptr;                          // task<params..., result>
  std::vector<std::unique_ptr<VarDecl>> locals;  // params and every declared variable
  int id = -1;                                   // index in Program::tasks
  // An anonymous task (lifted to the program's tasks by frontend/lift): the
  // variables of enclosing tasks it uses, copied into its closure when it is
  // created, and the hidden parameter through which it reads them.
  bool is_anonymous = false;
  std::vector<VarDecl *> captures;
  VarDecl *env = nullptr;
};

struct StructDecl {
  SourceLoc loc;
  std::string name;
  bool is_union = false;
  std::vector<Param> fields;
};

// A top-level constant `x: t = e;`.
struct ValueDecl {
  SourceLoc loc;
  std::string name;
  TypeExprPtr type;
  ExprPtr init;
  Type *checked_type = nullptr;
};

struct Program {
  std::vector<std::unique_ptr<TaskDecl>> tasks;
  std::vector<std::unique_ptr<StructDecl>> structs;
  std::vector<std::unique_ptr<ValueDecl>> values;
  TaskDecl *main = nullptr;  // set by the checker: where the program starts
};

inline ExprPtr make_expr(ExprKind kind, SourceLoc loc) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->loc = loc;
  return e;
}

inline StmtPtr make_stmt(StmtKind kind, SourceLoc loc) {
  auto s = std::make_unique<Stmt>();
  s->kind = kind;
  s->loc = loc;
  return s;
}

// Prints the program as indented S-expression-like text, one statement per
// line, declarations in source order (`kitec --dump-ast`; tests/parse).
void dump(const Program &program, std::ostream &out);
// One expression as dump prints it: `(+ x 1)`.
std::string dump_text(const Expr &e);
// A task's header as dump prints it: `name(a: int): int`, with the checked
// types once checked and, for an anonymous task, what it captures.
std::string task_header(const TaskDecl &task);
// The type as Kite source spells it: `array<int>`, `(int, bool)`.
std::string to_string(const TypeExpr &type);
// A string literal as C and Kite write it: quoted, with escapes.
std::string quote(const std::string &text);

// The variables a declaration statement declares (its own and temporaries).
std::vector<VarDecl *> declared_vars(const Stmt &s);
// Every variable s binds: declared_vars, a loop's element, index and
// collection, and a case's binders.
std::vector<VarDecl *> bound_vars(const Stmt &s);
// Kite source text of an expression (ast_text.cpp: for dumps and the
// comments of generated code; anf::to_kite prints a statement's head line).
std::string to_kite(const Expr &e);
// How a run-time error names the value of e, a struct, union, tuple or task
// value, when it was never given one: its kind and, when e is a variable, a
// field chain or an element of one, e as written (`struct 'p'`, `tuple
// 't.l.pair'`, `struct 'ps[i]'`); else the task whose result it is (`the
// struct that f(...) returned`), else its kind alone (`a struct`).
std::string null_name(const Expr &e);

// The statement lists nested in s: branches, loop bodies, then's two sides.
std::vector<StmtList *> nested_lists(Stmt &s);

// Building blocks of the statements that passes add to a checked task: a
// fresh temporary the task owns, a name of a variable, its declaration
// (an unowned alias in `temps`, so that `vars` keeps its meaning for
// declarations) and an assignment to it.
VarDecl *new_temp(TaskDecl &task, const std::string &name, Type *type, SourceLoc loc);
ExprPtr name_of(VarDecl *v, SourceLoc loc);
StmtPtr decl_of(VarDecl *v, ExprPtr init, SourceLoc loc);
StmtPtr assign_of(VarDecl *v, ExprPtr rhs, SourceLoc loc);

// A copy of a checked expression whose anonymous tasks are lifted (frontend/lift):
// an anonymous task in it is shared, and evaluating the copy makes another
// closure of the same task.
ExprPtr clone(const Expr &e);

// The one way to walk the AST: a visitor whose defaults visit every child,
// in source order (an expression's children and then its constructor
// fields; a statement's target, its expression, then its body, its else
// side and its branches' bodies). Override a visit, do what the node needs,
// and call the base's visit to go on into the children (or do not, to
// skip them).
class Visitor {
 public:
  virtual ~Visitor() = default;
  virtual void visit(const Expr &e);
  virtual void visit(const Stmt &s);
  void visit(const StmtList &list);
};

// The same for passes that rewrite the AST in place: visit(ExprPtr &) may
// replace the expression it is given.
class Mutator {
 public:
  virtual ~Mutator() = default;
  virtual void visit(ExprPtr &e);
  virtual void visit(Stmt &s);
  void visit(StmtList &list);
};

// Calls fn on e and on every expression inside it (or in the statements of
// `list`), parents first, as Visitor walks them.
void for_each_expr(const Expr &e, const std::function<void(const Expr &)> &fn);
void for_each_expr(const StmtList &list, const std::function<void(const Expr &)> &fn);
// Calls fn on every expression in the statements of `list` (or on e and
// every expression inside it), an expression's parts before it, as Mutator
// walks them; fn may replace the expression it is given.
void rewrite_exprs(StmtList &list, const std::function<void(ExprPtr &)> &fn);
void rewrite_exprs(ExprPtr &e, const std::function<void(ExprPtr &)> &fn);

// True if e itself is a call of a task (after checking: anything called
// that is not a built-in, a named task or a task value).
bool is_task_call(const Expr &e);
// True if e contains a call of a task.
bool contains_task_call(const Expr &e);

}  // namespace kite::ast
