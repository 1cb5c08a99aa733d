// kitec: compiles a Kite program into an artifact that kite-run executes.
//
//   kitec prog.kite -o prog          compile
//   kitec prog.kite --dump-ntg       the nested task graphs (text; =dot for Graphviz)
//   kitec prog.kite --emit-cl        the generated OpenCL C
//   kitec --version                  kitec's version, which kite-run must share
//   kitec -Werror / -w / -Wno-shadow  warnings as errors / none / one off
#include <CLI/CLI.hpp>

#include <iostream>

#include "driver/pipeline.h"

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
  app.add_option("-o,--output", o.output, "write the compiled program here");
  app.add_flag("--dump-ast", o.dump_ast, "print the parsed syntax tree and stop");
  app.add_option("--dump-ntg", ntg, "print the nested task graphs (text or dot) and stop")
      ->expected(0, 1)
      ->default_str("text")
      ->check(CLI::IsMember({"text", "dot"}));
  app.add_flag("--dump-cps", o.dump_cps, "print the CPS blocks and join counters and stop");
  app.add_flag("--emit-cl", o.emit_cl, "print the generated OpenCL C");
  bool no_opt = false;
  app.add_flag("--no-opt", no_opt, "no task-graph optimisations (flattening, tail calls); also -O0");
  bool no_bounds = false;
  app.add_flag("--no-bounds-checks", no_bounds,
               "do not check array indices (a wrong index is then undefined behaviour)");
  // -O0 is the conventional spelling of --no-opt. The warning flags
  // (-Wshadow, -Wno-unused, -Werror, -w) are taken out first, in order.
  std::vector<std::string> args, warning_flags;
  for (int i = argc - 1; i >= 1; --i) {
    if (kite::is_warning_flag(argv[i])) warning_flags.insert(warning_flags.begin(), argv[i]);
    else args.push_back(std::string(argv[i]) == "-O0" ? "--no-opt" : argv[i]);
  }
  for (const std::string &flag : warning_flags) {
    std::string error;
    if (!kite::apply_warning_flag(flag, o.warnings, error)) {
      std::cerr << "kitec: error: " << error << "\n";
      return 1;
    }
  }
  try {
    app.parse(args);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }
  if (app.count("--dump-ntg")) o.dump_ntg = ntg.empty() ? "text" : ntg;
  o.bounds_checks = !no_bounds;
  o.optimize = !no_opt;
  return kite::compile(o);
}
