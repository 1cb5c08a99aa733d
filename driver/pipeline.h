// The compiler's pipeline, in one function.
#pragma once

#include <string>

namespace kite {

struct CompileOptions {
  std::string input;
  std::string output;         // the artifact; empty: none
  bool dump_ast = false;      // the parsed AST
  std::string dump_ntg;       // "", "text" or "dot": nested task graphs after ANF
  bool dump_cps = false;      // blocks, join counters and signals
  bool emit_cl = false;       // the generated OpenCL C
  bool optimize = true;       // §3.3.4: graph flattening and tail calls
  bool bounds_checks = true;  // off: array indices are not checked (for measuring)
};

// Runs every pass on options.input; returns the process exit status.
int compile(const CompileOptions &options);

}  // namespace kite
