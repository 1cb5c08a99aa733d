// The type checker's class, private to frontend/: check.h's check() is
// Checker::run() (check.cpp); the other members are defined in the files
// by concern that the sections below name.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "frontend/builtins.h"
#include "frontend/check.h"

namespace kite::checking {

class Checker {
 public:
  Checker(ast::Program &program, TypeContext &types, Diagnostics &diags)
      : program_(program), types_(types), diags_(diags) {}

  void run();

 private:
  // A named task declared in a task body, while its body is checked.
  struct SelfName {
    std::string name;
    ast::TaskDecl *task;
    size_t scope_base;  // scopes from here on belong to the task
    size_t frame;       // its index in frames_
  };

  // ---- Top-level declarations and scopes (check_decls.cpp)
  void unsupported(SourceLoc loc, const std::string &what);
  void declare_global(const std::string &name, SourceLoc loc);
  void check_value_first(ast::ValueDecl &v);
  void check_value(ast::ValueDecl &v);
  bool value_ready(const ast::Expr &use, ast::ValueDecl &v);
  void declare_signature(ast::TaskDecl &t);
  void check_main();
  void push();
  void pop();
  void declare(ast::VarDecl *v);
  ast::VarDecl *lookup(const std::string &name);
  bool is_captured(ast::VarDecl *v);

  // ---- Types and the literal rule (check_types.cpp)
  void declare_fields(ast::StructDecl &sd);
  int field_index(const std::string &type_name, const std::string &field);
  Type *resolve(const ast::TypeExpr *t);
  void type_mismatch(SourceLoc loc, Type *want, Type *got, const std::string &when);
  void adapt(ast::Expr &e, Type *want);
  static bool needs_long(const ast::Expr &e);
  static bool is_literal(const ast::Expr &e);
  void settle_int_literals();

  // ---- Tasks and statements (check_stmts.cpp)
  void check_task(ast::TaskDecl &t);
  void check_task_body(ast::TaskDecl &t);
  bool check_list(ast::StmtList &list);
  bool check_block(ast::StmtList &list);
  bool check_stmt(ast::Stmt &s);
  void check_decl(ast::Stmt &s);
  void check_assign(ast::Stmt &s);
  static std::string ntg_text(const ast::Expr &e);
  bool check_case(ast::Stmt &s);
  void check_loop(ast::Stmt &s);
  void check_return(ast::Stmt &s);

  // ---- Expressions (check_exprs.cpp)
  Type *value_of(ast::Expr &e, Type *want);
  Type *check_expr(ast::Expr &e, Type *want);
  Type *check_expr_inner(ast::Expr &e, Type *want);
  Type *check_anon(ast::Expr &e);
  const SelfName *self_named(const std::string &name);
  Type *self_reference(ast::Expr &e, const SelfName &self);
  void capture_for_self_references(ast::TaskDecl &t);
  Type *check_future(ast::Expr &e);
  static void name_null(ast::Expr &e, size_t i);
  Type *check_field(ast::Expr &e);
  Type *check_index(ast::Expr &e);
  Type *check_tuple(ast::Expr &e);
  Type *check_construct(ast::Expr &e);
  Type *check_new(ast::Expr &e);
  Type *check_name(ast::Expr &e);
  Type *check_call(ast::Expr &e, Type *want);
  Type *check_unary(ast::Expr &e, Type *want);
  Type *check_binary(ast::Expr &e, Type *want);
  void precedence_note(const ast::Expr &e);

  // ---- Built-in calls (check_builtins.cpp)
  bool printable(Type *t);
  Type *check_builtin(ast::Expr &e, Builtin b, Type *want);
  Type *numeric_error(ast::Expr &a, const std::string &fn, Type *t);

  ast::Program &program_;
  TypeContext &types_;
  Diagnostics &diags_;
  std::map<std::string, SourceLoc> globals_;
  std::map<std::string, ast::TaskDecl *> tasks_;
  std::map<std::string, ast::ValueDecl *> values_;
  std::vector<std::map<std::string, ast::VarDecl *>> scopes_;
  ast::TaskDecl *task_ = nullptr;
  bool in_constant_ = false;                             // checking a top-level value
  std::map<std::string, ast::ValueDecl *> value_decls_;  // every top-level value, by name
  std::vector<ast::ValueDecl *> value_stack_;  // the top-level values being checked, innermost last
  std::set<ast::ValueDecl *> values_checked_;
  std::vector<ast::ValueDecl *> value_order_;  // in the order checked
  int loop_depth_ = 0;
  // The variables declared in each enclosing map body.
  std::vector<std::set<ast::VarDecl *>> map_locals_;
  std::set<ast::VarDecl *> loop_indices_;  // the index variables written in for and map loops
  std::map<std::string, ast::StructDecl *> structs_;
  std::vector<ast::Expr *> int_literals_;  // unsuffixed integer literals, in the order checked
  std::set<ast::Expr *> int_literals_seen_;
  // The anonymous tasks being checked, innermost last, with the number of
  // scopes that belong to the tasks around each.
  struct Frame {
    ast::TaskDecl *task;
    size_t scope_base;
  };
  std::vector<Frame> frames_;
  // The named tasks declared in task bodies being checked, innermost last:
  // inside its body, a task's name is the task (self_named).
  std::vector<SelfName> selves_;
  // Each use of a task's own name from a task inside it, with the tasks
  // between the two (innermost last).
  std::vector<std::pair<ast::TaskDecl *, std::vector<ast::TaskDecl *>>> self_uses_;
  std::map<std::string, std::vector<std::pair<std::string, Type *>>> fields_;
};

}  // namespace kite::checking
