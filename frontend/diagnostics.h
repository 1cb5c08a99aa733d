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

// The warnings, each with the name its flags use (-Wshadow, -Wno-shadow).
#define KITE_WARNINGS(X)                                                           \
  X(Shadow, "shadow")                /* a nested declaration hides an outer one */ \
  X(Unused, "unused")                /* a variable that is never read */           \
  X(UnorderedRead, "unordered-read") /* an array read not waiting for a call */    \
  X(PrintFormat, "print-format")     /* printf-style text in print */

enum class Warning {
#define X(k, s) k,
  KITE_WARNINGS(X)
#undef X
};
constexpr int kNumWarnings = 0
#define X(k, s) +1
    KITE_WARNINGS(X)
#undef X
    ;
const char *warning_name(Warning w);

// Which warnings are reported, and how. All are on by default.
struct WarningOptions {
  bool enabled[kNumWarnings] = {true, true, true, true};
  bool as_errors = false;  // -Werror
  bool none = false;       // -w
};

// Whether `arg` is a warning flag: -w, -Werror, -W<name>, -Wno-<name>.
bool is_warning_flag(const std::string &arg);
// Applies one warning flag; false (with a message in `error`) for an
// unknown warning name.
bool apply_warning_flag(const std::string &arg, WarningOptions &options, std::string &error);

// Thrown to stop compilation after errors have been reported.
struct CompileFailed : std::runtime_error {
  CompileFailed() : std::runtime_error("compilation failed") {}
};

class Diagnostics {
 public:
  Diagnostics(const SourceFile &file, std::ostream &out);

  void error(SourceLoc loc, const std::string &message);
  void note(SourceLoc loc, const std::string &message);
  // Reports a warning unless it is turned off, with its flag at the end
  // (`[-Wshadow]`); under -Werror it is an error. Returns whether it was
  // reported, so that its notes follow only then.
  bool warning(SourceLoc loc, Warning w, const std::string &message);
  void set_warnings(const WarningOptions &options) { warnings_ = options; }
  // Whether warning w would be reported (a pass that only warns skips its
  // work when not).
  bool enabled(Warning w) const { return !warnings_.none && warnings_.enabled[int(w)]; }
  // Between these, warnings and their notes are held back and then printed
  // in source order (passes that find several kinds of warning at once).
  void hold_warnings() { holding_ = true; }
  void release_warnings();
  template <typename... Args>
  void error(SourceLoc loc, fmt::format_string<Args...> f, Args &&...args) {
    error(loc, fmt::format(f, std::forward<Args>(args)...));
  }

  int error_count() const { return errors_; }
  // Throws CompileFailed if any error was reported.
  void check_no_errors() const;

  const SourceFile &file() const { return file_; }
  // Another file locations may name (SourceLoc::file); it must outlive this
  // engine. Returns its number: FileId::Prelude for the first.
  FileId add_file(const SourceFile &file);

 private:
  void report(SourceLoc loc, const char *severity, const std::string &message);
  const SourceFile &file_;
  std::vector<const SourceFile *> more_files_;
  std::ostream &out_;
  int errors_ = 0;
  WarningOptions warnings_;
  struct Held {
    SourceLoc loc;
    const char *severity;
    std::string message;
    std::vector<std::pair<SourceLoc, std::string>> notes;
  };
  bool holding_ = false;
  std::vector<Held> held_;
};

// For a broken compiler invariant: prints "internal compiler error" and aborts
// compilation with exit status 2 (distinct from a user error's 1).
[[noreturn]] void internal_error(const std::string &message);

}  // namespace kite
