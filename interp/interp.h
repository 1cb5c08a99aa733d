// kite-interp's engine: runs a checked Kite program (frontend/check.h) on the
// host, one operation at a time, in the order of its serial elision.
//
// A task call runs to completion where it is made (depth first), `s1 then
// s2` runs s1 then s2, and a for or map runs its iterations in index order,
// so everything a program prints comes out in its textual order. Values,
// integer semantics, print's format and run-time errors are kite-run's
// (docs/language.md, docs/kite-interp.md). The program is first compiled to
// a tree whose names are resolved to frame slots, with the task calls inside
// expressions moved out in front of them the way ir/anf.cpp moves them.
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/source.h"
#include "interp/races.h"

namespace kite::interp {

// A run-time error of the program: kite-run's message for the same error and
// the Kite location of the operation that failed (none when !loc.valid()).
struct RunTimeError : std::runtime_error {
  RunTimeError(const std::string &message, SourceLoc where)
      : std::runtime_error(message), loc(where) {}
  SourceLoc loc;
};

struct Options {
  // The interpreter runs on a thread of its own with this much stack; task
  // calls that would need more are a run-time error, not a crash.
  size_t stack_bytes = size_t(1) << 30;
  // Set, the run also looks for races (interp/races.h), giving each pair of
  // sites found here as it finds it; the run goes on.
  std::function<void(const Race &)> on_race;
};

// Runs the checked `program`'s main with its command-line arguments (read
// as kite-run reads them, host/args.h), writing what it prints and then
// main's result to `out`. Throws host::RunError for arguments main cannot
// take and RunTimeError for an error of the program; `out` then holds
// everything printed before it.
void run(const ast::Program &program, const std::vector<std::string> &args, std::FILE *out,
         const Options &options = {});

// " at file:line:col" for an error at `loc` (the prelude's file for a
// location in the prelude, else `source_path`), or "" for none.
std::string where(SourceLoc loc, const std::string &source_path);

}  // namespace kite::interp
