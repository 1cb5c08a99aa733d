// Lifting: every anonymous task (`task (x: int): int { ... }`) and every
// `task e` becomes a task of the program, after the checker has checked
// them where they stand (frontend/check.h). An anonymous task's expression
// then names the lifted task (ExprKind::AnonTask with `task` set, its body
// gone); `task e` becomes a call of a new anonymous task without
// parameters whose body is `return e;` and whose captures are the variables
// e names. Tasks are lifted innermost first, in the order the checker
// finished checking them (top-level constants, then tasks in order; within
// each, an expression's parts before it), and numbered after the named
// tasks.
#pragma once

#include "frontend/ast.h"

namespace kite {

void lift_anonymous_tasks(ast::Program &program, TypeContext &types);

}  // namespace kite
