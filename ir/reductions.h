// Reductions: finds the `for` loops whose iterations may run in any order
// and still give the sequential loop's result, bit for bit.
//
// Such a loop calls no task, writes no array, prints nothing, allocates
// nothing, and assigns the variables declared outside it (its
// *accumulators*) only as `s <- s op e`, where op is one of + - * & | ^ or
// min/max, the same family for every update of s, on an int or a long, and
// e reads no accumulator; s is read nowhere else in the body. Integer
// arithmetic wraps, so these operators are associative and commutative on
// every value: any grouping of the updates gives the same bits. Floating
// point is not (a + (b + c) may differ from (a + b) + c), so a loop over
// doubles stays in order.
//
// kitec runs such a loop in parallel chunks (ir/cps.cpp, backend-opencl/
// emit.cpp): each chunk runs the body on its own copy of the accumulators,
// started at the identity of op, and folds its result into the task's
// variables with one atomic read-modify-write.
#pragma once

#include <string>
#include <vector>

#include "frontend/ast.h"

namespace kite::reductions {

// How a chunk's partial result joins the accumulator: s - e counts as
// s + (-e).
enum class Fold { Add, Mul, And, Or, Xor, Min, Max };

const char *spelling(Fold f);

struct Accumulator {
  const ast::VarDecl *var = nullptr;
  Fold fold = Fold::Add;
};

// "s: +, t: min": the accumulators and their folds.
std::string describe(const std::vector<Accumulator> &accs);

// The accumulators of `for` loop `loop`, in the order of their first
// update, if the loop is a reduction; empty if it is not.
std::vector<Accumulator> find(const ast::Stmt &loop);

}  // namespace kite::reductions
