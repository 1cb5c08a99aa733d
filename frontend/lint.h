// Warnings about programs that compile but probably do not mean what they
// say (frontend/diagnostics.h lists them): -Wshadow, -Wunused and
// -Wprint-format, found on the checked AST. -Wunordered-read needs the task
// graphs and is in ir/lint.h.
#pragma once

#include <set>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace kite {

// Reports the warnings of a checked program's own tasks (not the prelude's).
void lint(const ast::Program &program, Diagnostics &diags);

// The variables whose heap value (array, struct) the program may write
// through: `a[i] <- e`, a loop's element, atomic_add(a[i], ...), or a call
// of a task whose parameter does (a task value: any it is given). Found on
// the checked AST, before anonymous tasks become closures.
std::set<const ast::VarDecl *> written_through(const ast::Program &program);

}  // namespace kite
