#include "frontend/diagnostics.h"

#include <cstdlib>
#include <iostream>

namespace kite {

Diagnostics::Diagnostics(const SourceFile &file, std::ostream &out) : file_(file), out_(out) {}

int Diagnostics::add_file(const SourceFile &file) {
  more_files_.push_back(&file);
  return int(more_files_.size());
}

void Diagnostics::report(SourceLoc loc, const char *severity, const std::string &message) {
  const SourceFile &file =
      loc.file > 0 && size_t(loc.file) <= more_files_.size() ? *more_files_[loc.file - 1] : file_;
  if (!loc.valid()) {
    out_ << file.path() << ": " << severity << ": " << message << "\n";
    return;
  }
  out_ << file.path() << ":" << loc.line << ":" << loc.col << ": " << severity << ": " << message
       << "\n";
  std::string text = file.line(loc.line);
  out_ << text << "\n";
  // Keep tabs so the caret lines up under the same column in a terminal.
  std::string caret;
  for (int i = 0; i + 1 < loc.col && size_t(i) < text.size(); ++i)
    caret += text[i] == '\t' ? '\t' : ' ';
  out_ << caret << "^\n";
}

void Diagnostics::error(SourceLoc loc, const std::string &message) {
  ++errors_;
  report(loc, "error", message);
}

void Diagnostics::note(SourceLoc loc, const std::string &message) { report(loc, "note", message); }

void Diagnostics::check_no_errors() const {
  if (errors_ > 0) throw CompileFailed();
}

void internal_error(const std::string &message) {
  std::cerr << "kitec: internal compiler error: " << message << "\n";
#ifdef KITE_ABORT_ON_INTERNAL_ERROR
  // Fuzzing builds: a broken invariant is a crash the fuzzer records, with
  // the stack that led to it.
  std::abort();
#endif
  std::exit(2);
}

}  // namespace kite
