// Kite source text of expressions (ast.h), for dumps and the comments of
// generated code.
#include <fmt/format.h>

#include "frontend/ast.h"
#include "frontend/types.h"

namespace kite::ast {

namespace {

int precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Mod:
      return 10;
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return 9;
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      return 8;
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      return 7;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      return 6;
    case BinaryOp::BitAnd:
      return 5;
    case BinaryOp::BitXor:
      return 4;
    case BinaryOp::BitOr:
      return 3;
    case BinaryOp::And:
      return 2;
    case BinaryOp::Or:
      return 1;
  }
  return 0;
}

std::string expr_text(const Expr &e, int outer);

std::string list_text(const std::vector<ExprPtr> &v, size_t from) {
  std::string s;
  for (size_t i = from; i < v.size(); ++i) s += (i > from ? ", " : "") + expr_text(*v[i], 0);
  return s;
}

std::string expr_text(const Expr &e, int outer) {
  switch (e.kind) {
    case ExprKind::IntLit:
      return std::to_string(e.int_value) + (e.is_long ? "L" : "");
    case ExprKind::FloatLit: {
      std::string s = fmt::format("{}", e.float_value);
      if (s.find_first_of(".eE") == std::string::npos && s.find("inf") == std::string::npos)
        s += ".0";
      return s + (e.is_float32 ? "f" : "");
    }
    case ExprKind::BoolLit:
      return e.bool_value ? "true" : "false";
    case ExprKind::StringLit:
      return quote(e.text);
    case ExprKind::Name:
      return e.var ? e.var->name : e.text;
    case ExprKind::Call:
      return expr_text(*e.children[0], 11) + "(" + list_text(e.children, 1) + ")";
    case ExprKind::Unary:
      return std::string(spelling(e.unop)) + expr_text(*e.children[0], 11);
    case ExprKind::Binary: {
      int p = precedence(e.binop);
      std::string s = expr_text(*e.children[0], p) + " " + spelling(e.binop) + " " +
                      expr_text(*e.children[1], p + 1);
      return p < outer ? "(" + s + ")" : s;
    }
    case ExprKind::Field:
      return expr_text(*e.children[0], 11) + "." + e.text;
    case ExprKind::Index:
      return expr_text(*e.children[0], 11) + "[" + expr_text(*e.children[1], 0) + "]";
    case ExprKind::Tuple:
      return "(" + list_text(e.children, 0) + ")";
    case ExprKind::Range:
      return "[" + expr_text(*e.children[0], 0) + ", " + expr_text(*e.children[1], 0) + "]";
    case ExprKind::New:
      return "new<" + (e.type_expr ? to_string(*e.type_expr) : "?") + ">(" +
             list_text(e.children, 0) + ")";
    case ExprKind::Construct: {
      std::string s = e.type_expr->name + "{";
      for (size_t i = 0; i < e.fields.size(); ++i)
        s += (i ? ", " : " ") + e.fields[i].name + " = " + expr_text(*e.fields[i].value, 0);
      return s + (e.fields.empty() ? "}" : " }");
    }
    case ExprKind::AnonTask:
      return e.task ? e.task->name : "task (...) {...}";
    case ExprKind::Future:
      return "task " + expr_text(*e.children[0], 11);
  }
  return "?";
}

// e as written when it is a variable, a field chain or an element of one
// (`p`, `t.l.r`, `ps[i].next`); else "".
std::string path_text(const Expr &e) {
  if (e.kind == ExprKind::Name) return e.text;
  if (e.kind != ExprKind::Field && e.kind != ExprKind::Index) return "";
  std::string base = path_text(*e.children[0]);
  if (base.empty()) return "";
  if (e.kind == ExprKind::Field) return base + "." + e.text;
  return base + "[" + expr_text(*e.children[1], 0) + "]";
}

}  // namespace

std::string to_kite(const Expr &e) { return expr_text(e, 0); }

std::string null_name(const Expr &e) {
  const Type *t = e.type ? e.type->forced() : nullptr;
  const char *kind = !t                            ? "value"
                     : t->kind == TypeKind::Struct ? "struct"
                     : t->kind == TypeKind::Union  ? "union"
                     : t->kind == TypeKind::Tuple  ? "tuple"
                     : t->kind == TypeKind::Task   ? "task value"
                                                   : "value";
  if (std::string path = path_text(e); !path.empty()) return fmt::format("{} '{}'", kind, path);
  const Expr *made = &e;
  while (made->kind == ExprKind::Future) made = made->children[0].get();
  if (made->kind == ExprKind::Call) {
    if (std::string callee = path_text(*made->children[0]); !callee.empty())
      return fmt::format("the {} that {}(...) returned", kind, callee);
  }
  return fmt::format("a {}", kind);
}

}  // namespace kite::ast
