// Verifiers of the IR invariants, run after every pass (driver/pipeline.cpp):
// a failure is a compiler bug (internal_error), never a user error.
#pragma once

#include <string>

#include "ir/anf.h"
#include "ir/cps.h"
#include "ir/ntg.h"

namespace kite {

// The typed AST (after checking, and after closure conversion): every
// expression has a type and every name says what it names (a variable, a
// constant, a task or a built-in).
void verify_checked(const ast::Program &program);
// ANF (ir/anf.h): a task call stands only in a Call statement, `f(a);` or
// `x <- f(a);` with x a plain variable (no element, no field), and its
// callee and arguments contain no task call; no other expression contains
// one; every variable is in its task's table, under its id.
void verify(const anf::Program &program);
// What verify_checked and verify_anf would stop at: the first broken
// invariant, worded, or "" (for tests).
std::string checked_problem(const ast::Program &program);
std::string anf_problem(const anf::Program &program);
// Nodes in topological order (every edge goes forward), ids unique.
void verify(const ntg::Program &graphs);
// Every continuation is signalled by exactly as many sources as its counter
// waits for, every graph counts its parallel nodes and blocks, and every
// block that runs on its own has a code.
void verify(const cps::Program &program);

}  // namespace kite
