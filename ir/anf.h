// ANF rewriting (§3.3.1), after return motion (ir/returns.h): afterwards
// every task call stands in a statement of its own, `f(a);` or
// `x <- f(a);`, with arguments that contain no task call. Fresh variables
// hold intermediate results.
#pragma once

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace kite {

void to_anf(ast::Program &program, TypeContext &types);

// (is_task_call and contains_task_call are in frontend/ast.h.)
using ast::contains_task_call;
using ast::is_task_call;

}  // namespace kite
