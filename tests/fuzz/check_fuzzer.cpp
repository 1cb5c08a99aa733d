// libFuzzer target for the front end: parsing, the prelude and the type
// checker. Any input gives either a checked program or at least one
// diagnostic; a crash, a hang, an internal compiler error (an abort in fuzz
// builds), an escaping exception or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "frontend/check.h"
#include "frontend/parse.h"
#include "frontend/prelude.h"
#include "frontend/types.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kite::SourceFile file("fuzz.kite", std::string(reinterpret_cast<const char *>(data), size));
  std::ostringstream sink;
  kite::Diagnostics diags(file, sink);
  try {
    auto program = kite::parse(file, diags);
    diags.check_no_errors();
    if (!program) __builtin_trap();  // no program and no error
    kite::add_prelude(*program, diags);
    diags.check_no_errors();
    kite::TypeContext types;
    kite::check(*program, types, diags);
  } catch (const kite::CompileFailed &) {
    // Compilation stops only after an error was reported.
    if (diags.error_count() == 0 || sink.str().empty()) __builtin_trap();
  }
  return 0;
}
