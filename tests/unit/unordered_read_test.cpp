// -Wunordered-read finds what tasks write through on the ANF (ir/lint.h):
// an anonymous task writes its maker's variable through its closure.
#include <doctest/doctest.h>

#include <sstream>

#include "driver/pipeline.h"

TEST_CASE("a task whose anonymous task writes the array it captured writes its parameter") {
  kite::SourceFile file("t.kite", R"(task fill(a: array<int>): int {
  w = task (v: int): int { a[0] <- v; return v; };
  return w(7);
}
task main(n: int) {
  a = new<int>(n);
  r = fill(a);
  print(a[0]);
  print(r);
}
)");
  std::ostringstream errors;
  kite::Compilation c;
  REQUIRE(kite::compile(file, kite::CompileOptions{}, errors, c) == 0);
  CHECK(errors.str().find("t.kite:8:9: warning: 'a' is read here without waiting for the call of "
                          "'fill' on line 7, which was given 'a' [-Wunordered-read]") !=
        std::string::npos);
}
