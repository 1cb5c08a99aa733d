// The stages of driver/stages.def: every one can be dumped after, and -O0
// skips exactly those marked Skip.
#include <doctest/doctest.h>

#include <iostream>
#include <sstream>

#include "driver/pipeline.h"

namespace {

using namespace kite;

const char *kFib = R"(task fib(n: int): int {
  if (n < 2) { return n; } else { return fib(n - 1) + fib(n - 2); }
}
task main(n: int): int { return fib(n); }
)";

// What kitec prints with --dump-after=stage (and -O0 unless `optimize`).
std::string dump_after(Stage stage, bool optimize = true) {
  SourceFile file("t.kite", kFib);
  CompileOptions options;
  options.dump_after = stage;
  options.optimize = optimize;
  std::ostringstream errors, out;
  std::streambuf *cout = std::cout.rdbuf(out.rdbuf());
  Compilation c;
  int status = compile(file, options, errors, c);
  std::cout.rdbuf(cout);
  CHECK(status == 0);
  CHECK(errors.str() == "");
  return out.str();
}

}  // namespace

TEST_CASE("every stage has a dump, and -O0 leaves the program as the stage before left it") {
  std::string before;
  for (const StageInfo &s : kStages) {
    CAPTURE(s.name);
    CHECK(find_stage(s.name) == s.stage);
    std::string dump = dump_after(s.stage, false);
    CHECK(!dump.empty());
    if (s.o0 == O0::Skip) CHECK(dump == before);
    before = dump;
  }
  CHECK(find_stage("nothing") == Stage::none);
  // fib's graphs: its tail call is marked only when tail_calls runs.
  CHECK(dump_after(Stage::tail_calls).find("tail call") != std::string::npos);
  CHECK(dump_after(Stage::tail_calls, false).find("tail call") == std::string::npos);
}
