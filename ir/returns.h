// Return motion, before ANF (ir/anf.h): blocks are flattened, and the
// statements after an `if` or `case` with a returning branch move into the
// one branch that goes on, so that `return` ends every path it is on. A task
// where more than one path would go on gets a flag instead: every `return e`
// becomes `_res <- e; _returned <- true`, the statements after anything that
// may have returned run under `if (!_returned)`, and the task ends with
// `return _res` (only such tasks: moving statements keeps tail calls).
#pragma once

#include "frontend/ast.h"
#include "frontend/types.h"

namespace kite {

void move_returns(ast::Program &program, TypeContext &types);

}  // namespace kite
