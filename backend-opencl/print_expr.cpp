// Expressions, and array elements with their bounds checks.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "backend-opencl/printer.h"
#include "frontend/builtins.h"
#include "frontend/prelude.h"

namespace kite::print {

int Printer::site(SourceLoc loc) {
  // A site in the prelude names its file; the others are in the source.
  out_.sites.push_back({loc.line, loc.col, loc.in_prelude() ? kPreludePath : ""});
  return int(out_.sites.size() - 1);
}

// The string that names a value in the error of its never having been
// given one (ast::null_name), which the error passes as its first operand
// for kite-run to print; -1 for none. Each text is stored once.
int Printer::null_name(const std::string &text) {
  if (text.empty()) return -1;
  auto [it, added] = null_names_.try_emplace(text, int(out_.strings.size()));
  if (added) out_.strings.push_back(text);
  return it->second;
}

// e's child i (Expr::null_names).
int Printer::null_name(const Expr &e, size_t i) {
  return null_name(i < e.null_names.size() ? e.null_names[i] : std::string());
}

// The loop whose element v is, in the task being emitted; or null.
const Stmt *Printer::element_of(const VarDecl *v) const {
  return p_.tasks[task_].source->element_of(v);
}

// An element of an array: an lvalue of the element's C type.
//
// Inside a loop that calls no task (loop_depth_ > 0) elements are plain
// loads and stores, which a GPU may cache in L1 and the C compiler may
// keep in registers and pipeline; elsewhere they are KITE_DATA
// (volatile on GPUs). The loop runs within one block, which every lane
// enters through KITE_FENCE after taking its entry: what the block may
// read was published to it before that acquire, and the end of the block
// fences before anything it wrote is handed on.
//
// `checked`: false where the index is known to be in bounds (a loop's
// element at its own index, or an index ir/bounds proved for the loop
// being emitted). `length`: the array's length where the C code knows it
// (plan::Length), else empty.
std::string Printer::element(const Type *elem, const std::string &array, const std::string &index,
                             SourceLoc loc, bool checked, const std::string &length) {
  const bool in_loop = loop_depth_ > 0;
  const char *q = in_loop ? "" : "KITE_DATA ";
  const std::string heap = in_loop ? loop_heap_ : "c->heap";
  if (!options_.bounds_checks || !checked)
    return fmt::format("((({}__global {} *)({} + {} + 1))[{}])", q, c_type(elem), heap, array,
                       index);
  // In a loop a bad index is reported when the loop nest ends
  // (kite_loop_elem_n, exit_loop), and the heap's address is in hand.
  const int bytes = is_wide(elem) ? 8 : 4;
  if (in_loop) {
    if (!length.empty())
      return fmt::format("(*(__global {} *)kite_loop_elem_nh(c, {}, {}, {}, {}, {}, {}))",
                         c_type(elem), heap, array, length, index, bytes, site(loc));
    return fmt::format("(*(__global {} *)kite_loop_elem_h(c, {}, {}, {}, {}, {}))", c_type(elem),
                       heap, array, index, bytes, site(loc));
  }
  if (!length.empty())
    return fmt::format("(*({}__global {} *)kite_elem_n(c, {}, {}, {}, {}, {}))", q, c_type(elem),
                       array, length, index, bytes, site(loc));
  return fmt::format("(*({}__global {} *)kite_elem(c, {}, {}, {}, {}))", q, c_type(elem), array,
                     index, bytes, site(loc));
}

// The length of array `a` where the C code knows it (plan::Length): `a`
// names a variable held in a C variable whose length is known; else "".
std::string Printer::known_length(const Expr &a) const {
  if (a.kind == ExprKind::Name && a.var)
    if (auto it = fast_lengths_.find(a.var); it != fast_lengths_.end()) return it->second;
  if (a.kind != ExprKind::Name || !a.var || at_.count(a.var) || element_of(a.var)) return "";
  auto it = env_.find(a.var);
  return it != env_.end() ? it->second.length : "";
}

// A variable as an lvalue; a loop's element alias is the element itself.
// Its index runs from 0 below the length of the loop's collection, which
// never changes: no check.
std::string Printer::lvalue(const VarDecl *v) {
  if (auto it = at_.find(v); it != at_.end()) return it->second;
  if (const Stmt *loop = element_of(v)) {
    const VarDecl *coll = loop->coll_var;
    if (coll->type->kind == TypeKind::Range)
      return fmt::format("((int){} + {})", slot(coll), slot(loop->index_var));
    return element(v->type, slot(coll), slot(loop->index_var), loop->loc, false);
  }
  return slot(v);
}

std::string Printer::expr(const Expr &e) {
  const Type *t = e.type ? e.type->forced() : nullptr;
  switch (e.kind) {
    case ExprKind::IntLit:
      // LONG_MIN has no literal in C: 9223372036854775808L does not fit a long.
      if (e.is_long && e.int_value == std::numeric_limits<int64_t>::min())
        return "(-9223372036854775807L - 1L)";
      return e.is_long ? fmt::format("{}L", e.int_value) : fmt::format("((int){})", e.int_value);
    case ExprKind::FloatLit: {
      std::string s = fmt::format("{:.17g}", e.float_value);
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return e.is_float32 ? "((float)" + s + ")" : s;
    }
    case ExprKind::BoolLit:
      return e.bool_value ? "1" : "0";
    case ExprKind::Name:
      if (e.var) return lvalue(e.var);
      if (e.global) return "kite_const_" + e.global->name + "(c)";
      // A named task as a value: -(id + 1); closures are heap references.
      if (e.task) return fmt::format("(-{}L)", e.task->id + 1);
      internal_error("unresolved name " + e.text);
    case ExprKind::AnonTask: {
      std::vector<std::pair<const Type *, std::string>> members = {
          {long_t_, fmt::format("{}L", e.task->id)}};
      for (auto &cap : e.children) members.push_back({cap->type->forced(), expr(*cap)});
      return make_record(members, -1, e.loc);
    }
    case ExprKind::Unary: {
      std::string a = expr(*e.children[0]);
      // Kite's integers wrap; OpenCL C's signed overflow is undefined.
      if (e.unop == UnaryOp::Neg && t->is_integer()) return wrapping(t, "0", "-", a);
      const char *op = e.unop == UnaryOp::Neg ? "-" : e.unop == UnaryOp::Not ? "!" : "~";
      return std::string("(") + op + " " + a + ")";
    }
    case ExprKind::Binary:
      return binary(e, t);
    case ExprKind::Call:
      return builtin_call(e, t);
    case ExprKind::Field:
      return fmt::format("{}(kite_field(c, {}, {}, {}, {}), 0)", slot_macro(t),
                         expr(*e.children[0]), e.field, site(e.loc), null_name(e, 0));
    case ExprKind::Index:
      if (e.children[0]->kind == ExprKind::Name && fast_base_.count(e.children[0]->var))
        return from_bits(t, "s[" + fast_element(e) + "]");
      return element(t, expr(*e.children[0]), expr(*e.children[1]), e.loc, !proved(e),
                     known_length(*e.children[0]));
    case ExprKind::Range:
      return fmt::format("kite_range_checked(c, {}, {}, {})", expr(*e.children[0]),
                         expr(*e.children[1]), site(e.loc));
    case ExprKind::New:
      return fmt::format("kite_new_array(c, {}, {}, {})", expr(*e.children[0]),
                         is_wide(t->elem) ? 8 : 4, site(e.loc));
    case ExprKind::Tuple: {
      std::vector<std::pair<const Type *, std::string>> members;
      for (auto &m : e.children) members.push_back({m->type->forced(), expr(*m)});
      return make_record(members, -1, e.loc);
    }
    case ExprKind::Construct:
      return construct(e, t);
    case ExprKind::StringLit:  // print's arguments: emit_print
    case ExprKind::Future:     // ANF made futures calls of their own
      break;
  }
  internal_error("expression kind reached the backend unchecked");
}

std::string Printer::binary(const Expr &e, const Type *t) {
  std::string a = expr(*e.children[0]), b = expr(*e.children[1]);
  const Type *operand = e.children[0]->type->forced();
  if ((e.binop == BinaryOp::Div || e.binop == BinaryOp::Mod) && operand->is_integer()) {
    std::string fn = std::string(e.binop == BinaryOp::Div ? "kite_div_" : "kite_mod_") +
                     (operand->kind == TypeKind::Long ? "l" : "i");
    return fmt::format("{}(c, {}, {}, {})", fn, a, b, site(e.loc));
  }
  if (e.binop == BinaryOp::Shl) {
    // OpenCL takes the shift count modulo the width; so does Kite. Bits
    // shifted out are lost (unsigned: no overflow to be undefined).
    return wrapping(t, a, "<<", b);
  }
  if (e.binop == BinaryOp::Shr) return fmt::format("(({}){} >> {})", c_type(t), a, b);
  if (operand->is_integer() &&
      (e.binop == BinaryOp::Add || e.binop == BinaryOp::Sub || e.binop == BinaryOp::Mul))
    return wrapping(t, a, spelling(e.binop), b);
  std::string s = "(" + a + " " + spelling(e.binop) + " " + b + ")";
  bool compare = e.binop == BinaryOp::Lt || e.binop == BinaryOp::Le || e.binop == BinaryOp::Gt ||
                 e.binop == BinaryOp::Ge || e.binop == BinaryOp::Eq || e.binop == BinaryOp::Ne;
  // Keep the C type of narrow arithmetic; comparisons give int (bool).
  if (compare || e.binop == BinaryOp::And || e.binop == BinaryOp::Or) return "(int)" + s;
  return "((" + c_type(t) + ")" + s + ")";
}

// `a op b` on ints or longs, wrapping: computed unsigned (where C defines
// overflow) and reinterpreted. Signed overflow is undefined in OpenCL C,
// and optimisers use that (`x + 1 > x` folds to true); these compile to
// the same instructions.
std::string Printer::wrapping(const Type *t, const std::string &a, const char *op,
                              const std::string &b) {
  bool wide = t->kind == TypeKind::Long;
  const char *u = wide ? "ulong" : "uint";
  return fmt::format("{}(({})({}) {} ({})({}))", wide ? "as_long" : "as_int", u, a, op, u, b);
}

// The address of the array element an atomic built-in works on.
std::string Printer::element_address(const Expr &index_expr) {
  const Type *elem = index_expr.type->forced();
  return fmt::format("((KITE_DATA __global {} *)kite_elem(c, {}, {}, {}, {}))", c_type(elem),
                     expr(*index_expr.children[0]), expr(*index_expr.children[1]),
                     is_wide(elem) ? 8 : 4, site(index_expr.loc));
}

std::string Printer::builtin_call(const Expr &e, const Type *t) {
  if (e.children[0]->builtin < 0) internal_error("task call inside an expression after ANF");
  Builtin b = Builtin(e.children[0]->builtin);
  auto arg = [&](size_t i) { return expr(*e.children[i + 1]); };
  switch (b) {
    case Builtin::int_:
    case Builtin::long_:
      // A C cast from a floating type is undefined out of range: Kite's
      // conversion saturates, takes NaN to 0 and truncates (docs/language.md).
      if (e.children[1]->type->forced()->is_floating())
        return fmt::format("kite_{}_of_{}({})", c_type(t), c_type(e.children[1]->type->forced()),
                           arg(0));
      return "((" + c_type(t) + ")(" + arg(0) + "))";
    case Builtin::float_:
    case Builtin::double_:
      return "((" + c_type(t) + ")(" + arg(0) + "))";
    case Builtin::abs_:
      return t->is_integer()
                 ? fmt::format("kite_abs_{}({})", t->kind == TypeKind::Long ? "l" : "i", arg(0))
                 : fmt::format("fabs({})", arg(0));
    case Builtin::min_:
    case Builtin::max_: {
      const char *fn = b == Builtin::min_ ? (t->is_integer() ? "min" : "fmin")
                                          : (t->is_integer() ? "max" : "fmax");
      return fmt::format("{}({}, {})", fn, arg(0), arg(1));
    }
    case Builtin::pow_:
      return fmt::format("pow({}, {})", arg(0), arg(1));
    case Builtin::sqrt_:
    case Builtin::exp_:
    case Builtin::log_:
    case Builtin::sin_:
    case Builtin::cos_:
    case Builtin::floor_:
      return fmt::format("{}({})", builtin_info(b).name, arg(0));
    case Builtin::hash_:
      return fmt::format("kite_hash({})", arg(0));
    case Builtin::length_:
      if (e.children[1]->kind == ExprKind::Name && fast_base_.count(e.children[1]->var))
        return fmt::format("((int)s[{}])", fast_base_.at(e.children[1]->var));
      return e.children[1]->type->forced()->kind == TypeKind::Range
                 ? fmt::format("kite_range_length({})", arg(0))
                 : fmt::format("kite_length(c, {})", arg(0));
    case Builtin::atomic_add_:
    case Builtin::atomic_min_:
    case Builtin::atomic_max_: {
      bool wide = t->kind == TypeKind::Long;
      const char *op = b == Builtin::atomic_add_   ? "add"
                       : b == Builtin::atomic_min_ ? "min"
                                                   : "max";
      return fmt::format("{}_{}({}, {})", wide ? "atom" : "atomic", op,
                         element_address(*e.children[1]), arg(1));
    }
    case Builtin::atomic_cas_:
      return fmt::format("{}({}, {}, {})", t->kind == TypeKind::Long ? "kite_cas_l" : "kite_cas_i",
                         element_address(*e.children[1]), arg(1), arg(2));
    case Builtin::print_:
      internal_error("print used as a value");
  }
  internal_error("unknown built-in");
}

bool Printer::proved(const Expr &index) const {
  return proved_ && std::find(proved_->begin(), proved_->end(), &index) != proved_->end();
}

}  // namespace kite::print
