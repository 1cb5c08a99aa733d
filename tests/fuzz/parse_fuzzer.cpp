// libFuzzer target for the lexer and parser: no input may crash or hang
// them, or make them fail without a diagnostic; an accepted program must
// print (--dump-ast). Built with -DKITE_FUZZ=ON (docs/testing.md).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "frontend/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kite::SourceFile file("fuzz.kite", std::string(reinterpret_cast<const char *>(data), size));
  std::ostringstream sink;  // the diagnostics' text is not checked here
  kite::Diagnostics diags(file, sink);
  auto program = kite::parse(file, diags);
  // Either a program or at least one error, never neither.
  if (!program && diags.error_count() == 0) __builtin_trap();
  if (program) {
    std::ostringstream dumped;
    kite::ast::dump(*program, dumped);
  }
  return 0;
}
