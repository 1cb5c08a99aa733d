// Verifiers of the IR invariants, run after every stage
// (driver/pipeline.cpp). Each returns the problems it found, worded, none
// when the invariants hold: a problem is a compiler bug, which the driver
// reports as an internal error, never a user error.
#pragma once

#include <string>
#include <vector>

#include "ir/anf.h"
#include "ir/cps.h"
#include "ir/ntg.h"

namespace kite {

using Problems = std::vector<std::string>;

// The typed AST (after checking, and after closure conversion): every
// expression has a type and every name says what it names (a variable, a
// constant, a task or a built-in).
Problems verify_checked(const ast::Program &program);
// ANF (ir/anf.h): a task call stands only in a Call statement, `f(a);` or
// `x <- f(a);` with x a plain variable (no element, no field), and its
// callee and arguments contain no task call; no other expression contains
// one; a declaration declares something; every variable is in its task's
// table, under its id.
Problems verify(const anf::Program &program);
// The task graphs: every edge goes forward (nodes in topological order),
// node ids are unique, and each graph's parallel ancestors are up to date.
Problems verify(const ntg::Program &graphs);
// CPS: every continuation is signalled by exactly as many sources as its
// counter waits for, every graph counts its parallel nodes and blocks
// (less those implied), and every block that runs on its own has a code.
Problems verify(const cps::Program &program);

}  // namespace kite
