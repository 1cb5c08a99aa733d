// The pipeline: every pass, in order, in one function (compile).
#include "driver/pipeline.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "backend-opencl/emit.h"
#include "frontend/check.h"
#include "frontend/lift.h"
#include "frontend/lint.h"
#include "frontend/parse.h"
#include "frontend/prelude.h"
#include "ir/anf.h"
#include "ir/block_ends.h"
#include "ir/closures.h"
#include "ir/cps.h"
#include "ir/direct_maps.h"
#include "ir/fast_clones.h"
#include "ir/flatten.h"
#include "ir/kernels.h"
#include "ir/leaf_calls.h"
#include "ir/lint.h"
#include "ir/local_arrays.h"
#include "ir/ntg.h"
#include "ir/reductions.h"
#include "ir/returns.h"
#include "ir/sink.h"
#include "ir/tail_calls.h"
#include "ir/verify.h"

namespace kite {

int compile(const SourceFile &file, const CompileOptions &o, std::ostream &diagnostics,
            Artifact &artifact) {
  Compilation c;
  int status = compile(file, o, diagnostics, c);
  artifact = std::move(c.artifact);
  return status;
}

int compile(const SourceFile &file, const CompileOptions &o, std::ostream &diagnostics,
            Compilation &out) {
  Diagnostics diags(file, diagnostics);
  TypeContext &types = out.types;
  std::unique_ptr<ast::Program> &program = out.program;
  anf::Program &anf = out.anf;
  ntg::Program &graphs = out.graphs;
  cps::Program &blocks = out.blocks;
  diags.set_warnings(o.warnings);
  EmitOptions emit;
  emit.bounds_checks = o.bounds_checks;
  emit.part_blocks = o.part_blocks;
  // Whether stage s runs: -O0 skips some (driver/stages.def).
  auto runs = [&](Stage s) { return o.optimize || info(s).o0 == O0::Run; };
  // After stage s: the IR it left verified (the typed AST only while it has
  // no errors, which are reported first; a problem is a compiler bug), and
  // printed if the command line asks for the program after s, which then
  // ends the compilation (true).
  auto after = [&](Stage s) {
    Problems problems;
    switch (info(s).ir) {
      case Ir::Ast:
        if (s >= Stage::check && diags.error_count() == 0) problems = verify_checked(*program);
        break;
      case Ir::Anf:
        problems = verify(anf);
        break;
      case Ir::Ntg:
        problems = verify(graphs);
        break;
      case Ir::Cps:
        problems = verify(blocks);
        break;
      case Ir::Plan:
      case Ir::OpenCl:
        break;
    }
    if (!problems.empty())
      internal_error(fmt::format("after {}: {}", info(s).name, fmt::join(problems, "; ")));
    if (o.dump_after != s) return false;
    diags.release_warnings();
    diags.check_no_errors();
    switch (info(s).ir) {
      case Ir::Ast:
        ast::dump(*program, std::cout);
        break;
      case Ir::Anf:
        anf::dump(anf, std::cout);
        break;
      case Ir::Ntg:
        o.dot ? ntg::dump_dot(graphs, std::cout) : ntg::dump(graphs, std::cout);
        break;
      case Ir::Cps:
        cps::dump(blocks, std::cout);
        break;
      case Ir::Plan:
        dump_plan(blocks, std::cout, emit);
        break;
      case Ir::OpenCl:
        std::cout << out.artifact.opencl;
        break;
    }
    return true;
  };
  try {
    // Source text -> AST (frontend/parse.h).
    program = parse(file, diags);
    diags.check_no_errors();
    if (after(Stage::parse)) return 0;
    // The prelude's tasks the program uses join it (frontend/prelude.h).
    add_prelude(*program, diags);
    diags.check_no_errors();
    if (after(Stage::prelude)) return 0;
    // AST -> typed AST: names resolved, calls typed future<r> (frontend/check.h).
    check(*program, types, diags);
    if (after(Stage::check)) return 0;
    // Anonymous tasks and `task e` become tasks of the program (frontend/lift.h).
    lift_anonymous_tasks(*program, types);
    if (after(Stage::lift)) return 0;
    // Warnings (frontend/lint.h; ir/lint.h below), printed in source order.
    diags.hold_warnings();
    lint(*program, diags);
    if (after(Stage::warnings)) return 0;
    if (o.check_only) {
      diags.release_warnings();
      diags.check_no_errors();
      return 0;
    }
    // Anonymous tasks get their captures and closures (ir/closures.h, §4.2).
    convert_closures(*program, types);
    if (after(Stage::closures)) return 0;
    // Blocks flattened; `return` ends every path it is on (ir/returns.h).
    move_returns(*program, types);
    diags.check_no_errors();  // the checker's errors, reported with its warnings
    if (after(Stage::returns)) return 0;
    // Typed AST -> ANF: one task call per statement, variables numbered
    // (ir/anf.h, §3.3.1). The AST's tasks move into it.
    anf = anf::to_anf(std::move(*program), types);
    if (after(Stage::anf)) return 0;
    // ANF -> nested task graphs with dependencies (ir/ntg.h, §3.3.2-3.3.3).
    graphs = ntg::build(anf);
    if (after(Stage::ntg)) return 0;
    // Loops that are reductions or scans run in parallel (ir/reductions.h).
    if (runs(Stage::reductions)) reductions::mark(graphs);
    if (after(Stage::reductions)) return 0;
    // `if`s whose branches touch disjoint variables split in two (ir/flatten.h, §3.3.4).
    if (runs(Stage::flatten)) flatten::split_ifs(graphs);
    if (after(Stage::flatten)) return 0;
    // The calls that finish their task (ir/tail_calls.h, §3.3.4).
    if (runs(Stage::tail_calls)) tail_calls::mark(graphs);
    if (after(Stage::tail_calls)) return 0;
    // The answers tasks give some calls where they are made (ir/leaf_calls.h).
    if (runs(Stage::leaf_calls)) leaf_calls::find(graphs);
    if (after(Stage::leaf_calls)) return 0;
    // -Wunordered-read (ir/lint.h); then every warning is out.
    warn_unordered_reads(graphs, diags);
    diags.release_warnings();
    diags.check_no_errors();  // -Werror
    if (after(Stage::unordered_reads)) return 0;
    // The maps whose calls store their results straight into the element
    // (ir/direct_maps.h).
    direct_maps::find(graphs);
    if (after(Stage::direct_maps)) return 0;
    // Task graphs -> CPS blocks with join counters (ir/cps.h, §4.1).
    blocks = cps::lower(graphs);
    if (after(Stage::cps)) return 0;
    // Parallel ops moved after the assignments that only compute (ir/sink.h).
    sink::parallel_ops(blocks, graphs);
    if (after(Stage::sink)) return 0;
    // Parallel nodes that a block waits for left uncounted (ir/block_ends.h).
    cps::imply_waited_nodes(blocks);
    if (after(Stage::waited_nodes)) return 0;
    // Ends of blocks whose last op starts an event left uncounted (ir/block_ends.h).
    cps::imply_block_ends(blocks);
    if (after(Stage::block_ends)) return 0;
    // The arrays a task frees when it finishes (ir/local_arrays.h).
    cps::find_local_arrays(blocks);
    if (after(Stage::local_arrays)) return 0;
    // The tasks that also run as a sequential form, in their caller's
    // worker, when it has work to spare (ir/fast_clones.h).
    if (runs(Stage::fast_clones)) fast_clones::find(blocks);
    if (after(Stage::fast_clones)) return 0;
    // The maps and reductions that may run as kernels of their own (ir/kernels.h).
    kernels::mark(blocks);
    if (after(Stage::kernels)) return 0;
    // What the OpenCL C will hold in C variables, which bounds and lengths
    // are known and which atomics it leaves out: the emitter's plan, which
    // emit_opencl makes (backend-opencl/plan.h).
    if (after(Stage::plan)) return 0;
    // CPS blocks -> the OpenCL uber-kernel (backend-opencl/emit.h, §4.2).
    out.artifact = emit_opencl(blocks, file.path(), emit);
    after(Stage::emit);
    return 0;
  } catch (const CompileFailed &) {
    diags.release_warnings();
    return 1;
  }
}

int compile(const CompileOptions &o) {
  std::ifstream in(o.input, std::ios::binary);
  if (!in) {
    std::cerr << "kitec: error: cannot open '" << o.input << "'\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  SourceFile file(o.input, text.str());
  Artifact artifact;
  int status = compile(file, o, std::cerr, artifact);
  if (status != 0) return status;

  // A dump writes no artifact; the OpenCL C, the last stage's, leaves it.
  bool dumped = o.dump_after != Stage::none && o.dump_after != Stage::emit;
  if (!o.output.empty() && !dumped) {
    {
      std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
      write_artifact(artifact, out, kite_run_interpreter());
      out.close();
      if (!out) {
        std::cerr << "kitec: error: cannot write '" << o.output << "'\n";
        return 1;
      }
    }
    // Executable, as a linker leaves its output: 0777 less the umask.
    mode_t mask = umask(0);
    umask(mask);
    struct stat st;
    if (stat(o.output.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        chmod(o.output.c_str(), 0777 & ~mask) != 0) {
      std::cerr << "kitec: error: cannot make '" << o.output << "' executable\n";
      return 1;
    }
  }
  return 0;
}

std::string default_output(const std::string &input) {
  std::filesystem::path path(input);
  if (path.extension() != ".kite" || path.stem().empty()) return "";
  return path.stem().string();
}

std::string kite_run_interpreter() {
  // Linux passes at most 127 bytes of a "#!" line before 5.1 and splits it at
  // white space: a longer path, or one with a space, falls back to PATH.
  constexpr size_t kMaxShebang = 127 - 2;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::string beside = (self.parent_path() / "kite-run").string();
    if (beside.size() <= kMaxShebang && beside.find_first_of(" \t\n") == std::string::npos &&
        access(beside.c_str(), X_OK) == 0) {
      return beside;
    }
  }
  return "/usr/bin/env kite-run";
}

}  // namespace kite
