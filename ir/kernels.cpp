// Map kernels: which maps may run as an OpenCL kernel of their own.
#include "ir/kernels.h"

#include "ir/effects.h"

namespace kite::kernels {
namespace {

using anf::Stmt;
using ast::Expr;

// Looks for an allocation (a tuple, a closure or a future among them) or a
// print anywhere in what it visits.
class Finder : public anf::Visitor {
 public:
  bool found = false;
  using Visitor::visit;
  void visit(const Expr &e) override {
    const effects::Effects f = effects::of(e);
    found |= f.allocates || f.tuples || f.makes_tasks || f.prints;
  }
};

bool allocates_or_prints(const Stmt &map) {
  Finder f;
  f.visit(map.body);
  return f.found;
}

void mark(std::vector<cps::Op> &ops);

void mark(cps::Op &op) {
  op.kernel = op.chunked && !op.reduction.scan && !allocates_or_prints(*op.stmt);
  for (auto &part : op.inline_ops) mark(part);
}

void mark(std::vector<cps::Op> &ops) {
  for (cps::Op &op : ops) mark(op);
}

}  // namespace

void mark(cps::Program &blocks) {
  for (cps::Block &b : blocks.blocks) {
    mark(b.ops);
    if (b.loop.stmt) mark(b.loop);
  }
}

}  // namespace kite::kernels
