// libFuzzer entry point for the parser: no input may crash or hang it, or make
// it fail without a diagnostic. Not built by default. Build with clang 15
// (clang 14 rejects ANTLR 4.9's headers) once a normal build in BUILD has
// generated the parser, from the repository root:
// clang++-15 -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -I. -IBUILD/grammar/generated -isystem /usr/include/antlr4-runtime tests/fuzz/parse_fuzzer.cpp frontend/{parse,ast,diagnostics,source,types}.cpp BUILD/grammar/generated/Kite*.cpp /usr/lib/x86_64-linux-gnu/libantlr4-runtime.a -lfmt -o parse_fuzzer
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "frontend/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kite::SourceFile file("fuzz.kite", std::string(reinterpret_cast<const char *>(data), size));
  std::ostringstream sink;  // diagnostics are not the point here
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
