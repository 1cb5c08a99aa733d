// Effects of expressions, what statements write, and what loop elements
// stand for (effects.h).
#include "ir/effects.h"

#include <algorithm>
#include <set>

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

bool heap_value(const Type &t) {
  switch (t.forced()->kind) {
    case TypeKind::Array:
    case TypeKind::Struct:
    case TypeKind::Union:
    case TypeKind::Tuple:
      return true;
    case TypeKind::Int:
    case TypeKind::Long:
    case TypeKind::Float:
    case TypeKind::Double:
    case TypeKind::Bool:
    case TypeKind::Unit:
    case TypeKind::String:
    case TypeKind::Future:
    case TypeKind::Task:
    case TypeKind::Range:
      return false;
  }
  return false;
}

namespace {

// The field the access `access` selects of the value it is applied to:
// kAnyField for an index.
int field_of(const ast::Expr &access) {
  return access.kind == ast::ExprKind::Field ? access.field : kAnyField;
}

// Where e is reached from (reach); with `closure` (an anonymous task's
// declaration), a field of its closure stands for the variable it
// captured, its maker's.
Reach reached(const ast::Expr &e, const ast::TaskDecl *closure) {
  const ast::Expr *x = &e, *outer = nullptr;  // outer: the access applied to x
  for (; x->kind == ast::ExprKind::Field || x->kind == ast::ExprKind::Index;
       outer = x, x = x->children[0].get())
    if (closure && closure->env && x->kind == ast::ExprKind::Field &&
        x->children[0]->kind == ast::ExprKind::Name && x->children[0]->var == closure->env)
      return {closure->captures[size_t(x->field - 1)], outer ? field_of(*outer) : kAnyField,
              !outer};
  if (x->kind != ast::ExprKind::Name) return {};
  return {x->var, outer ? field_of(*outer) : kAnyField, !outer};
}

// Calls fn on what v stands for as a loop's element in `task`: where its
// collection is reached from, and in turn what that variable stands for. A
// variable of another task (one `closure` captured) stands for nothing here.
void collections(const anf::Task &task, const ast::VarDecl *v, const ast::TaskDecl *closure,
                 const std::function<void(const Reach &)> &fn) {
  while (v && size_t(v->id) < task.vars.size() && task.vars[size_t(v->id)] == v) {
    const anf::Stmt *loop = task.loop_of[size_t(v->id)];
    if (!loop || loop->elem_var != v) break;
    Reach r = reached(*loop->expr, closure);
    v = r.var;
    if (v) fn(r);
  }
}

}  // namespace

Reach reach(const ast::Expr &e) { return reached(e, nullptr); }

const ast::VarDecl *reached_through(const ast::Expr &e) { return reached(e, nullptr).var; }

std::vector<int> element_collections(const anf::Task &task, int var) {
  std::vector<int> out;
  collections(task, task.vars[size_t(var)], nullptr,
              [&](const Reach &r) { out.push_back(r.var->id); });
  return out;
}

namespace {

// The fixed point of written_through: each task's statements, again while
// a variable (a task's parameter among them) or a field of it joins.
class WrittenThrough : public anf::Visitor {
 public:
  explicit WrittenThrough(const anf::Program &p) : p_(p) {}

  Written run() {
    do {
      changed_ = false;
      for (const anf::Task &t : p_.tasks) {
        task_ = &t;
        visit(t.body);
      }
    } while (changed_);
    return written_;
  }

 private:
  void add(const ast::VarDecl *v, const std::set<int> &fields) {
    if (!v) return;
    std::set<int> &to = written_[v];
    size_t before = to.size();
    to.insert(fields.begin(), fields.end());
    if (to.size() != before) changed_ = true;
  }
  // Writing through e, at `fields` of the variable when e is that
  // variable's whole value, else at the field e's access selects; and
  // what the variable stands for as a loop's element.
  void through(const ast::Expr &e, const std::set<int> &fields = {kAnyField}) {
    Reach r = reached(e, task_->decl.get());
    add(r.var, r.whole ? fields : std::set<int>{r.field});
    element(r.var);
  }
  // Assigning v as a whole writes nothing through it, but a loop's element
  // stands for its collection.
  void element(const ast::VarDecl *v) {
    collections(*task_, v, task_->decl.get(), [&](const Reach &c) { add(c.var, {c.field}); });
  }

  using anf::Visitor::visit;
  void visit(const anf::Stmt &s) override {
    if (s.target) {  // a Set's or a Call's
      const ast::Expr &t = *s.target;
      if (t.kind == ast::ExprKind::Name)
        element(t.var);
      else
        through(t);
    }
    anf::Visitor::visit(s);
  }

  void visit(const ast::Expr &e) override {
    anf::Visitor::visit(e);
    if (e.kind != ast::ExprKind::Call) return;
    const ast::Expr &callee = *e.children[0];
    if (const BuiltinInfo *b = called_builtin(e)) {
      if (b->writes && e.children.size() > 1) through(*e.children[1]);
      return;
    }
    // A named task writes what its parameter writes; a task value may
    // write anything it is given.
    const ast::TaskDecl *task = callee.kind == ast::ExprKind::Name ? callee.task : nullptr;
    for (size_t i = 1; i < e.children.size(); ++i) {
      // Only a heap value given is shared with the callee.
      const ast::Expr &arg = *e.children[i];
      if (!arg.type || !heap_value(*arg.type)) continue;
      if (!task || i - 1 >= task->param_vars.size()) {
        through(arg);
        continue;
      }
      auto param = written_.find(task->param_vars[i - 1]);
      if (param != written_.end()) through(arg, std::set<int>(param->second));
    }
  }

  const anf::Program &p_;
  const anf::Task *task_ = nullptr;
  Written written_;
  bool changed_ = false;
};

}  // namespace

Written written_through(const anf::Program &program) { return WrittenThrough(program).run(); }

bool only_computes(const ast::Expr &e, const std::function<bool(const ast::Expr &)> &name_ok) {
  const Effects f = of(e);
  return f.only_reads() && !f.reads && !f.ranges &&
         std::all_of(f.names.begin(), f.names.end(),
                     [&](const ast::Expr *name) { return name_ok(*name); });
}

}  // namespace kite::effects
