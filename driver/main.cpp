// kitec: compiles a Kite program into an artifact that kite-run executes.
//
//   kitec prog.kite                  compile into ./prog (an executable file)
//   kitec prog.kite -o out           compile into out
//   kitec prog.kite --dump-ntg       the nested task graphs (text; =dot for Graphviz)
//   kitec prog.kite --emit-cl        the generated OpenCL C
//   kitec prog.kite --build gpu      compile, then build its kernels into kite-run's cache
//   kitec prog.kite --dump-after=cps the program after any stage (driver/stages.def)
//   kitec --version                  kitec's version, which kite-run must share
//   kitec -Werror / -w / -Wno-shadow  warnings as errors / none / one off
//
// Every complaint about the command line is one line "kitec: error: ..." on
// stderr and exit status 1 (docs/man/kitec.1 lists the options).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "backend-opencl/plan.h"
#include "driver/pipeline.h"

namespace {

// The command line as CLI11 is to see it, back to front (CLI11 takes the
// last word first). Spellings CLI11 cannot declare are rewritten here:
// -O0 is --no-opt; -O1, -O2 and -O3 are the default and dropped. The
// warning flags (-Wshadow, -Wno-unused, -Werror, -w) go to
// `warning_flags`, in order.
std::vector<std::string> rewrite_command_line(int argc, char **argv,
                                              std::vector<std::string> &warning_flags) {
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) {
    std::string arg = argv[i];
    if (kite::is_warning_flag(arg)) {
      warning_flags.insert(warning_flags.begin(), arg);
    } else if (arg == "-O0") {
      args.push_back("--no-opt");
    } else if (arg == "-O1" || arg == "-O2" || arg == "-O3") {
      continue;
    } else {
      args.push_back(arg);
    }
  }
  return args;
}

// kitec --build DEVICE: kite-run, beside kitec, builds the artifact's
// kernels for the device into its cache (kite-run --build-only), so that
// the program's first run starts at once. Returns its exit status.
int build_on_device(const std::string &device, const std::string &artifact) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path run = self.parent_path() / "kite-run";
  if (ec || access(run.c_str(), X_OK) != 0) {
    std::cerr << "kitec: error: --build needs kite-run beside kitec (not found: " << run.string()
              << "); the program was written to '" << artifact << "'\n";
    return 1;
  }
  std::vector<std::string> args = {run.string(), "--device", device, "--build-only", artifact};
  std::vector<char *> argv;
  for (std::string &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, run.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
    std::cerr << "kitec: error: --build cannot start " << run.string() << "\n";
    return 1;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"kitec: the Kite compiler"};
  app.name("kitec");
  app.footer(
      "Warnings (all on by default): -Wshadow, -Wunused, -Wunordered-read, -Wprint-format.\n"
      "-Wno-<name> turns one off, -W<name> on again, -w turns all off, -Werror makes them errors.");
  app.set_version_flag("--version", "kitec " KITE_VERSION, "print kitec's version and exit");
  kite::CompileOptions o;
  app.add_option("input", o.input, "the Kite source file")->required();
  app.add_option("-o,--output", o.output,
                 "write the compiled program here (default: the source's name without .kite, "
                 "in the current directory)");
  // The stages (driver/stages.def): --dump-after names any, a stage's own
  // flag dumps after it, -O0 skips some.
  std::vector<std::string> names, skipped;
  std::string stages;
  for (const kite::StageInfo &s : kite::kStages) {
    names.push_back(s.name);
    stages += fmt::format("\n  {:<16}{}", s.name, s.what);
    if (*s.flag) stages += fmt::format(" ({})", s.flag);
    if (s.o0 == kite::O0::Skip) skipped.push_back(s.name);
  }
  std::string dump_after;
  app.add_option(
         "--dump-after", dump_after,
         "print the program after STAGE, in the IR it leaves, and stop; the stages:" + stages)
      ->option_text("STAGE")
      ->check(CLI::IsMember(names));
  std::string ntg;
  std::vector<std::pair<kite::Stage, CLI::Option *>> dumps;
  for (const kite::StageInfo &s : kite::kStages) {
    if (!*s.flag) continue;
    std::string help = fmt::format("print the program after {} ({}) and stop", s.name, s.what);
    if (s.ir == kite::Ir::Ntg) {
      dumps.push_back({s.stage, app.add_option(s.flag, ntg, help + " (text, or dot for Graphviz)")
                                    ->expected(0, 1)
                                    ->default_str("text")
                                    ->check(CLI::IsMember({"text", "dot"}))});
    } else if (s.ir == kite::Ir::OpenCl) {
      dumps.push_back({s.stage, app.add_flag(s.flag,
                                             "print the generated OpenCL C (and write "
                                             "the program only if -o is given)")});
    } else {
      dumps.push_back({s.stage, app.add_flag(s.flag)->description(help)});
    }
  }
  bool no_opt = false;
  app.add_flag("--no-opt", no_opt,
               fmt::format("skip the optimising stages ({}); also -O0 (-O1, -O2 and -O3 are the "
                           "default: all of them)",
                           fmt::join(skipped, ", ")));
  bool no_bounds = false;
  app.add_flag("--no-bounds-checks", no_bounds,
               "do not check array indices (a wrong index is then undefined behaviour)");
  app.add_option("--part-blocks", o.part_blocks,
                 fmt::format("split a program of more than N blocks into parts of at most N "
                             "blocks (a cycle of calls stays whole), each a kernel of its own "
                             "that the device compiler builds alone (default {})",
                             kite::plan::kPartBlocks))
      ->check(CLI::PositiveNumber)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // the last one, as -O
  std::string build_device;
  app.add_option("--build", build_device,
                 "after writing the program, build its kernels for DEVICE (cpu, gpu, or a "
                 "device number from kite-run --list-devices) into kite-run's cache, so that its "
                 "first run starts at once (kite-run --build-only)")
      ->type_name("DEVICE")
      ->check(CLI::Validator(
          [](std::string &v) -> std::string {
            bool number = !v.empty() && v.size() < 10 &&
                          v.find_first_not_of("0123456789") == std::string::npos;
            return v == "cpu" || v == "gpu" || number
                       ? ""
                       : "takes cpu, gpu or a device number, not '" + v + "'";
          },
          ""));
  std::vector<std::string> warning_flags;
  std::vector<std::string> args = rewrite_command_line(argc, argv, warning_flags);
  for (const std::string &flag : warning_flags) {
    std::string error;
    if (!kite::apply_warning_flag(flag, o.warnings, error)) {
      std::cerr << "kitec: error: " << error << "\n";
      return 1;
    }
  }
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << "kitec: error: " << e.what() << " (see kitec --help)\n";
    return 1;
  }
  // The earliest stage asked for is the one dumped.
  if (!dump_after.empty()) o.dump_after = kite::find_stage(dump_after);
  for (auto [stage, option] : dumps)
    if (option->count() && stage < o.dump_after) o.dump_after = stage;
  o.dot = ntg == "dot";
  o.bounds_checks = !no_bounds;
  o.optimize = !no_opt;
  bool prints = o.dump_after != kite::Stage::none;
  if (o.output.empty() && !prints) {
    o.output = kite::default_output(o.input);
    if (o.output.empty()) {
      std::cerr << "kitec: error: '" << o.input
                << "' does not end in .kite, so there is no default name for the compiled "
                   "program: give one with -o\n";
      return 1;
    }
  }
  if (!build_device.empty() && prints) {
    std::cerr << "kitec: error: --build builds a program that kitec writes, and a dump or "
                 "--emit-cl stops before one is written\n";
    return 1;
  }
  int status = kite::compile(o);
  if (status != 0 || build_device.empty()) return status;
  return build_on_device(build_device, o.output);
}
