// Unit tests of the artifact's two sides: what the backend writes
// (write_artifact) is what kite-run reads (parse_artifact), with and without
// the "#!" line that makes the file executable.
#include "host/artifact.h"

#include <doctest/doctest.h>

#include <sstream>

#include "backend-opencl/emit.h"
#include "driver/pipeline.h"
#include "host/cl.h"

namespace {

// A small program's artifact, compiled by the pipeline kitec runs.
kite::Artifact compiled() {
  kite::SourceFile file("t.kite",
                        "task main(n: int): int {\n  print(\"n is\", n);\n  return n;\n}\n");
  std::ostringstream errors;
  kite::Artifact artifact;
  REQUIRE(kite::compile(file, kite::CompileOptions{}, errors, artifact) == 0);
  return artifact;
}

std::string written(const kite::Artifact &a, const std::string &interpreter) {
  std::ostringstream out;
  kite::write_artifact(a, out, interpreter);
  return out.str();
}

}  // namespace

TEST_CASE("an artifact reads back as it was written, with or without a #! line") {
  kite::Artifact a = compiled();
  for (std::string interpreter : {"", "/usr/bin/env kite-run"}) {
    std::string text = written(a, interpreter);
    CHECK((text.rfind("#!", 0) == 0) == !interpreter.empty());
    CHECK(kite::host::looks_like_artifact(text));
    kite::host::Artifact b = kite::host::parse_artifact(text, "t");
    CHECK(b.source == "t.kite");
    REQUIRE(b.params.size() == 1);
    CHECK(b.params[0].name == "n");
    CHECK(b.params[0].type == "int");
    CHECK(b.result == "int");
    CHECK(b.strings == a.strings);
    CHECK(b.record_words == a.record_words);
    CHECK(b.opencl == a.opencl);
  }
}

TEST_CASE("the checksum covers the artifact but not its #! line") {
  std::string text = written(compiled(), "/usr/bin/env kite-run");
  // Another interpreter: still a valid artifact.
  std::string moved = "#!/opt/kite/bin/kite-run" + text.substr(text.find('\n'));
  CHECK(kite::host::parse_artifact(moved, "t").result == "int");
  // A changed byte after the #! line: refused.
  std::string edited = text;
  edited[edited.find("result int") + 7] = 'l';
  CHECK_THROWS_AS(kite::host::parse_artifact(edited, "t"), kite::host::RunError);
}

TEST_CASE("the artifact names the kitec that wrote it, and kite-run refuses another") {
  std::string text = written(compiled(), "");
  CHECK(text.find("\nkitec " KITE_VERSION "\n") != std::string::npos);
  std::string other = text;
  other.replace(other.find("kitec " KITE_VERSION), 6 + sizeof(KITE_VERSION) - 1, "kitec 0.0.1");
  try {
    kite::host::parse_artifact(other, "t");
    FAIL("an artifact of another kitec was accepted");
  } catch (const kite::host::RunError &e) {
    // The checksum no longer matches, which is reported first; with the
    // checksum recomputed (tests/run-host/integrity.test) the version is named.
    CHECK(std::string(e.what()).find("modified") != std::string::npos);
  }
}

TEST_CASE("a Kite source is not taken for an artifact") {
  CHECK_FALSE(kite::host::looks_like_artifact("task main() {}\n"));
  CHECK_FALSE(kite::host::looks_like_artifact("// kite-artifact 3\n"));
}
