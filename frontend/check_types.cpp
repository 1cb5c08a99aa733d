// Type expressions and struct fields, and the type a literal takes. See
// checker.h.
//
// Literals take their type from context where C programmers expect it: an
// unsuffixed integer literal used where a long is wanted is a long, and a
// double literal used where a float is wanted is a float (`x: long = 5;`,
// `y: float = 0.5;`). Otherwise there is no implicit numeric conversion.
#include "frontend/checker.h"

namespace kite::checking {

using namespace ast;

void Checker::declare_fields(StructDecl &sd) {
  auto &fields = fields_[sd.name];
  if (sd.fields.empty())
    diags_.error(sd.loc, "{} '{}' has no fields", sd.is_union ? "union" : "struct", sd.name);
  for (auto &f : sd.fields) {
    for (auto &other : fields)
      if (other.first == f.name) diags_.error(f.loc, "duplicate field '{}'", f.name);
    Type *t = resolve(f.type.get());
    if (t && t->kind == TypeKind::Unit) {
      diags_.error(f.loc, "field '{}' cannot have type unit", f.name);
      t = nullptr;
    }
    fields.push_back({f.name, t ? t : types_.int_t()});
  }
}

int Checker::field_index(const std::string &type_name, const std::string &field) {
  auto &fields = fields_[type_name];
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].first == field) return int(i);
  return -1;
}

Type *Checker::resolve(const TypeExpr *t) {
  if (!t) return types_.unit_t();
  const std::string &n = t->name;
  if (t->args.empty()) {
    if (n == "int") return types_.int_t();
    if (n == "long") return types_.long_t();
    if (n == "float") return types_.float_t();
    if (n == "double") return types_.double_t();
    if (n == "bool") return types_.bool_t();
    if (n == "unit") return types_.unit_t();
    if (n == "range") return types_.range_t();
    auto sd = structs_.find(n);
    if (sd != structs_.end())
      return types_.named(sd->second->is_union ? TypeKind::Union : TypeKind::Struct, n);
  }
  if (n == "future" && t->args.size() == 1) {
    // A future<t> annotation is accepted; the value is forced where it is
    // used, so the variable behaves as a t (docs/language.md).
    return resolve(t->args[0].get());
  }
  if (n == "array" && t->args.size() == 1) {
    Type *elem = resolve(t->args[0].get());
    if (!elem) return nullptr;
    if (elem->kind == TypeKind::Unit) {
      diags_.error(t->loc, "an array cannot hold unit");
      return nullptr;
    }
    return types_.array(elem);
  }
  if (n == "(tuple)") {
    std::vector<Type *> members;
    for (auto &a : t->args) {
      Type *m = resolve(a.get());
      if (!m) return nullptr;
      if (m->kind == TypeKind::Unit) {
        diags_.error(a->loc, "a tuple cannot hold unit");
        return nullptr;
      }
      members.push_back(m);
    }
    return types_.tuple(members);
  }
  if (n == "task" && !t->args.empty()) {
    std::vector<Type *> params;
    for (size_t i = 0; i + 1 < t->args.size(); ++i) {
      Type *p = resolve(t->args[i].get());
      if (!p) return nullptr;
      if (p->kind == TypeKind::Unit) {
        diags_.error(t->args[i]->loc, "a task cannot take a unit parameter");
        return nullptr;
      }
      params.push_back(p);
    }
    Type *r = resolve(t->args.back().get());
    if (!r) return nullptr;
    return types_.task(params, r);
  }
  if (n == "array" || n == "future") {
    diags_.error(t->loc, "'{}' takes one type argument", n);
    return nullptr;
  }
  diags_.error(t->loc, "unknown type '{}'", ast::to_string(*t));
  return nullptr;
}

void Checker::type_mismatch(SourceLoc loc, Type *want, Type *got, const std::string &when) {
  diags_.error(loc, "expected {} when {}, but this has type {}", to_string(want), when,
               to_string(got));
}

// Retypes an unsuffixed literal, or arithmetic made only of literals
// (`-(2 * 3)`, `2 - -5L`), to `want` where the literal rule above allows
// it. Only widens: int -> long, double -> float.
void Checker::adapt(Expr &e, Type *want) {
  if (!want || !e.type || !is_literal(e)) return;
  // is_literal: an int or float literal, or a unary or binary operator.
  if (e.kind == ExprKind::IntLit) {
    if (!e.is_long && want->kind == TypeKind::Long) {
      e.is_long = true;
      e.type = types_.long_t();
    }
  } else if (e.kind == ExprKind::FloatLit) {
    if (!e.is_float32 && want->kind == TypeKind::Float) {
      e.is_float32 = true;
      e.type = types_.float_t();
    }
  } else if (e.kind == ExprKind::Unary) {
    adapt(*e.children[0], want);
    e.type = e.children[0]->type;
  } else {
    // A shift's count keeps its type; the other operators' operands
    // have the result's type.
    Expr &l = *e.children[0], &r = *e.children[1];
    adapt(l, want);
    if (e.binop == BinaryOp::Shl || e.binop == BinaryOp::Shr) {
      e.type = l.type;
      return;
    }
    adapt(r, want);
    if (l.type == r.type) e.type = l.type;
  }
}

// Whether literal arithmetic e has an unsuffixed integer literal too large
// for an int.
bool Checker::needs_long(const Expr &e) {
  bool found = false;
  for_each_expr(e, [&](const Expr &x) {
    found = found || (x.kind == ExprKind::IntLit && !x.is_long && !x.fits_int);
  });
  return found;
}

// A literal, or `-`, `~` and arithmetic operators applied to literals only.
bool Checker::is_literal(const Expr &e) {
  switch (e.kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
      return true;
    case ExprKind::Unary:
      return e.unop != UnaryOp::Not && e.children[0] && is_literal(*e.children[0]);
    case ExprKind::Binary:
      switch (e.binop) {
        case BinaryOp::Mul:
        case BinaryOp::Div:
        case BinaryOp::Mod:
        case BinaryOp::Add:
        case BinaryOp::Sub:
        case BinaryOp::Shl:
        case BinaryOp::Shr:
        case BinaryOp::BitAnd:
        case BinaryOp::BitXor:
        case BinaryOp::BitOr:
          return e.children[0] && e.children[1] && is_literal(*e.children[0]) &&
                 is_literal(*e.children[1]);
        case BinaryOp::Lt:
        case BinaryOp::Le:
        case BinaryOp::Gt:
        case BinaryOp::Ge:
        case BinaryOp::Eq:
        case BinaryOp::Ne:
        case BinaryOp::And:
        case BinaryOp::Or:
          return false;
      }
      return false;
    case ExprKind::BoolLit:
    case ExprKind::StringLit:
    case ExprKind::Name:
    case ExprKind::Call:
    case ExprKind::Field:
    case ExprKind::Index:
    case ExprKind::Tuple:
    case ExprKind::Construct:
    case ExprKind::New:
    case ExprKind::Range:
    case ExprKind::AnonTask:
    case ExprKind::Future:
      return false;
  }
  return false;
}

// Unsuffixed integer literals are ints unless the context made them longs
// (adapt), which may happen after they are checked (`y + 5999999999`):
// once everything is checked, those still ints must fit an int, and take
// the 32-bit value their digits spell (0xFFFFFFFF: -1).
void Checker::settle_int_literals() {
  for (Expr *e : int_literals_) {
    if (e->is_long) continue;
    if (!e->fits_int) {
      diags_.error(e->loc, "integer literal is too large for int (an L suffix makes a long)");
      continue;
    }
    e->int_value = int32_t(uint32_t(uint64_t(e->int_value)));
  }
  int_literals_.clear();
}

}  // namespace kite::checking
