// -Wunordered-read, found on the nested task graphs: a statement that reads
// an array (struct, union, tuple) which an earlier call of the same graph
// was given, with no dependency making it wait for that call (a call
// determines no variable, §3.3.2, so nothing orders the two unless `then`
// or a result does); and, for a second name `b = a`, a write through one
// name and an access through the other that no dependency orders (a write
// determines only the name it is made through).
#pragma once

#include "frontend/diagnostics.h"
#include "ir/ntg.h"

namespace kite {

// A call given an array it only reads (found on the ANF: the task writes
// through no parameter it is given in) does not make a later read
// unordered.
void warn_unordered_reads(const ntg::Program &program, Diagnostics &diags);

}  // namespace kite
