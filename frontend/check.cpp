// The type checker. See check.h. Here: the order of the checks; the
// checker's class, and the files its parts are in, are in checker.h.
#include "frontend/check.h"

#include <map>
#include <memory>

#include "frontend/checker.h"

namespace kite {
namespace checking {

using namespace ast;

void Checker::run() {
  for (auto &sd : program_.structs) {
    declare_global(sd->name, sd->loc);
    structs_[sd->name] = sd.get();
  }
  for (auto &sd : program_.structs) declare_fields(*sd);
  for (size_t i = 0; i < program_.tasks.size(); ++i) {
    TaskDecl &t = *program_.tasks[i];
    t.id = int(i);
    declare_global(t.name, t.loc);
    tasks_[t.name] = &t;
  }
  // Top-level values come in any order: each is checked before the values
  // that use it (check_name), and they are kept in that order, so that
  // later passes may compute them in order.
  for (auto &v : program_.values) {
    declare_global(v->name, v->loc);
    value_decls_.emplace(v->name, v.get());
  }
  for (auto &v : program_.values) check_value_first(*v);
  std::map<ValueDecl *, std::unique_ptr<ValueDecl>> owned;
  for (auto &v : program_.values) owned[v.get()] = std::move(v);
  program_.values.clear();
  for (ValueDecl *v : value_order_) program_.values.push_back(std::move(owned[v]));
  for (auto &t : program_.tasks) declare_signature(*t);
  for (auto &t : program_.tasks) check_task(*t);
  settle_int_literals();
  check_main();
}

}  // namespace checking

void check(ast::Program &program, TypeContext &types, Diagnostics &diags) {
  checking::Checker(program, types, diags).run();
  diags.check_no_errors();
}

}  // namespace kite
