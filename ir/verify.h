// Verifiers of the IR invariants, run after the passes that build each IR: a
// failure is a compiler bug (internal_error), never a user error.
#pragma once

#include "ir/cps.h"
#include "ir/ntg.h"

namespace kite {

// Nodes in topological order (every edge goes forward), ids unique.
void verify(const ntg::Program &graphs);
// Every continuation is signalled by exactly as many sources as its counter
// waits for, every graph counts its parallel nodes and blocks, and every
// block that runs on its own has a code.
void verify(const cps::Program &program);

}  // namespace kite
