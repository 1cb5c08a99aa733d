// The compiler's pipeline, in one function.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>

#include "backend-opencl/emit.h"
#include "driver/stages.h"
#include "frontend/diagnostics.h"
#include "frontend/source.h"
#include "ir/anf.h"
#include "ir/cps.h"
#include "ir/ntg.h"

namespace kite {

struct CompileOptions {
  std::string input;
  std::string output;  // the artifact; empty: none
  // Print the program after this stage, in its IR, and stop (--dump-after
  // and the stages' own flags, driver/stages.def); the OpenCL C after
  // `emit` still leaves the artifact.
  Stage dump_after = Stage::none;
  bool dot = false;           // the task graphs' dumps in Graphviz's dot (--dump-ntg=dot)
  bool check_only = false;    // stop after type checking and its warnings (kite-interp)
  bool optimize = true;       // off (-O0): the stages driver/stages.def marks Skip do not run
  bool bounds_checks = true;  // off: array indices are not checked (for measuring)
  int part_blocks = 0;        // a large program's parts' blocks at most (0: the default)
  WarningOptions warnings;    // -W flags
};

// What each stage made, for tests and tools: the AST (checked, closures
// converted, returns moved: those passes rewrite it in place; its tasks,
// structs and constants then move into the ANF), the types they point at,
// the ANF, the task graphs, the CPS blocks and the artifact. A stage that did
// not run (an error, or a dump that stops earlier) leaves its part empty.
struct Compilation {
  TypeContext types;
  std::unique_ptr<ast::Program> program;
  anf::Program anf;
  ntg::Program graphs;
  cps::Program blocks;
  Artifact artifact;
};

// Runs every pass on the text of `file`, reporting errors to `diagnostics`;
// the dumps and --emit-cl go to standard output. Returns the exit status; 0
// with no dump asked for leaves the compiled program in `out.artifact`.
// Reads and writes no files (options.input and options.output are not used).
int compile(const SourceFile &file, const CompileOptions &options, std::ostream &diagnostics,
            Compilation &out);
// The same, keeping only the artifact.
int compile(const SourceFile &file, const CompileOptions &options, std::ostream &diagnostics,
            Artifact &artifact);

// Reads options.input, compiles it and writes the artifact to options.output
// (an executable file: its first line runs kite_run_interpreter()); returns
// the process exit status.
int compile(const CompileOptions &options);

// kitec's default output for `input`: its file name without ".kite", in the
// current directory; "" when `input` does not end in ".kite".
std::string default_output(const std::string &input);

// The "#!" line of an artifact, without the "#!": the kite-run beside the
// running program when there is one (the same version, by construction),
// else "/usr/bin/env kite-run", the kite-run on PATH (docs/artifact.md).
std::string kite_run_interpreter();

}  // namespace kite
