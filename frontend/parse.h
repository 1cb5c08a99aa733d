// Parses one Kite source file into the AST (grammar/Kite.g4 -> frontend/ast.h).
#pragma once

#include <memory>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/source.h"

namespace kite {

// Reports every lexical and syntax error through `diags` (the first syntax
// error stops parsing) and returns null when there was one; the caller then
// calls diags.check_no_errors(). Never throws on bad input.
// `file_id` goes into every location (SourceLoc::file).
std::unique_ptr<ast::Program> parse(const SourceFile &file, Diagnostics &diags,
                                    FileId file_id = FileId::Program);

}  // namespace kite
