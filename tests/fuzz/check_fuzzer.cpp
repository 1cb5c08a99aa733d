// libFuzzer target for the front end: parsing, the prelude and the type
// checker, as kitec's pipeline runs them (driver/pipeline.h, check_only).
// Any input gives either a checked program or at least one diagnostic; a
// crash, a hang, an internal compiler error (an abort in fuzz builds), an
// escaping exception or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "driver/pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kite::SourceFile file("fuzz.kite", std::string(reinterpret_cast<const char *>(data), size));
  kite::CompileOptions options;
  options.check_only = true;
  std::ostringstream diagnostics;
  kite::Compilation out;
  int status = kite::compile(file, options, diagnostics, out);
  if (status == 0 && !out.program) __builtin_trap();               // no program and no error
  if (status == 1 && diagnostics.str().empty()) __builtin_trap();  // an error not reported
  if (status != 0 && status != 1) __builtin_trap();
  return 0;
}
