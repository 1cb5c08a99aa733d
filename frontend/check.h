// Type checking: resolves every name, gives every expression its type (a task
// call has type future<r>, rule APP; it is forced implicitly where a value is
// needed, rule FORCE) and reports type errors. Constructs the later stages do
// not handle yet are reported as "not supported yet" here, so nothing past
// this pass ever sees them.
#pragma once

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace kite {

void check(ast::Program &program, TypeContext &types, Diagnostics &diags);

}  // namespace kite
