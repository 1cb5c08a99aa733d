// Closure conversion (§4.2's defunctionalisation, first half): every
// anonymous task, already lifted to the program's tasks (frontend/lift.h), with
// its captures (the variables of enclosing tasks it uses, directly or
// through anonymous tasks inside it: the checker lists them as it resolves
// names, frontend/lift for `task e`), gets a hidden parameter, its closure;
// inside it a captured variable reads the closure, and where it is created
// the closure is built from the captured variables' current values.
#pragma once

#include "frontend/ast.h"

namespace kite {

void convert_closures(ast::Program &program, TypeContext &types);

}  // namespace kite
