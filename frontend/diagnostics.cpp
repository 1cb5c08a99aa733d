// Diagnostics: errors and warnings with source locations, and the -W flags.
#include "frontend/diagnostics.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <tuple>

namespace kite {

Diagnostics::Diagnostics(const SourceFile &file, std::ostream &out) : file_(file), out_(out) {}

FileId Diagnostics::add_file(const SourceFile &file) {
  more_files_.push_back(&file);
  return FileId(more_files_.size());
}

void Diagnostics::report(SourceLoc loc, const char *severity, const std::string &message) {
  const size_t id = size_t(loc.file);
  const SourceFile &file = id > 0 && id <= more_files_.size() ? *more_files_[id - 1] : file_;
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

void Diagnostics::note(SourceLoc loc, const std::string &message) {
  if (holding_ && !held_.empty()) {
    held_.back().notes.push_back({loc, message});
    return;
  }
  report(loc, "note", message);
}

void Diagnostics::release_warnings() {
  holding_ = false;
  std::stable_sort(held_.begin(), held_.end(), [](const Held &a, const Held &b) {
    return std::tie(a.loc.file, a.loc.line, a.loc.col) <
           std::tie(b.loc.file, b.loc.line, b.loc.col);
  });
  for (const Held &h : held_) {
    report(h.loc, h.severity, h.message);
    for (auto &[loc, message] : h.notes) report(loc, "note", message);
  }
  held_.clear();
}

bool Diagnostics::warning(SourceLoc loc, Warning w, const std::string &message) {
  if (warnings_.none || !warnings_.enabled[int(w)]) return false;
  std::string flag = std::string("-W") + warning_name(w);
  const char *severity = warnings_.as_errors ? "error" : "warning";
  std::string text =
      message + (warnings_.as_errors ? " [-Werror," + flag + "]" : " [" + flag + "]");
  if (warnings_.as_errors) ++errors_;
  if (holding_)
    held_.push_back({loc, severity, text, {}});
  else
    report(loc, severity, text);
  return true;
}

const char *warning_name(Warning w) {
  switch (w) {
#define X(k, s)    \
  case Warning::k: \
    return s;
    KITE_WARNINGS(X)
#undef X
  }
  return "?";
}

bool is_warning_flag(const std::string &arg) {
  return arg == "-w" || (arg.size() > 2 && arg.compare(0, 2, "-W") == 0);
}

bool apply_warning_flag(const std::string &arg, WarningOptions &options, std::string &error) {
  if (arg == "-w") {
    options.none = true;
    return true;
  }
  if (arg == "-Werror") {
    options.as_errors = true;
    return true;
  }
  if (arg == "-Wno-error") {
    options.as_errors = false;
    return true;
  }
  std::string name = arg.substr(2);
  bool on = true;
  if (name.compare(0, 3, "no-") == 0) {
    on = false;
    name = name.substr(3);
  }
  for (int i = 0; i < kNumWarnings; ++i)
    if (name == warning_name(Warning(i))) {
      options.enabled[i] = on;
      return true;
    }
  if (name == "all") {
    for (bool &e : options.enabled) e = on;
    return true;
  }
  error = "unknown warning option '" + arg + "' (the warnings are";
  for (int i = 0; i < kNumWarnings; ++i)
    error += std::string(i ? ", " : " ") + "-W" + warning_name(Warning(i));
  error += ")";
  return false;
}

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
