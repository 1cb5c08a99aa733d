// The pipeline: every pass, in order, in one function (compile).
#include "driver/pipeline.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "backend-opencl/emit.h"
#include "frontend/check.h"
#include "frontend/lint.h"
#include "frontend/parse.h"
#include "frontend/prelude.h"
#include "ir/anf.h"
#include "ir/closures.h"
#include "frontend/lift.h"
#include "ir/leaf_calls.h"
#include "ir/lint.h"
#include "ir/cps.h"
#include "ir/ntg.h"
#include "ir/returns.h"
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
  diags.set_warnings(o.warnings);
  try {
    // Source text -> AST (frontend/parse.h).
    program = parse(file, diags);
    diags.check_no_errors();
    if (o.dump_ast) return ast::dump(*program, std::cout), 0;

    // The prelude's tasks the program uses join it (frontend/prelude.h).
    add_prelude(*program, diags);
    diags.check_no_errors();

    // AST -> typed AST: names resolved, calls typed future<r> (frontend/check.h).
    check(*program, types, diags);
    // Anonymous tasks and `task e` become tasks of the program (frontend/lift.h).
    lift_anonymous_tasks(*program, types);
    // Warnings (frontend/lint.h, ir/lint.h), printed in source order.
    diags.hold_warnings();
    lint(*program, diags);
    std::set<const ast::VarDecl *> written = written_through(*program);
    if (diags.error_count() == 0) verify_checked(*program);
    // --dump-checked, --dump-closures: the AST as the stage left it.
    auto dump_ast = [&] {
      diags.release_warnings();
      diags.check_no_errors();
      ast::dump(*program, std::cout);
      return 0;
    };
    if (o.dump_checked) return dump_ast();
    if (o.check_only) {
      diags.release_warnings();
      diags.check_no_errors();
      return 0;
    }

    // Anonymous tasks get their captures and closures (ir/closures.h, §4.2).
    convert_closures(*program, types);
    if (diags.error_count() == 0) verify_checked(*program);
    if (o.dump_closures) return dump_ast();

    // Blocks flattened; `return` ends every path it is on (ir/returns.h).
    move_returns(*program, types);
    diags.check_no_errors();  // the checker's errors, reported with its warnings
    verify_checked(*program);
    // Typed AST -> ANF: one task call per statement, variables numbered
    // (ir/anf.h, §3.3.1). The AST's tasks move into it.
    anf::Program &anf = out.anf;
    anf = anf::to_anf(std::move(*program), types);
    verify(anf);
    if (o.dump_anf) {
      diags.release_warnings();
      diags.check_no_errors();
      anf::dump(anf, std::cout);
      return 0;
    }
    // ANF -> nested task graphs with dependencies (ir/ntg.h, §3.3.2-3.3.3),
    // `if`s flattened (§3.3.4) unless -O0.
    ntg::BuildOptions build;
    build.optimize = o.optimize;
    ntg::Program &graphs = out.graphs;
    graphs = ntg::build(anf, build);
    verify(graphs);
    // The calls that finish their task (ir/tail_calls.h, §3.3.4) unless -O0.
    // The answers tasks give some calls where they are made
    // (ir/leaf_calls.h) unless -O0.
    if (o.optimize) {
      tail_calls::mark(graphs);
      leaf_calls::find(graphs);
      verify(graphs);
    }
    warn_unordered_reads(graphs, written, diags);
    diags.release_warnings();
    diags.check_no_errors();  // -Werror
    if (o.dump_ntg == "text") return ntg::dump(graphs, std::cout), 0;
    if (o.dump_ntg == "dot") return ntg::dump_dot(graphs, std::cout), 0;

    // Task graphs -> CPS blocks with join counters (ir/cps.h, §4.1).
    cps::Program &blocks = out.blocks;
    blocks = cps::lower(graphs);
    verify(blocks);
    if (o.dump_cps) return cps::dump(blocks, std::cout), 0;

    // CPS blocks -> the OpenCL uber-kernel (backend-opencl/emit.h, §4.2).
    EmitOptions emit;
    emit.bounds_checks = o.bounds_checks;
    out.artifact = emit_opencl(blocks, file.path(), emit);
    if (o.emit_cl) std::cout << out.artifact.opencl;
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

  bool dumped = o.dump_ast || o.dump_checked || o.dump_closures || o.dump_anf ||
                !o.dump_ntg.empty() || o.dump_cps;
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
