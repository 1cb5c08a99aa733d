// Unit tests of the backend's plan (backend-opencl/plan.h) through its dump.
#include <doctest/doctest.h>

#include <sstream>

#include "backend-opencl/emit.h"
#include "driver/pipeline.h"

namespace {

using namespace kite;

std::string plan_of(const std::string &text) {
  SourceFile file("t.kite", text);
  std::ostringstream errors;
  Compilation c;
  REQUIRE(compile(file, CompileOptions{}, errors, c) == 0);
  std::ostringstream out;
  dump_plan(c.blocks, out);
  return out.str();
}

TEST_CASE("the plan holds the parameters a block names") {
  std::string plan = plan_of(R"(
task fib(n: int): int {
  if (n < 2) { return n; } else { return fib(n - 1) + fib(n - 2); }
}
task main(n: int): int { return fib(n); }
)");
  CHECK(plan.find("shape inline") == 0);
  CHECK(plan.find("held parameters: n") != std::string::npos);
}

}  // namespace
