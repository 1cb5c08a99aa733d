// Effects of expressions, what statements write, and what loop elements
// stand for (effects.h).
#include "ir/effects.h"

#include <algorithm>

#include "frontend/builtins.h"

namespace kite::effects {
namespace {

void add(const ast::Expr &e, Effects &f) {
  using ast::ExprKind;
  size_t first = 0;  // the first child evaluated as a value
  switch (e.kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::BoolLit:
    case ExprKind::StringLit:
      break;
    case ExprKind::Name:
      f.names.push_back(&e);
      break;
    case ExprKind::Call:
      first = 1;
      if (const BuiltinInfo *b = called_builtin(e)) {
        f.allocates |= b->allocates;
        f.prints |= b->prints;
        f.writes |= b->writes;
        f.reads |= b->length;
      } else {
        f.calls = true;
        if (e.children[0]->kind != ExprKind::Name) add(*e.children[0], f);
      }
      break;
    case ExprKind::Unary:
    case ExprKind::Binary:
      break;
    case ExprKind::Field:
    case ExprKind::Index:
      f.reads = true;
      break;
    case ExprKind::Tuple:
      f.tuples = true;
      break;
    case ExprKind::New:
    case ExprKind::Construct:
      f.allocates = true;
      break;
    case ExprKind::Range:
      f.ranges = true;
      break;
    case ExprKind::AnonTask:
    case ExprKind::Future:
      f.makes_tasks = true;
      break;
  }
  for (size_t i = first; i < e.children.size(); ++i)
    if (e.children[i]) add(*e.children[i], f);
  for (const ast::FieldInit &field : e.fields)
    if (field.value) add(*field.value, f);
}

}  // namespace

Effects of(const ast::Expr &e) {
  Effects f;
  add(e, f);
  return f;
}

void for_each_written(const anf::Stmt &st, Element element,
                      const std::function<void(const ast::VarDecl *)> &fn) {
  if (st.target && st.target->kind == ast::ExprKind::Name && st.target->var) fn(st.target->var);
  for (const ast::VarDecl *v : anf::bound_vars(st))
    if (element == Element::AsVariable || v != st.elem_var) fn(v);
}

std::vector<int> element_collections(const anf::Task &task, int var, Collection collection) {
  std::vector<int> out;
  for (const anf::Stmt *loop = task.loop_of[size_t(var)]; loop && loop->elem_var->id == var;
       loop = task.loop_of[size_t(var)]) {
    const ast::Expr *root = loop->expr.get();
    switch (collection) {
      case Collection::Reached:
        while (root->kind == ast::ExprKind::Field || root->kind == ast::ExprKind::Index)
          root = root->children[0].get();
        break;
      case Collection::Named:
        break;
    }
    if (root->kind != ast::ExprKind::Name || !root->var) break;
    var = root->var->id;
    out.push_back(var);
  }
  return out;
}

bool only_computes(const ast::Expr &e, const std::function<bool(const ast::Expr &)> &name_ok) {
  const Effects f = of(e);
  return f.only_reads() && !f.reads && !f.ranges &&
         std::all_of(f.names.begin(), f.names.end(),
                     [&](const ast::Expr *name) { return name_ok(*name); });
}

}  // namespace kite::effects
