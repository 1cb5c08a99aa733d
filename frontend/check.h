// Type checking: resolves every name, gives every expression its type (a task
// call has type future<r>, rule APP; it is forced implicitly where a value is
// needed, rule FORCE) and reports type errors. Constructs the later stages do
// not handle yet are reported as "not supported yet" here, so nothing past
// this pass ever sees them.
#pragma once

#include <functional>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace kite {

enum class Builtin {
#define KITE_BUILTIN(name, atomic) name##_,
#include "frontend/builtins.def"
};
// The builtin named `name`, or false.
bool find_builtin(const std::string &name, Builtin *out);
const char *builtin_name(Builtin b);
// Whether b writes the array element its first argument names
// (atomic_add(a[i], v) and the other atomics).
bool builtin_is_atomic(Builtin b);
// Whether b only computes from its arguments: conversions, abs, min, max,
// the float functions and hash (no allocation, no print, no element).
bool builtin_only_computes(Builtin b);
// Whether e only computes: literals, names that `name_ok` accepts, and
// operators and builtin_only_computes calls applied to such (no task call,
// allocation, print, or element, field or closure read). Evaluated twice,
// it gives the same value and fails (a division by zero) the same way.
bool only_computes(const ast::Expr &e, const std::function<bool(const ast::Expr &)> &name_ok);

void check(ast::Program &program, TypeContext &types, Diagnostics &diags);

}  // namespace kite
