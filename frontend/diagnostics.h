// One engine for every compile error: `file:line:col: error: message`, the
// source line, and a caret under the column (Clang's format).
//
// User errors go through Diagnostics::error and the compiler stops at the end
// of the phase that found them (exit status 1). A broken compiler invariant is
// not a user error: it goes through internal_error, which says so plainly.
#pragma once

#include <fmt/format.h>

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/source.h"

namespace kite {

// Thrown to stop compilation after errors have been reported.
struct CompileFailed : std::runtime_error {
  CompileFailed() : std::runtime_error("compilation failed") {}
};

class Diagnostics {
 public:
  Diagnostics(const SourceFile &file, std::ostream &out);

  void error(SourceLoc loc, const std::string &message);
  void note(SourceLoc loc, const std::string &message);
  template <typename... Args>
  void error(SourceLoc loc, fmt::format_string<Args...> f, Args &&...args) {
    error(loc, fmt::format(f, std::forward<Args>(args)...));
  }

  int error_count() const { return errors_; }
  // Throws CompileFailed if any error was reported.
  void check_no_errors() const;

  const SourceFile &file() const { return file_; }
  // Another file locations may name (SourceLoc::file 1, 2, ...); it must
  // outlive this engine. Returns its number.
  int add_file(const SourceFile &file);

 private:
  void report(SourceLoc loc, const char *severity, const std::string &message);
  const SourceFile &file_;
  std::vector<const SourceFile *> more_files_;
  std::ostream &out_;
  int errors_ = 0;
};

// For a broken compiler invariant: prints "internal compiler error" and aborts
// compilation with exit status 2 (distinct from a user error's 1).
[[noreturn]] void internal_error(const std::string &message);

}  // namespace kite
