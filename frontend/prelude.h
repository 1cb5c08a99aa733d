// The Kite-written prelude (stdlib/prelude.kite, embedded at build time):
// its declarations that the program uses, directly or through each other,
// join the program's, unless the program declares the same name itself.
#pragma once

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace kite {

constexpr const char *kPreludePath = "stdlib/prelude.kite";

void add_prelude(ast::Program &program, Diagnostics &diags);

}  // namespace kite
