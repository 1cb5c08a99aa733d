// Map kernels: which maps may run as an OpenCL kernel of their own.
#include "ir/kernels.h"

#include "frontend/builtins.h"

namespace kite::kernels {
namespace {

using ast::Expr;
using ast::ExprKind;
using anf::Stmt;

// Looks for an allocation or a print anywhere in what it visits.
class Finder : public anf::Visitor {
 public:
  bool found = false;
  using Visitor::visit;
  void visit(const Expr &e) override {
    switch (e.kind) {
      case ExprKind::New:
      case ExprKind::Construct:
      case ExprKind::Tuple:
      case ExprKind::AnonTask:
      case ExprKind::Future: found = true; return;
      case ExprKind::Call:
        if (const BuiltinInfo *b = called_builtin(e); b && (b->allocates || b->prints)) {
          found = true;
          return;
        }
        break;
      case ExprKind::IntLit:
      case ExprKind::FloatLit:
      case ExprKind::BoolLit:
      case ExprKind::StringLit:  // only in a print, which allocates nothing
      case ExprKind::Name:       // constants are scalars
      case ExprKind::Unary:
      case ExprKind::Binary:
      case ExprKind::Field:
      case ExprKind::Index:
      case ExprKind::Range: break;
    }
    Visitor::visit(e);
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
