// Source files and locations: what every diagnostic points at.
#pragma once

#include <string>
#include <vector>

namespace kite {

// The file a location is in: the program's, or one that
// Diagnostics::add_file numbered, the first of which is the prelude of
// stdlib/ (frontend/prelude.h).
enum class FileId : int { Program = 0, Prelude = 1 };

// A 1-based line and column in a file.
struct SourceLoc {
  int line = 0;
  int col = 0;
  FileId file = FileId::Program;
  bool valid() const { return line > 0; }
  bool in_program() const { return file == FileId::Program; }
  bool in_prelude() const { return file == FileId::Prelude; }
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
