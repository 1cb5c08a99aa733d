// libFuzzer target for the whole compiler, source text to OpenCL C, through
// the pipeline kitec runs (driver/pipeline.h), with and without the task-graph
// optimisations. Every input is either compiled, with and without them, or
// rejected with a diagnostic both times.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "driver/pipeline.h"

namespace {

// Returns the exit status; traps where it does not fit the output.
int compile_once(const kite::SourceFile &file, bool optimize) {
  kite::CompileOptions options;
  options.optimize = optimize;
  std::ostringstream diagnostics;
  kite::Artifact artifact;
  int status = kite::compile(file, options, diagnostics, artifact);
  if (status == 0 && artifact.opencl.empty()) __builtin_trap();
  if (status == 1 && diagnostics.str().empty()) __builtin_trap();
  if (status != 0 && status != 1) __builtin_trap();
  return status;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kite::SourceFile file("fuzz.kite", std::string(reinterpret_cast<const char *>(data), size));
  int optimized = compile_once(file, true);
  int unoptimized = compile_once(file, false);
  // The optimisations change task graphs, never which programs are accepted.
  if (optimized != unoptimized) __builtin_trap();
  return 0;
}
