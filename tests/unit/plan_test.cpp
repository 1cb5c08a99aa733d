// Unit tests of the backend's plan (backend-opencl/plan.h) through its
// dump: what the printers hold in C variables, the bounds proved, the
// lengths known, the atomics left out and the code's shape.
#include <doctest/doctest.h>

#include <sstream>

#include "backend-opencl/emit.h"
#include "driver/pipeline.h"

namespace {

using namespace kite;

std::string plan_of(const std::string &text, bool bounds_checks = true) {
  SourceFile file("t.kite", text);
  std::ostringstream errors;
  Compilation c;
  REQUIRE(compile(file, CompileOptions{}, errors, c) == 0);
  std::ostringstream out;
  EmitOptions options;
  options.bounds_checks = bounds_checks;
  dump_plan(c.blocks, out, options);
  return out.str();
}

bool has(const std::string &plan, const std::string &line) {
  return plan.find(line + "\n") != std::string::npos;
}

const char *kFib = R"(
task fib(n: int): int {
  if (n < 2) { return n; } else { return fib(n - 1) + fib(n - 2); }
}
task main(n: int): int { return fib(n); }
)";

const char *kReverse = R"(
task reverse(a: array<int>, n: int): array<int> {
  b = new<int>(n);
  for (k = [0, n - 1]) { b[k] <- a[n - 1 - k]; }
  return b;
}
task main(n: int): int {
  a = new<int>(n);
  map (x = a[k]) { x <- k; }
  b = reverse(a, n);
  return b[0];
}
)";

TEST_CASE("the plan holds parameters, locals and a loop's variables in C variables") {
  std::string plan = plan_of(kReverse);
  CHECK(has(plan, "    held parameters: a (p0), n (p1)"));
  CHECK(has(plan, "    local b (l2), length n (0 if b is null)"));
  CHECK(has(plan, "      registers: _c (v3), _i (v4)"));
  CHECK(has(plan, "      stored back: _c (v3), _i (v4)"));
  CHECK(has(plan, "      lengths measured: a (n0)"));
}

TEST_CASE("the plan proves a loop's indices in bounds, unless bounds are not checked") {
  std::string plan = plan_of(kReverse);
  CHECK(has(plan, "loop nests checking elements: some"));
  CHECK(has(plan, "      bounds proved before the loop: b[k], a[n - 1 - k]"));
  CHECK(has(plan, "      reports its nest's bad indices at its end"));
  std::string unchecked = plan_of(kReverse, false);
  CHECK(has(unchecked, "loop nests checking elements: none"));
  CHECK(unchecked.find("bounds proved") == std::string::npos);
}

TEST_CASE("the plan leaves out the atomics of a private record and of one-event counters") {
  std::string plan = plan_of(kFib);
  CHECK(has(plan, "  g0 waits for one event: no atomic"));
  CHECK(has(plan, "    own at the start: 1 (its record is new)"));
  CHECK(has(plan, "    own ends at: _t1 <- fib(n - 1)"));
  CHECK(has(plan, "    own at the start: if its record is private (KITE_OWN)"));
}

TEST_CASE("the plan's shape: inline up to 24 blocks, large above") {
  CHECK(plan_of(kFib).find("shape inline (4 blocks, inline up to 24)\n") == 0);
  std::string large;
  for (int i = 0; i < 25; ++i)
    large +=
        "task t" + std::to_string(i) + "(n: int): int { return n + " + std::to_string(i) + "; }\n";
  large += "task main(n: int): int { return t0(n)";
  for (int i = 1; i < 25; ++i) large += " + t" + std::to_string(i) + "(n)";
  large += "; }\n";
  std::string plan = plan_of(large);
  CHECK(plan.find("shape large (28 blocks, inline up to 24)\n") == 0);
  CHECK(has(plan, "  signal kite_signal_t0: g0"));
}

}  // namespace
