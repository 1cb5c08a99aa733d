// Task bodies and statements: whether each always returns, what may be
// assigned. See checker.h.
#include <memory>
#include <set>

#include "frontend/checker.h"

namespace kite::checking {

using namespace ast;

void Checker::check_task(TaskDecl &t) {
  scopes_.clear();
  check_task_body(t);
}

void Checker::check_task_body(TaskDecl &t) {
  task_ = &t;
  push();
  for (size_t i = 0; i < t.params.size(); ++i) {
    auto v = std::make_unique<VarDecl>();
    v->loc = t.params[i].loc;
    v->name = t.params[i].name;
    v->type = t.type->params[i];
    v->is_param = true;
    declare(v.get());
    t.param_vars.push_back(v.get());
    t.locals.push_back(std::move(v));
  }
  bool returns = check_list(t.body);
  pop();
  if (t.result_type->kind != TypeKind::Unit && !returns)
    diags_.error(t.loc, "task '{}' may finish without returning a value", t.name);
  task_ = nullptr;
}

// Checks a statement list in the current scope; true if it always returns.
bool Checker::check_list(StmtList &list) {
  bool returned = false;
  for (auto &s : list) {
    if (returned) {
      diags_.error(s->loc, "statement after 'return' is never run");
      return true;
    }
    returned = check_stmt(*s);
  }
  return returned;
}

bool Checker::check_block(StmtList &list) {
  push();
  bool r = check_list(list);
  pop();
  return r;
}

// True if the statement always returns.
bool Checker::check_stmt(Stmt &s) {
  switch (s.kind) {
    case StmtKind::ExprStmt: {
      Type *t = check_expr(*s.expr, nullptr);
      (void)t;
      return false;
    }
    case StmtKind::Decl:
      check_decl(s);
      return false;
    case StmtKind::Assign:
      check_assign(s);
      return false;
    case StmtKind::Return:
      check_return(s);
      return true;
    case StmtKind::Block:
      return check_block(s.body);
    case StmtKind::If: {
      Type *c = value_of(*s.expr, types_.bool_t());
      if (c && c->kind != TypeKind::Bool)
        diags_.error(s.expr->loc, "condition must be bool, not {}", to_string(c));
      bool a = check_block(s.body);
      bool b = check_block(s.else_body);
      return a && b && s.has_else;
    }
    case StmtKind::Then: {
      // `s1 then s2` is two statements in the same scope, ordered.
      bool a = check_list(s.body);
      bool b = check_list(s.else_body);
      return a || b;
    }
    case StmtKind::Case:
      return check_case(s);
    case StmtKind::For:
    case StmtKind::Map:
      check_loop(s);
      return false;
    case StmtKind::While: {
      Type *c = value_of(*s.expr, types_.bool_t());
      if (c && c->kind != TypeKind::Bool)
        diags_.error(s.expr->loc, "condition must be bool, not {}", to_string(c));
      ++loop_depth_;
      check_block(s.body);
      --loop_depth_;
      return false;
    }
  }
  return false;
}

void Checker::check_decl(Stmt &s) {
  Type *declared = s.decl_type ? resolve(s.decl_type.get()) : nullptr;
  if (declared && declared->kind == TypeKind::Unit) {
    diags_.error(s.decl_type->loc, "a variable cannot have type unit");
    declared = nullptr;
  }
  Type *type = declared;
  if (s.expr) {
    Type *got = value_of(*s.expr, declared);
    if (got && got->kind == TypeKind::Unit) {
      diags_.error(s.expr->loc, "this expression has no value (its type is unit)");
      got = nullptr;
    }
    if (declared && got && got != declared)
      type_mismatch(s.expr->loc, declared, got, "initialising '" + s.vars[0]->name + "'");
    if (!declared) type = got;
  } else if (!s.decl_type) {
    diags_.error(s.loc, "declaration of '{}' needs a type or an initial value", s.vars[0]->name);
  }
  for (auto &v : s.vars) {
    v->type = type ? type : types_.int_t();
    declare(v.get());
  }
}

void Checker::check_assign(Stmt &s) {
  Expr &target = *s.target;
  Type *want = nullptr;
  if (target.kind == ExprKind::Name) {
    VarDecl *v = lookup(target.text);
    if (!v) {
      if (globals_.count(target.text) || self_named(target.text))
        diags_.error(target.loc, "cannot assign to '{}': it is not a variable", target.text);
      else
        diags_.error(target.loc, "use of undeclared name '{}'", target.text);
      check_expr(*s.expr, nullptr);
      return;
    }
    target.var = v;
    target.type = v->type;
    want = v->type;
    if (is_captured(v)) {
      diags_.error(target.loc,
                   "an anonymous task cannot assign '{}', a variable of the task that made it "
                   "(it has a copy)",
                   v->name);
      return;
    }
    if (v->alias_of && v->alias_of->coll_var &&
        v->alias_of->coll_var->type->kind == TypeKind::Range) {
      diags_.error(target.loc, "cannot assign to '{}': the elements of a range are not variables",
                   v->name);
      return;
    }
    if (loop_indices_.count(v)) {
      diags_.error(target.loc, "cannot assign to '{}': it is the index of a loop", v->name);
      return;
    }
    if (!map_locals_.empty() && !map_locals_.back().count(v)) {
      diags_.error(target.loc,
                   "a map body cannot assign '{}', declared outside it: its iterations may run "
                   "in parallel (assign an array element instead)",
                   v->name);
      return;
    }
  } else if (target.kind == ExprKind::Field) {
    want = value_of(target, nullptr);
    Type *base = target.children[0]->type ? target.children[0]->type->forced() : nullptr;
    if (want && base && base->kind == TypeKind::Tuple) {
      diags_.error(target.loc, "the members of a tuple cannot be assigned");
      return;
    }
  } else if (target.kind == ExprKind::Index) {
    want = value_of(target, nullptr);
    Type *base = target.children[0]->type ? target.children[0]->type->forced() : nullptr;
    if (base && base->kind == TypeKind::Range) {
      diags_.error(target.loc, "cannot assign to an element of a range");
      return;
    }
  } else {
    diags_.error(target.loc, "cannot assign to this expression");
    return;
  }
  if (!want) {
    check_expr(*s.expr, nullptr);
    return;
  }
  Type *got = value_of(*s.expr, want);
  if (got && got != want)
    type_mismatch(s.expr->loc, want, got, "assigning to '" + ntg_text(target) + "'");
}

std::string Checker::ntg_text(const Expr &e) {
  switch (e.kind) {
    case ExprKind::Name:
      return e.text;
    case ExprKind::Field:
      return ntg_text(*e.children[0]) + "." + e.text;
    case ExprKind::Index:
      return ntg_text(*e.children[0]) + "[...]";
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::BoolLit:
    case ExprKind::StringLit:
    case ExprKind::Call:
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Tuple:
    case ExprKind::Construct:
    case ExprKind::New:
    case ExprKind::Range:
    case ExprKind::AnonTask:
    case ExprKind::Future:
      return "...";
  }
  return "...";
}

bool Checker::check_case(Stmt &s) {
  Type *t = value_of(*s.expr, nullptr);
  if (t) s.null_name = null_name(*s.expr);
  if (t && t->kind != TypeKind::Union) {
    diags_.error(s.expr->loc, "case needs a union value, not {}", to_string(t));
    t = nullptr;
  }
  bool all_return = true, has_default = false;
  std::set<int> covered;
  for (auto &b : s.branches) {
    push();
    if (b.field.empty()) {
      if (has_default) diags_.error(b.loc, "a case has at most one default branch");
      has_default = true;
    } else if (t) {
      int k = field_index(t->name, b.field);
      if (k < 0) {
        diags_.error(b.loc, "union {} has no field '{}'", t->name, b.field);
      } else {
        if (!covered.insert(k).second)
          diags_.error(b.loc, "field '{}' has two case branches", b.field);
        b.field_index = k;
        auto v = std::make_unique<VarDecl>();
        v->loc = b.loc;
        v->name = b.binder;
        v->type = fields_[t->name][k].second;
        declare(v.get());
        b.binder_var = v.get();
        task_->locals.push_back(std::move(v));
      }
    }
    all_return &= check_list(b.body);
    pop();
  }
  if (t && !has_default) {
    for (size_t k = 0; k < fields_[t->name].size(); ++k) {
      if (!covered.count(int(k))) {
        diags_.error(s.loc, "case does not cover field '{}' of union {}", fields_[t->name][k].first,
                     t->name);
        all_return = false;
      }
    }
  }
  return all_return && !s.branches.empty();
}

void Checker::check_loop(Stmt &s) {
  Type *c = value_of(*s.expr, nullptr);
  Type *elem = nullptr;
  if (c) {
    if (c->kind == TypeKind::Array)
      elem = c->elem;
    else if (c->kind == TypeKind::Range)
      elem = types_.int_t();
    else
      diags_.error(s.expr->loc, "a loop needs an array or a range, not {}", to_string(c));
  }
  push();
  auto coll = std::make_unique<VarDecl>();
  coll->loc = s.expr->loc;
  coll->name = "_c";
  coll->type = c && elem ? c : types_.range_t();
  coll->is_temp = true;
  s.coll_var = std::move(coll);
  if (!s.index_var) {
    s.index_var = std::make_unique<VarDecl>();
    s.index_var->loc = s.loc;
    s.index_var->name = "_i";
    s.index_var->is_temp = true;
  } else {
    declare(s.index_var.get());
    loop_indices_.insert(s.index_var.get());
  }
  s.index_var->type = types_.int_t();
  s.elem_var->type = elem ? elem : types_.int_t();
  s.elem_var->alias_of = &s;
  declare(s.elem_var.get());
  bool is_map = s.kind == StmtKind::Map;
  if (is_map) map_locals_.push_back({s.elem_var.get(), s.index_var.get()});
  ++loop_depth_;
  check_list(s.body);
  --loop_depth_;
  if (is_map) map_locals_.pop_back();
  pop();
}

void Checker::check_return(Stmt &s) {
  if (loop_depth_ > 0) {
    diags_.error(s.loc, "'return' cannot appear in the body of a for, while or map loop");
    return;
  }
  Type *want = task_->result_type;
  if (!s.expr) {
    if (want->kind != TypeKind::Unit)
      diags_.error(s.loc, "task '{}' must return a value of type {}", task_->name, to_string(want));
    return;
  }
  if (want->kind == TypeKind::Unit) {
    diags_.error(s.expr->loc, "task '{}' returns nothing, but a value is returned here",
                 task_->name);
    return;
  }
  Type *got = value_of(*s.expr, want);
  if (got && got != want)
    type_mismatch(s.expr->loc, want, got, "returning from '" + task_->name + "'");
}

}  // namespace kite::checking
