// Top-level declarations (structs, tasks, values, main) and the scopes of
// local names. See checker.h.
#include <algorithm>

#include "frontend/checker.h"

namespace kite::checking {

using namespace ast;

void Checker::unsupported(SourceLoc loc, const std::string &what) {
  diags_.error(loc, "{} are not supported yet", what);
}

void Checker::declare_global(const std::string &name, SourceLoc loc) {
  Builtin b;
  if (find_builtin(name, &b)) {
    diags_.error(loc, "'{}' is a built-in function and cannot be redefined", name);
    return;
  }
  if (!globals_.emplace(name, loc).second) diags_.error(loc, "redefinition of '{}'", name);
}

// Checks v unless it is checked already, after the values it uses.
void Checker::check_value_first(ValueDecl &v) {
  if (values_checked_.count(&v) ||
      std::find(value_stack_.begin(), value_stack_.end(), &v) != value_stack_.end())
    return;
  value_stack_.push_back(&v);
  check_value(v);
  value_stack_.pop_back();
  values_checked_.insert(&v);
  value_order_.push_back(&v);
}

void Checker::check_value(ValueDecl &v) {
  Type *want = v.type ? resolve(v.type.get()) : nullptr;
  if (!v.init) {
    diags_.error(v.loc, "top-level value '{}' needs an initial value", v.name);
    return;
  }
  bool saved_in_constant = in_constant_;
  in_constant_ = true;
  Type *got = value_of(*v.init, want);
  in_constant_ = saved_in_constant;
  if (!got) return;
  if (want && got != want) {
    type_mismatch(v.init->loc, want, got, "initialising '" + v.name + "'");
    return;
  }
  v.checked_type = want ? want : got;
  if (!v.checked_type->is_scalar()) {
    unsupported(v.loc, fmt::format("top-level values of type {}", to_string(v.checked_type)));
    v.checked_type = nullptr;
    return;
  }
  values_[v.name] = &v;
}

// A top-level value named while top-level values are checked: checked
// first if it is not yet. False (with an error) if it is one of the values
// being checked, which would make it depend on itself.
bool Checker::value_ready(const Expr &use, ValueDecl &v) {
  auto at = std::find(value_stack_.begin(), value_stack_.end(), &v);
  if (at == value_stack_.end()) {
    check_value_first(v);
    return true;
  }
  if (at + 1 == value_stack_.end()) {
    diags_.error(use.loc, "top-level value '{}' is defined in terms of itself", v.name);
    return false;
  }
  std::string chain = "'" + v.name + "'";
  for (auto it = at + 1; it != value_stack_.end(); ++it)
    chain += " uses '" + (*it)->name + "', which";
  diags_.error(use.loc, "top-level value '{}' is defined in terms of itself: {} uses '{}'", v.name,
               chain, v.name);
  return false;
}

void Checker::declare_signature(TaskDecl &t) {
  std::vector<Type *> params;
  bool ok = true;
  for (auto &p : t.params) {
    Type *pt = resolve(p.type.get());
    if (pt && pt->kind == TypeKind::Unit) {
      diags_.error(p.loc, "parameter '{}' cannot have type unit", p.name);
      pt = nullptr;
    }
    ok &= pt != nullptr;
    params.push_back(pt ? pt : types_.int_t());
  }
  t.result_type = resolve(t.result.get());
  if (!t.result_type) {
    ok = false;
    t.result_type = types_.unit_t();
  }
  t.type = types_.task(params, t.result_type);
  (void)ok;
}

void Checker::check_main() {
  auto it = tasks_.find("main");
  if (it == tasks_.end()) {
    diags_.error(SourceLoc{}, "no task named 'main': a program starts at task main");
    return;
  }
  TaskDecl &m = *it->second;
  program_.main = &m;
  if (m.params.size() > 24) diags_.error(m.loc, "main takes at most 24 parameters");
  auto passable = [](Type *t) {
    return t->is_scalar() || (t->kind == TypeKind::Array && t->elem->is_scalar());
  };
  for (size_t i = 0; i < m.params.size(); ++i)
    if (!passable(m.type->params[i]))
      diags_.error(m.params[i].loc,
                   "main's parameters must be scalars or arrays of scalars, not {} yet",
                   to_string(m.type->params[i]));
  if (m.result_type->kind != TypeKind::Unit && !passable(m.result_type))
    diags_.error(m.loc, "main must return a scalar or an array of scalars, not {} yet",
                 to_string(m.result_type));
}

void Checker::push() { scopes_.emplace_back(); }

void Checker::pop() { scopes_.pop_back(); }

void Checker::declare(VarDecl *v) {
  if (v->name.empty()) return;
  auto &scope = scopes_.back();
  if (scope.count(v->name)) {
    diags_.error(v->loc, "redeclaration of '{}' in the same block", v->name);
    return;
  }
  if (globals_.count(v->name) && tasks_.count(v->name)) {
    diags_.error(v->loc, "'{}' is already the name of a task", v->name);
    return;
  }
  scope[v->name] = v;
  if (!map_locals_.empty()) map_locals_.back().insert(v);
}

// Finds a variable; one declared outside the anonymous tasks being checked
// becomes a capture of each of them.
VarDecl *Checker::lookup(const std::string &name) {
  for (size_t i = scopes_.size(); i-- > 0;) {
    auto f = scopes_[i].find(name);
    if (f == scopes_[i].end()) continue;
    for (auto &frame : frames_)
      if (frame.scope_base > i) {
        auto &caps = frame.task->captures;
        if (std::find(caps.begin(), caps.end(), f->second) == caps.end()) caps.push_back(f->second);
      }
    return f->second;
  }
  return nullptr;
}

// Whether v belongs to a task enclosing the one being checked.
bool Checker::is_captured(VarDecl *v) {
  if (frames_.empty()) return false;
  for (size_t i = frames_.back().scope_base; i < scopes_.size(); ++i)
    for (auto &entry : scopes_[i])
      if (entry.second == v) return false;
  return true;
}

}  // namespace kite::checking
