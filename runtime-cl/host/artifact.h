// The compiled file `kitec prog.kite -o prog` writes (docs/artifact.md): a few
// lines of metadata, the complete OpenCL C program, and a checksum. Its one
// reader and its one writer: kitec writes what kite-run and kite-interp read.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kite::host {

struct Param {
  std::string name;
  std::string type;  // a Kite spelling: "int", "array<int>", ...
};

// A run-time error site: where in the Kite source the failing operation is.
struct Site {
  int line = 0;
  int column = 0;
  std::string file;  // empty: the artifact's source
};

struct Artifact {
  std::string path;                  // the file it was read from (read_artifact)
  std::string source;                // the Kite source file it was compiled from
  std::vector<Param> params;         // main's parameters, in order
  std::string result;                // main's result type, "unit" for none
  std::vector<std::string> strings;  // string literals (unescaped) by index
  std::vector<Site> sites;           // run-time error sites by index
  int record_words = 0;              // longs per task record
  int kept_words = 0;                // longs of a kept form's record, at most (0: none)
  std::string opencl;                // the OpenCL C program
};

// Reads and checks an artifact: its checksum, the version of kitec that wrote
// it, its lines, and its header against the counts its OpenCL source defines
// (docs/artifact.md); throws RunError on any problem.
Artifact load_artifact(const std::string &path);
// The same for text already in memory; `path` only names it in messages.
Artifact parse_artifact(std::string_view text, const std::string &path);
// Whether `text` starts as an artifact does: "kite-artifact " or a "#!" line
// (which no Kite source has).
bool looks_like_artifact(std::string_view text);

// The value of `#define macro <integer>` in an artifact's OpenCL source
// (its header's counts, KITE_PARTS), if it has one.
std::optional<long> header_value(const std::string &opencl, const char *macro);

// Writes `a` in the file format. A non-empty `interpreter` becomes the first
// line, "#!" and it, which lets the file run as a program; the checksum does
// not cover that line.
void write_artifact(const Artifact &a, std::ostream &out, const std::string &interpreter = "");

}  // namespace kite::host
