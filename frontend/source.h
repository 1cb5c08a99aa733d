// Source files and locations: what every diagnostic points at.
#pragma once

#include <string>
#include <vector>

namespace kite {

// A 1-based line and column in the program's file (file 0) or in the
// prelude of stdlib/ (file 1).
struct SourceLoc {
  int line = 0;
  int col = 0;
  int file = 0;
  bool valid() const { return line > 0; }
};

// The text of a source file, split into lines for diagnostics.
class SourceFile {
 public:
  SourceFile(std::string path, std::string text);
  const std::string &path() const { return path_; }
  const std::string &text() const { return text_; }
  // The text of 1-based line `n` without its newline ("" when out of range).
  std::string line(int n) const;

 private:
  std::string path_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

}  // namespace kite
