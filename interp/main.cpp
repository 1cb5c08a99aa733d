// kite-interp: runs a Kite program on the host, sequentially, as the
// reference for kite-run (docs/kite-interp.md).
//
//   kite-interp [options] prog.kite args...   runs the source
//   kite-interp [options] prog args...        runs the source the artifact
//                                             `kitec prog.kite -o prog` names
//
// The program is parsed and checked as kitec does it (the same errors, exit
// status 1), then interpreted (interp/interp.h). It takes kite-run's
// options (runtime-cl/host/options.h): those that only shape the device run
// are accepted and ignored, so that a kite-run command line works unchanged.
// Every failure is "kite-interp: error: <message>" on stderr and exit status
// 1, a run-time error with its Kite location and message as kite-run gives
// it (runtime-cl/host/run_errors.h).
//
// With --races the run also reports every pair of accesses to one array
// element or struct field, one of them a write, that Kite's rules leave
// unordered (interp/races.h), in kitec's diagnostic format, and then exits
// with status 1.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "driver/pipeline.h"
#include "frontend/diagnostics.h"
#include "frontend/prelude.h"
#include "host/artifact.h"
#include "host/cl.h"
#include "host/options.h"
#include "host/report.h"
#include "host/run_errors.h"
#include "interp/interp.h"
#include "prelude_source.h"

namespace {

using kite::host::RunError;

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RunError(fmt::format("cannot open '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw RunError(fmt::format("cannot read '{}'", path));
  return text.str();
}

int run(const kite::host::CommandLine &o) {
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
  // Nothing to build: the program is checked, as kite-run's build checks it.
  if (o.build_only) return 0;

  kite::interp::Options options;
  options.stack_bytes = o.stack.value_or(options.stack_bytes);
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
          "{}:{}:{}", a.loc.in_prelude() ? kite::kPreludePath : source_path, a.loc.line, a.loc.col);
      std::fflush(stdout);
      diagnostics.error(b.loc,
                        fmt::format("race: this {} of {} is not ordered with the {} of {} at {}",
                                    verb(b.access), b.what, verb(a.access), a.what, where));
      diagnostics.note(a.loc, fmt::format("the {} of {} is here", verb(a.access), a.what));
      ++races;
    };
  }
  auto start = std::chrono::steady_clock::now();
  if (o.timeout) {
    // The watchdog: the run cannot be interrupted where it is, so the
    // process ends (exit status 124, as kite-run's --timeout).
    kite::host::ErrorOperands operands;
    operands.seconds = *o.timeout;
    std::thread([seconds = *o.timeout,
                 message = kite::host::error_message(kite::host::ErrorKind::Timeout, operands)] {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
      std::fflush(stdout);
      fmt::print(stderr, "kite-interp: error: {}\n", message);
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
  kite::host::CommandLine command_line;
  if (auto status = parse_command_line(kite::host::Tool::Interp, argc, argv, command_line))
    return *status;
  return kite::host::report_failures("kite-interp", [&] { return run(command_line); });
}
