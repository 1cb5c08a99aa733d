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
// A scan is a reduction whose body also writes its element from the
// accumulators (Reduction::scan).
//
// kitec runs such a loop in parallel chunks (ir/cps.cpp, backend-opencl/
// print_maps.cpp): each chunk runs the body on its own copy of the accumulators,
// started at the identity of op, and folds its result into the task's
// variables with one atomic read-modify-write.
#pragma once

#include <string>
#include <vector>

#include "frontend/ast.h"

namespace kite::anf {
struct Stmt;
struct Task;
}  // namespace kite::anf
namespace kite::ntg {
struct Program;
}  // namespace kite::ntg

namespace kite::reductions {

// How a chunk's partial result joins the accumulator: s - e counts as
// s + (-e).
enum class Fold { Add, Mul, And, Or, Xor, Min, Max };

const char *spelling(Fold f);

struct Accumulator {
  const ast::VarDecl *var = nullptr;
  Fold fold = Fold::Add;
};

struct Reduction {
  std::vector<Accumulator> accs;  // in the order of their first update; empty: not a reduction
  // A scan: the body also writes the loop's element, `x <- e`, where e may
  // read the accumulators (x <- s; s <- s + e is an exclusive prefix sum).
  // The body reads neither x nor the loop's array otherwise, and no array
  // but `arrays`, arrays of scalars: at run time, one of them that is the
  // loop's array keeps the loop in order.
  bool scan = false;
  std::vector<const ast::VarDecl *> arrays;
  bool empty() const { return accs.empty(); }
};

// "s: +, t: min": the accumulators and their folds.
std::string describe(const Reduction &r);

// What `for` loop `loop` is; empty if it is neither a reduction nor a scan.
Reduction find(const anf::Task &task, const anf::Stmt &loop);

// The pass: marks the `for` loops of the task graphs that
// are reductions or scans (ntg::Node::reduction), and them parallel, with
// what contains them. Only loops in no other loop's body, and none in a
// task that may call itself: such a task runs many times on small pieces of
// work, and a parallel loop would cost each call a block of its own to
// wait in.
void mark(ntg::Program &graphs);

}  // namespace kite::reductions
