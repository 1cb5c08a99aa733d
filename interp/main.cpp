// kite-interp: runs a Kite program on the host, sequentially, as the
// reference for kite-run (docs/kite-interp.md).
//
//   kite-interp [options] prog.kite args...   runs the source
//   kite-interp [options] prog args...        runs the source the artifact
//                                             `kitec prog.kite -o prog` names
//
// The program is parsed and checked as kitec does it (the same errors, exit
// status 1), then interpreted (interp/interp.h). kite-run's options that
// only shape the device run are accepted and ignored, so that a kite-run
// command line works unchanged. Every failure is "kite-interp: error:
// <message>" on stderr and exit status 1, a run-time error with its Kite
// location as kite-run gives it.
//
// With --races the run also reports every pair of accesses to one array
// element or struct field, one of them a write, that Kite's rules leave
// unordered (interp/races.h), in kitec's diagnostic format, and then exits
// with status 1.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "driver/pipeline.h"
#include "frontend/diagnostics.h"
#include "frontend/prelude.h"
#include "host/artifact.h"
#include "host/cl.h"
#include "host/report.h"
#include "interp/interp.h"
#include "prelude_source.h"

namespace {

using kite::host::RunError;

constexpr const char *kUsage =
    "kite-interp: runs a Kite program on the host, one task at a time, in program order\n"
    "\n"
    "usage: kite-interp [options] prog args...\n"
    "  prog             a Kite source file, or an artifact written by kitec -o (its source\n"
    "                   file is run)\n"
    "  args             main's arguments, as kite-run takes them\n"
    "\n"
    "options:\n"
    "  --races          report the accesses to one array element or struct field, one a\n"
    "                   write, that Kite's rules leave unordered (exit status 1 if any)\n"
    "  -t, --time       print the run time on stderr\n"
    "  --timeout S      stop a run that has not finished after S seconds (exit status 124)\n"
    "  --stack SIZE     the interpreter's stack, with an optional K, M or G suffix (default\n"
    "                   1G); it bounds how deeply task calls nest\n"
    "  -h, --help       print this help and exit\n"
    "\n"
    "kite-run's options for the device are accepted and ignored: --device X, --workers N,\n"
    "--deque N, --records N, --heap SIZE, --print-buffer SIZE, --no-cache, --probe, --stats.\n";

// kite-run's options that shape only the device run: accepted, ignored.
const std::set<std::string> kIgnoredFlags = {"--no-cache", "--probe", "--stats"};
const std::set<std::string> kIgnoredValued = {"--device",  "--workers",      "--deque",
                                              "--records", "--print-buffer", "--heap"};
// kite-run's options whose output the interpreter cannot give.
const std::set<std::string> kDeviceOnly = {"--list-devices", "--trace"};
const std::set<std::string> kFlags = {"-t", "--time", "-h", "--help", "--races"};
const std::set<std::string> kValued = {"--stack", "--timeout"};

struct Options {
  bool time = false;
  bool races = false;
  bool help = false;
  size_t stack_bytes = kite::interp::Options{}.stack_bytes;
  double timeout_s = 0;  // 0: none
  std::string prog;
  std::vector<std::string> args;
};

bool is_valued(const std::string &name) {
  return kValued.count(name) || kIgnoredValued.count(name) || name == "--trace";
}

// The option's name: "--heap" for "--heap" and "--heap=1G"; "" if it is none.
std::string option_name(const std::string &token) {
  std::string name = token.substr(0, token.find('='));
  bool known =
      kFlags.count(name) || kIgnoredFlags.count(name) || kDeviceOnly.count(name) || is_valued(name);
  return known ? name : "";
}

// A size in bytes: digits with an optional K, M or G suffix (kite-run's form).
std::optional<size_t> parse_size(std::string text) {
  size_t shift = 0;
  if (!text.empty()) {
    char s = char(std::toupper(static_cast<unsigned char>(text.back())));
    if (s == 'K' || s == 'M' || s == 'G') {
      shift = s == 'K' ? 10 : s == 'M' ? 20 : 30;
      text.pop_back();
    }
  }
  size_t value = 0;
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (value > (SIZE_MAX >> shift)) return std::nullopt;
  return value << shift;
}

void apply(Options &o, const std::string &name, const std::string &value) {
  if (name == "-t" || name == "--time") o.time = true;
  if (name == "--races") o.races = true;
  if (name == "-h" || name == "--help") o.help = true;
  if (kDeviceOnly.count(name)) {
    throw RunError(fmt::format("{} needs a device: use kite-run", name));
  }
  if (name == "--stack") {
    auto bytes = parse_size(value);
    if (!bytes || *bytes < (size_t(16) << 20)) {
      throw RunError(
          fmt::format("--stack takes a size of at least 16M (K, M or G suffix), not '{}'", value));
    }
    o.stack_bytes = *bytes;
  }
  if (name == "--timeout") {
    // As kite-run's: seconds, a positive number.
    char *end = nullptr;
    double s = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(s > 0) || !std::isfinite(s))
      throw RunError(fmt::format("--timeout takes a positive number of seconds, not '{}'", value));
    o.timeout_s = s;
  }
}

// As kite-run: options come before prog or right after it; main's arguments
// start at the first word that is not an option (so negative numbers are
// arguments); "--" ends the options.
Options parse_command_line(int argc, char **argv) {
  Options o;
  int i = 1;
  auto take_options = [&](bool known_only) {
    while (i < argc) {
      std::string token = argv[i];
      if (token == "--") {
        ++i;
        return;
      }
      bool looks_like_option = token.size() > 1 && token[0] == '-';
      std::string name = option_name(token);
      if (known_only ? name.empty() : !looks_like_option) return;
      if (name.empty()) throw RunError(fmt::format("unknown option '{}' (see --help)", token));
      ++i;
      std::string value;
      if (token.size() > name.size()) {
        value = token.substr(name.size() + 1);
      } else if (is_valued(name)) {
        if (i >= argc) throw RunError(fmt::format("{} needs a value", name));
        value = argv[i++];
      }
      apply(o, name, value);
    }
  };
  take_options(false);
  if (i < argc) o.prog = argv[i++];
  take_options(true);
  for (; i < argc; ++i) o.args.push_back(argv[i]);
  return o;
}

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RunError(fmt::format("cannot open '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw RunError(fmt::format("cannot read '{}'", path));
  return text.str();
}

int run(const Options &o) {
  // An artifact names the source it was compiled from; run that.
  std::string source_path = o.prog;
  std::string text = read_file(o.prog);
  if (kite::host::looks_like_artifact(text)) {
    kite::host::Artifact artifact = kite::host::parse_artifact(text, o.prog);
    source_path = artifact.source;
    std::ifstream probe(source_path, std::ios::binary);
    if (!probe) {
      throw RunError(
          fmt::format("cannot open '{}', the source of artifact '{}'", source_path, o.prog));
    }
    text = read_file(source_path);
  }

  // Parse, add the prelude and check: kitec's pipeline up to the checked AST
  // (driver/pipeline.h). Warnings are kitec's to give (-w): a reference run
  // prints only the program's output and its errors.
  kite::SourceFile file(source_path, text);
  kite::CompileOptions compile_options;
  compile_options.check_only = true;
  compile_options.warnings.none = true;
  kite::Compilation compiled;
  if (kite::compile(file, compile_options, std::cerr, compiled) != 0) return 1;
  std::unique_ptr<kite::ast::Program> &program = compiled.program;

  kite::interp::Options options;
  options.stack_bytes = o.stack_bytes;
  // A race is an error at the later access, with a note at the earlier.
  static const kite::SourceFile prelude(kite::kPreludePath, kite::kPreludeSource);
  kite::Diagnostics diagnostics(file, std::cerr);
  diagnostics.add_file(prelude);
  auto verb = [](kite::interp::Access a) {
    return a == kite::interp::Access::Read    ? "read"
           : a == kite::interp::Access::Write ? "write"
                                              : "atomic update";
  };
  int64_t races = 0;
  if (o.races) {
    options.on_race = [&](const kite::interp::Race &race) {
      const kite::interp::Site &a = *race.earlier, &b = *race.later;
      std::string where = fmt::format(
          "{}:{}:{}", a.loc.file == 1 ? kite::kPreludePath : source_path, a.loc.line, a.loc.col);
      std::fflush(stdout);
      diagnostics.error(b.loc,
                        fmt::format("race: this {} of {} is not ordered with the {} of {} at {}",
                                    verb(b.access), b.what, verb(a.access), a.what, where));
      diagnostics.note(a.loc, fmt::format("the {} of {} is here", verb(a.access), a.what));
      ++races;
    };
  }
  auto start = std::chrono::steady_clock::now();
  if (o.timeout_s > 0) {
    // The watchdog: the run cannot be interrupted where it is, so the
    // process ends (exit status 124, as kite-run's --timeout).
    std::thread([seconds = o.timeout_s] {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
      std::fflush(stdout);
      fmt::print(stderr, "kite-interp: error: the program did not finish within {} s (--timeout)\n",
                 seconds);
      std::fflush(stderr);
      std::_Exit(124);
    }).detach();
  }
  try {
    kite::interp::run(*program, o.args, stdout, options);
  } catch (const kite::interp::RunTimeError &e) {
    std::fflush(stdout);
    fmt::print(stderr, "kite-interp: error: {}{}\n", e.what(),
               kite::interp::where(e.loc, source_path));
    return 1;
  }
  std::fflush(stdout);
  if (o.time) {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    fmt::print(stderr, "kite-interp: time: run {:.1f} ms\n", ms);
  }
  if (races > 0) {
    fmt::print(stderr, "kite-interp: {} race{} found (--races)\n", races, races == 1 ? "" : "s");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  // Output goes out in large blocks: a program may print millions of lines.
  static char buffer[1 << 16];
  std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
  return kite::host::report_failures("kite-interp", [&] {
    Options o = parse_command_line(argc, argv);
    if (o.help) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (o.prog.empty()) {
      throw RunError("no program given (usage: kite-interp [options] prog args...)");
    }
    return run(o);
  });
}
