// Unit tests of C's escape sequences (frontend/escapes.h), which the front
// end's string literals and kite-run's artifact reader both read.
#include "frontend/escapes.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "host/artifact.h"
#include "host/cl.h"

namespace {

// The byte the escape sequence `text` (after its backslash) stands for, or
// its error; `end` is where it stops.
std::string read(std::string_view text, size_t *end = nullptr) {
  kite::Escape e = kite::read_escape(text, 0);
  if (end) *end = e.end;
  return e.value >= 0 ? std::string(1, char(e.value)) : "error: " + e.error;
}

// An artifact with these strings and nothing to run; its OpenCL C defines
// the counts kite-run checks the header against.
kite::host::Artifact with_strings(std::vector<std::string> strings) {
  kite::host::Artifact a;
  a.source = "t.kite";
  a.result = "unit";
  a.record_words = 1;
  a.opencl = fmt::format(
      "#define KITE_RECORD_WORDS 1\n#define KITE_STRING_COUNT {}\n#define KITE_SITE_COUNT "
      "0\n#define KITE_MAIN_PARAM_COUNT 0\n",
      strings.size());
  a.strings = std::move(strings);
  return a;
}

}  // namespace

TEST_CASE("the simple escapes") {
  CHECK(read("n") == "\n");
  CHECK(read("t") == "\t");
  CHECK(read("r") == "\r");
  CHECK(read("a") == "\a");
  CHECK(read("b") == "\b");
  CHECK(read("f") == "\f");
  CHECK(read("v") == "\v");
  CHECK(read("\\") == "\\");
  CHECK(read("\"") == "\"");
  CHECK(read("'") == "'");
  CHECK(read("?") == "?");
  size_t end = 0;
  CHECK(read("nx", &end) == "\n");
  CHECK(end == 1);
}

TEST_CASE("octal: one to three digits, at most \\377") {
  size_t end = 0;
  CHECK(read("0", &end) == std::string(1, '\0'));
  CHECK(end == 1);
  CHECK(read("101", &end) == "A");
  CHECK(end == 3);
  CHECK(read("1014", &end) == "A");  // the fourth digit is a character of its own
  CHECK(end == 3);
  CHECK(read("18", &end) == "\001");  // 8 is no octal digit
  CHECK(end == 1);
  CHECK(read("377") == "\377");
  CHECK(read("400") == "error: octal escape sequence out of range (at most \\377)");
}

TEST_CASE("hexadecimal: every hex digit that follows, at most \\xff") {
  size_t end = 0;
  CHECK(read("x41", &end) == "A");
  CHECK(end == 3);
  CHECK(read("x41g", &end) == "A");
  CHECK(end == 3);
  CHECK(read("x0041", &end) == "A");
  CHECK(end == 5);
  CHECK(read("xfF") == "\377");
  // Not 'A' then 'a', as a reader of two digits would have it: C's rule.
  CHECK(read("x41a", &end) == "error: hex escape sequence out of range (at most \\xff)");
  CHECK(end == 4);
  CHECK(read("x123456789abcdef0123") == "error: hex escape sequence out of range (at most \\xff)");
  CHECK(read("x") == "error: \\x used with no following hex digits");
  CHECK(read("xg") == "error: \\x used with no following hex digits");
}

TEST_CASE("any other escape is an error") {
  CHECK(read("q") == "error: unknown escape sequence '\\q'");
  CHECK(read("8") == "error: unknown escape sequence '\\8'");
  CHECK(read("\x01") == "error: unknown escape sequence");
}

TEST_CASE("every byte ast::quote writes into an artifact reads back the same") {
  std::string all;
  for (int c = 1; c < 256; ++c) all += char(c);
  all += '\0';
  kite::host::Artifact a = with_strings({all,
                                         "\x01"
                                         "abc",
                                         "\x1f"
                                         "7"});
  std::ostringstream out;
  kite::host::write_artifact(a, out, "");
  CHECK(kite::host::parse_artifact(out.str(), "t").strings == a.strings);
}

TEST_CASE("an artifact's string reads its escapes as a Kite string literal does") {
  auto parse = [](const std::string &line) {
    std::ostringstream out;
    kite::host::write_artifact(with_strings({}), out, "");
    // A string line written by hand, with the checksum the reader expects.
    std::string text = out.str();
    text.insert(text.find("record-words"), line + "\n");
    text.replace(text.find("KITE_STRING_COUNT 0"), 19, "KITE_STRING_COUNT 1");
    text = text.substr(0, text.rfind("checksum "));
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
    return kite::host::parse_artifact(text + fmt::format("checksum {:016x}\n", h), "t");
  };
  CHECK(parse("string 0 \"\\x41\\101\\n\"").strings == std::vector<std::string>{"A\101\n"});
  CHECK_THROWS_WITH_AS(parse("string 0 \"\\x41a\""),
                       doctest::Contains("hex escape sequence out of range"), kite::host::RunError);
  CHECK_THROWS_WITH_AS(parse("string 0 \"\\400\""),
                       doctest::Contains("octal escape sequence out of range"),
                       kite::host::RunError);
}
