// kitec: compiles a Kite program into an artifact that kite-run executes.
//
//   kitec prog.kite                  compile into ./prog (an executable file)
//   kitec prog.kite -o out           compile into out
//   kitec prog.kite --dump-ntg       the nested task graphs (text; =dot for Graphviz)
//   kitec prog.kite --emit-cl        the generated OpenCL C
//   kitec --version                  kitec's version, which kite-run must share
//   kitec -Werror / -w / -Wno-shadow  warnings as errors / none / one off
//
// Every complaint about the command line is one line "kitec: error: ..." on
// stderr and exit status 1 (docs/man/kitec.1 lists the options).
#include <CLI/CLI.hpp>
#include <iostream>

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

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"kitec: the Kite compiler"};
  app.name("kitec");
  app.footer(
      "Warnings (all on by default): -Wshadow, -Wunused, -Wunordered-read, -Wprint-format.\n"
      "-Wno-<name> turns one off, -W<name> on again, -w turns all off, -Werror makes them errors.");
  app.set_version_flag("--version", "kitec " KITE_VERSION, "print kitec's version and exit");
  kite::CompileOptions o;
  std::string ntg;
  app.add_option("input", o.input, "the Kite source file")->required();
  app.add_option("-o,--output", o.output,
                 "write the compiled program here (default: the source's name without .kite, "
                 "in the current directory)");
  app.add_flag("--dump-ast", o.dump_ast, "print the parsed syntax tree and stop");
  app.add_flag("--dump-checked", o.dump_checked,
               "print the syntax tree after type checking (with the prelude's tasks it uses, "
               "anonymous tasks lifted) and stop");
  app.add_flag("--dump-closures", o.dump_closures,
               "print the syntax tree after closure conversion (captures read from the closure) "
               "and stop");
  app.add_flag("--dump-anf", o.dump_anf,
               "print the program in ANF (let, set, do, call: one task call per statement) and stop");
  app.add_option("--dump-ntg", ntg, "print the nested task graphs (text or dot) and stop")
      ->expected(0, 1)
      ->default_str("text")
      ->check(CLI::IsMember({"text", "dot"}));
  app.add_flag("--dump-cps", o.dump_cps, "print the CPS blocks and join counters and stop");
  app.add_flag("--emit-cl", o.emit_cl,
               "print the generated OpenCL C (and write the program only if -o is given)");
  bool no_opt = false;
  app.add_flag("--no-opt", no_opt,
               "no task-graph optimisations (flattening, tail calls, leaf answers); also -O0 (-O1, -O2 and -O3 "
               "are the default: all of them)");
  bool no_bounds = false;
  app.add_flag("--no-bounds-checks", no_bounds,
               "do not check array indices (a wrong index is then undefined behaviour)");
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
  if (app.count("--dump-ntg")) o.dump_ntg = ntg.empty() ? "text" : ntg;
  o.bounds_checks = !no_bounds;
  o.optimize = !no_opt;
  bool prints = o.dump_ast || o.dump_checked || o.dump_closures || o.dump_anf ||
                !o.dump_ntg.empty() || o.dump_cps || o.emit_cl;
  if (o.output.empty() && !prints) {
    o.output = kite::default_output(o.input);
    if (o.output.empty()) {
      std::cerr << "kitec: error: '" << o.input
                << "' does not end in .kite, so there is no default name for the compiled "
                   "program: give one with -o\n";
      return 1;
    }
  }
  return kite::compile(o);
}
