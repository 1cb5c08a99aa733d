// Type checking: resolves every name, gives every expression its type (a task
// call has type future<r>, rule APP; it is forced implicitly where a value is
// needed, rule FORCE) and reports type errors. Constructs the later stages do
// not handle yet are reported as "not supported yet" here, so nothing past
// this pass ever sees them.
#pragma once

#include <functional>

#include "frontend/ast.h"
#include "frontend/builtins.h"
#include "frontend/diagnostics.h"

namespace kite {

// Whether e only computes: literals, names that `name_ok` accepts, and
// operators and pure built-ins (builtins.h) applied to such (no task call,
// allocation, print, or element, field or closure read). Evaluated twice,
// it gives the same value and fails (a division by zero) the same way.
bool only_computes(const ast::Expr &e, const std::function<bool(const ast::Expr &)> &name_ok);

void check(ast::Program &program, TypeContext &types, Diagnostics &diags);

}  // namespace kite
