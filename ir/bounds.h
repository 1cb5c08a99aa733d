// Bounds: the array indices of a sequential loop that one check before the
// loop proves in bounds for every iteration.
//
// An index is hoistable when it is an int expression of +, - and * (one
// side free of the loop's variables), unary -, int literals, the loop's
// element (a range loop's) or index, and variables the loop body does not
// assign, into an array variable the body does not assign, in a loop whose
// body is straight-line code (no nested loop, no task call). Integer
// arithmetic wraps, so such an index is e(k) = c0 + c1 * k modulo 2^32:
// with d = e(lo + 1) - e(lo), the exact E(k) = e(lo) + d * (k - lo) is
// linear, lies between E(lo) and E(hi), and equals e(k) whenever it lies in
// [0, length) (below 2^31). So E(lo) and E(hi) both in [0, length) prove
// every iteration's index in bounds (kite_affine_in in
// runtime-cl/device/heap.cl). The backend emits the loop twice: the copy
// without those checks runs when every proof holds, the checked copy
// otherwise, so a bad index is still reported at its iteration.
#pragma once

#include <vector>

#include "ir/anf.h"

namespace kite::bounds {

// The hoistable indices (ExprKind::Index expressions) of `loop`, a `for`
// over a range or an array, in source order; none if its body is not
// straight-line code.
std::vector<const ast::Expr *> hoistable(const anf::Task &task, const anf::Stmt &loop);

// Whether `v` is one of `loop`'s variables that an index may use: its index,
// or the element of a loop over a range.
bool is_loop_var(const anf::Stmt &loop, const ast::VarDecl *v);

}  // namespace kite::bounds
