// Built-in functions: the checking of their calls. See checker.h; their
// table is builtins.h.
#include "frontend/checker.h"

namespace kite {
namespace checking {

using namespace ast;

// Values print can print: scalars, and arrays, tuples and ranges of them.
bool Checker::printable(Type *t) {
  if (t->is_scalar() || t->kind == TypeKind::Range) return true;
  if (t->kind == TypeKind::Array) return t->elem->is_scalar();
  if (t->kind == TypeKind::Tuple) {
    for (Type *m : t->params)
      if (!m->is_scalar() && m->kind != TypeKind::Range) return false;
    return true;
  }
  return false;
}

// `want` is the type the call's context wants: an argument whose type is
// the result's (abs, min, max, pow) wants it too, so literals adapt.
Type *Checker::check_builtin(Expr &e, Builtin b, Type *want) {
  Expr &callee = *e.children[0];
  callee.builtin = int(b);
  size_t nargs = e.children.size() - 1;
  auto arg = [&](size_t i, Type *want = nullptr) { return value_of(*e.children[i + 1], want); };
  auto arity = [&](size_t n) {
    if (nargs == n) return true;
    diags_.error(e.loc, "'{}' takes {} argument{}, but {} {} given", callee.text, n,
                 n == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
    return false;
  };
  switch (b) {
    case Builtin::print_: {
      for (size_t i = 0; i < nargs; ++i) {
        Expr &a = *e.children[i + 1];
        if (a.kind == ExprKind::StringLit) {
          a.type = types_.string_t();
          continue;
        }
        Type *t = arg(i);
        if (t && !printable(t)) {
          diags_.error(a.loc, "print cannot print a value of type {} yet", to_string(t));
        }
        if (t && t->kind == TypeKind::Tuple) name_null(e, i + 1);
      }
      return types_.unit_t();
    }
    case Builtin::int_:
    case Builtin::long_:
    case Builtin::float_:
    case Builtin::double_: {
      if (!arity(1)) return nullptr;
      Type *t = arg(0);
      if (!t) return nullptr;
      // A conversion's argument has no wanted type: long(3 << 30) shifts
      // an int, as in C. Only a literal argument that cannot be an int
      // (long(2147483648), int(3 * 0x100000000 + 5)) is a long.
      if (is_literal(*e.children[1]) && needs_long(*e.children[1])) {
        adapt(*e.children[1], types_.long_t());
        t = e.children[1]->type;
      }
      if (!t->is_scalar()) {
        diags_.error(e.children[1]->loc, "cannot convert {} to {}", to_string(t), callee.text);
        return nullptr;
      }
      return b == Builtin::int_     ? types_.int_t()
             : b == Builtin::long_  ? types_.long_t()
             : b == Builtin::float_ ? types_.float_t()
                                    : types_.double_t();
    }
    case Builtin::abs_: {
      if (!arity(1)) return nullptr;
      Type *t = arg(0, want);
      if (t && !t->is_numeric()) return numeric_error(*e.children[1], callee.text, t);
      return t;
    }
    case Builtin::min_:
    case Builtin::max_:
    case Builtin::pow_: {
      if (!arity(2)) return nullptr;
      Type *a = arg(0, want), *c = arg(1, want);
      if (!a || !c) return nullptr;
      if (a != c) {
        if (is_literal(*e.children[1])) adapt(*e.children[1], c);
        if (is_literal(*e.children[2])) adapt(*e.children[2], a);
        // Either argument may be a task call: force it (FORCE).
        a = e.children[1]->type->forced();
        c = e.children[2]->type->forced();
      }
      bool need_float = b == Builtin::pow_;
      if (!(need_float ? a->is_floating() : a->is_numeric()))
        return numeric_error(*e.children[1], callee.text, a);
      if (a != c) {
        diags_.error(e.children[2]->loc, "'{}' needs two arguments of the same type, not {} and {}",
                     callee.text, to_string(a), to_string(c));
        return nullptr;
      }
      return a;
    }
    case Builtin::sqrt_:
    case Builtin::exp_:
    case Builtin::log_:
    case Builtin::sin_:
    case Builtin::cos_:
    case Builtin::floor_: {
      if (!arity(1)) return nullptr;
      Type *t = arg(0);
      if (t && !t->is_floating()) {
        diags_.error(e.children[1]->loc, "'{}' takes a float or double, not {}", callee.text,
                     to_string(t));
        return nullptr;
      }
      return t;
    }
    case Builtin::length_: {
      if (!arity(1)) return nullptr;
      Type *t = arg(0);
      if (t && t->kind != TypeKind::Array && t->kind != TypeKind::Range) {
        diags_.error(e.children[1]->loc, "'length' takes an array or a range, not {}",
                     to_string(t));
        return nullptr;
      }
      return t ? types_.int_t() : nullptr;
    }
    case Builtin::atomic_add_:
    case Builtin::atomic_min_:
    case Builtin::atomic_max_:
    case Builtin::atomic_cas_: {
      size_t n = b == Builtin::atomic_cas_ ? 3 : 2;
      if (!arity(n)) return nullptr;
      Expr &target = *e.children[1];
      Type *t = arg(0);
      if (!t) return nullptr;
      if (target.kind != ExprKind::Index || !t->is_integer()) {
        diags_.error(target.loc, "'{}' needs an element of an int or long array, like a[i]",
                     callee.text);
        return nullptr;
      }
      for (size_t i = 1; i < n; ++i) {
        Type *v = arg(i, t);
        if (v && v != t) {
          diags_.error(e.children[i + 1]->loc, "'{}' on a {} element needs a {} value, not {}",
                       callee.text, to_string(t), to_string(t), to_string(v));
          return nullptr;
        }
        if (!v) return nullptr;
      }
      return t;
    }
    case Builtin::hash_: {
      if (!arity(1)) return nullptr;
      Type *t = arg(0, types_.long_t());
      if (t && t != types_.long_t()) {
        diags_.error(e.children[1]->loc, "'hash' takes a long, not {}", to_string(t));
        return nullptr;
      }
      return types_.long_t();
    }
  }
  return nullptr;
}

Type *Checker::numeric_error(Expr &a, const std::string &fn, Type *t) {
  diags_.error(a.loc, "'{}' takes a number, not {}", fn, to_string(t));
  return nullptr;
}

}  // namespace checking
}  // namespace kite
