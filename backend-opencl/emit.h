// OpenCL C generation: the CPS program becomes the uber-kernel's generated
// half (kite_block: one switch case per block code; kite_signal: what each
// finished node and block tells its record; kite_start_main), pasted after
// the scheduler of runtime-cl/.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "frontend/source.h"
#include "ir/cps.h"

namespace kite {

struct Artifact {
  std::string source_path;
  std::vector<std::pair<std::string, std::string>> params;  // main's: name, type
  std::string result;                                         // main's result type
  int frame_words = 0;
  std::vector<std::string> strings;  // string literals, by index
  std::vector<SourceLoc> sites;      // run-time error sites, by index
  std::string opencl;                // the whole OpenCL C program
};

struct EmitOptions {
  bool bounds_checks = true;  // check every array index against the length
};

Artifact emit_opencl(const cps::Program &program, const ast::Program &ast,
                     const std::string &source_path, const EmitOptions &options = {});

// The file format of docs/artifact.md. A non-empty `interpreter` becomes the
// first line, "#!" and it, which lets the file run as a program; the checksum
// does not cover that line.
void write_artifact(const Artifact &a, std::ostream &out, const std::string &interpreter = "");

}  // namespace kite
