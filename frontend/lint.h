// Warnings about programs that compile but probably do not mean what they
// say (frontend/diagnostics.h lists them): -Wshadow, -Wunused and
// -Wprint-format, found on the checked AST. -Wunordered-read needs the task
// graphs and is in ir/lint.h.
#pragma once

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace kite {

// Reports the warnings of a checked program's own tasks (not the prelude's).
void lint(const ast::Program &program, Diagnostics &diags);

}  // namespace kite
