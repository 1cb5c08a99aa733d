// The type checker. See check.h.
//
// Literals take their type from context where C programmers expect it: an
// unsuffixed integer literal used where a long is wanted is a long, and a
// double literal used where a float is wanted is a float (`x: long = 5;`,
// `y: float = 0.5;`). Otherwise there is no implicit numeric conversion.
#include "frontend/check.h"

#include <algorithm>
#include <map>
#include <set>

namespace kite {
namespace {

using namespace ast;

const char *kBuiltinNames[] = {
#define KITE_BUILTIN(name, atomic) #name,
#include "frontend/builtins.def"
};
const bool kBuiltinAtomic[] = {
#define KITE_BUILTIN(name, atomic) atomic,
#include "frontend/builtins.def"
};

class Checker {
 public:
  Checker(Program &program, TypeContext &types, Diagnostics &diags)
      : program_(program), types_(types), diags_(diags) {}

  void run() {
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

 private:
  // A named task declared in a task body, while its body is checked.
  struct SelfName {
    std::string name;
    TaskDecl *task;
    size_t scope_base;  // scopes from here on belong to the task
    size_t frame;       // its index in frames_
  };

  void unsupported(SourceLoc loc, const std::string &what) {
    diags_.error(loc, "{} are not supported yet", what);
  }

  void declare_global(const std::string &name, SourceLoc loc) {
    Builtin b;
    if (find_builtin(name, &b)) {
      diags_.error(loc, "'{}' is a built-in function and cannot be redefined", name);
      return;
    }
    if (!globals_.emplace(name, loc).second)
      diags_.error(loc, "redefinition of '{}'", name);
  }

  // --- Types -------------------------------------------------------------

  void declare_fields(StructDecl &sd) {
    auto &fields = fields_[sd.name];
    if (sd.fields.empty())
      diags_.error(sd.loc, "{} '{}' has no fields", sd.is_union ? "union" : "struct", sd.name);
    for (auto &f : sd.fields) {
      for (auto &other : fields)
        if (other.first == f.name) diags_.error(f.loc, "duplicate field '{}'", f.name);
      Type *t = resolve(f.type.get());
      if (t && t->kind == TypeKind::Unit) {
        diags_.error(f.loc, "field '{}' cannot have type unit", f.name);
        t = nullptr;
      }
      fields.push_back({f.name, t ? t : types_.int_t()});
    }
  }

  int field_index(const std::string &type_name, const std::string &field) {
    auto &fields = fields_[type_name];
    for (size_t i = 0; i < fields.size(); ++i)
      if (fields[i].first == field) return int(i);
    return -1;
  }

  Type *resolve(const TypeExpr *t) {
    if (!t) return types_.unit_t();
    const std::string &n = t->name;
    if (t->args.empty()) {
      if (n == "int") return types_.int_t();
      if (n == "long") return types_.long_t();
      if (n == "float") return types_.float_t();
      if (n == "double") return types_.double_t();
      if (n == "bool") return types_.bool_t();
      if (n == "unit") return types_.unit_t();
      if (n == "range") return types_.range_t();
      auto sd = structs_.find(n);
      if (sd != structs_.end())
        return types_.named(sd->second->is_union ? TypeKind::Union : TypeKind::Struct, n);
    }
    if (n == "future" && t->args.size() == 1) {
      // A future<t> annotation is accepted; the value is forced where it is
      // used, so the variable behaves as a t (docs/language.md).
      return resolve(t->args[0].get());
    }
    if (n == "array" && t->args.size() == 1) {
      Type *elem = resolve(t->args[0].get());
      if (!elem) return nullptr;
      if (elem->kind == TypeKind::Unit) {
        diags_.error(t->loc, "an array cannot hold unit");
        return nullptr;
      }
      return types_.array(elem);
    }
    if (n == "(tuple)") {
      std::vector<Type *> members;
      for (auto &a : t->args) {
        Type *m = resolve(a.get());
        if (!m) return nullptr;
        if (m->kind == TypeKind::Unit) {
          diags_.error(a->loc, "a tuple cannot hold unit");
          return nullptr;
        }
        members.push_back(m);
      }
      return types_.tuple(members);
    }
    if (n == "task" && !t->args.empty()) {
      std::vector<Type *> params;
      for (size_t i = 0; i + 1 < t->args.size(); ++i) {
        Type *p = resolve(t->args[i].get());
        if (!p) return nullptr;
        if (p->kind == TypeKind::Unit) {
          diags_.error(t->args[i]->loc, "a task cannot take a unit parameter");
          return nullptr;
        }
        params.push_back(p);
      }
      Type *r = resolve(t->args.back().get());
      if (!r) return nullptr;
      return types_.task(params, r);
    }
    if (n == "array" || n == "future") {
      diags_.error(t->loc, "'{}' takes one type argument", n);
      return nullptr;
    }
    diags_.error(t->loc, "unknown type '{}'", ast::to_string(*t));
    return nullptr;
  }

  // --- Top level ---------------------------------------------------------

  // Checks v unless it is checked already, after the values it uses.
  void check_value_first(ValueDecl &v) {
    if (values_checked_.count(&v) ||
        std::find(value_stack_.begin(), value_stack_.end(), &v) != value_stack_.end())
      return;
    value_stack_.push_back(&v);
    check_value(v);
    value_stack_.pop_back();
    values_checked_.insert(&v);
    value_order_.push_back(&v);
  }

  void check_value(ValueDecl &v) {
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
  bool value_ready(const Expr &use, ValueDecl &v) {
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
    for (auto it = at + 1; it != value_stack_.end(); ++it) chain += " uses '" + (*it)->name + "', which";
    diags_.error(use.loc, "top-level value '{}' is defined in terms of itself: {} uses '{}'",
                 v.name, chain, v.name);
    return false;
  }

  void declare_signature(TaskDecl &t) {
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

  void check_main() {
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

  // --- Tasks and statements ----------------------------------------------

  void check_task(TaskDecl &t) {
    scopes_.clear();
    check_task_body(t);
  }

  void check_task_body(TaskDecl &t) {
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
  bool check_list(StmtList &list) {
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

  bool check_block(StmtList &list) {
    push();
    bool r = check_list(list);
    pop();
    return r;
  }

  // True if the statement always returns.
  bool check_stmt(Stmt &s) {
    switch (s.kind) {
      case StmtKind::ExprStmt: {
        Type *t = check_expr(*s.expr, nullptr);
        (void)t;
        return false;
      }
      case StmtKind::Decl: check_decl(s); return false;
      case StmtKind::Assign: check_assign(s); return false;
      case StmtKind::Return: check_return(s); return true;
      case StmtKind::Block: return check_block(s.body);
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
      case StmtKind::Case: return check_case(s);
      case StmtKind::For:
      case StmtKind::Map: check_loop(s); return false;
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

  void check_decl(Stmt &s) {
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

  void check_assign(Stmt &s) {
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

  static std::string ntg_text(const Expr &e) {
    switch (e.kind) {
      case ExprKind::Name: return e.text;
      case ExprKind::Field: return ntg_text(*e.children[0]) + "." + e.text;
      case ExprKind::Index: return ntg_text(*e.children[0]) + "[...]";
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
      case ExprKind::Future: return "...";
    }
    return "...";
  }

  bool check_case(Stmt &s) {
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
          diags_.error(s.loc, "case does not cover field '{}' of union {}",
                       fields_[t->name][k].first, t->name);
          all_return = false;
        }
      }
    }
    return all_return && !s.branches.empty();
  }

  void check_loop(Stmt &s) {
    Type *c = value_of(*s.expr, nullptr);
    Type *elem = nullptr;
    if (c) {
      if (c->kind == TypeKind::Array) elem = c->elem;
      else if (c->kind == TypeKind::Range) elem = types_.int_t();
      else diags_.error(s.expr->loc, "a loop needs an array or a range, not {}", to_string(c));
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

  void check_return(Stmt &s) {
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
    if (got && got != want) type_mismatch(s.expr->loc, want, got, "returning from '" + task_->name + "'");
  }

  void type_mismatch(SourceLoc loc, Type *want, Type *got, const std::string &when) {
    diags_.error(loc, "expected {} when {}, but this has type {}", to_string(want), when,
                 to_string(got));
  }

  // --- Scopes ------------------------------------------------------------

  void push() { scopes_.emplace_back(); }
  void pop() { scopes_.pop_back(); }
  void declare(VarDecl *v) {
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
  VarDecl *lookup(const std::string &name) {
    for (size_t i = scopes_.size(); i-- > 0;) {
      auto f = scopes_[i].find(name);
      if (f == scopes_[i].end()) continue;
      for (auto &frame : frames_)
        if (frame.scope_base > i) {
          auto &caps = frame.task->captures;
          if (std::find(caps.begin(), caps.end(), f->second) == caps.end())
            caps.push_back(f->second);
        }
      return f->second;
    }
    return nullptr;
  }

  // Whether v belongs to a task enclosing the one being checked.
  bool is_captured(VarDecl *v) {
    if (frames_.empty()) return false;
    for (size_t i = frames_.back().scope_base; i < scopes_.size(); ++i)
      for (auto &entry : scopes_[i])
        if (entry.second == v) return false;
    return true;
  }

  // --- Expressions -------------------------------------------------------

  // Types e and forces it (FORCE): the type of the value e stands for.
  Type *value_of(Expr &e, Type *want) {
    Type *t = check_expr(e, want);
    return t ? t->forced() : nullptr;
  }

  // Retypes an unsuffixed literal, or arithmetic made only of literals
  // (`-(2 * 3)`, `2 - -5L`), to `want` where the literal rule above allows
  // it. Only widens: int -> long, double -> float.
  void adapt(Expr &e, Type *want) {
    if (!want || !e.type || !is_literal(e)) return;
    // is_literal: an int or float literal, or a unary or binary operator.
    if (e.kind == ExprKind::IntLit) {
      if (!e.is_long && want->kind == TypeKind::Long) {
        e.is_long = true;
        e.type = types_.long_t();
      }
    } else if (e.kind == ExprKind::FloatLit) {
      if (!e.is_float32 && want->kind == TypeKind::Float) {
        e.is_float32 = true;
        e.type = types_.float_t();
      }
    } else if (e.kind == ExprKind::Unary) {
      adapt(*e.children[0], want);
      e.type = e.children[0]->type;
    } else {
      // A shift's count keeps its type; the other operators' operands
      // have the result's type.
      Expr &l = *e.children[0], &r = *e.children[1];
      adapt(l, want);
      if (e.binop == BinaryOp::Shl || e.binop == BinaryOp::Shr) {
        e.type = l.type;
        return;
      }
      adapt(r, want);
      if (l.type == r.type) e.type = l.type;
    }
  }

  // Whether literal arithmetic e has an unsuffixed integer literal too large
  // for an int.
  static bool needs_long(const Expr &e) {
    bool found = false;
    for_each_expr(e, [&](const Expr &x) {
      found = found || (x.kind == ExprKind::IntLit && !x.is_long && !x.fits_int);
    });
    return found;
  }

  // A literal, or `-`, `~` and arithmetic operators applied to literals only.
  static bool is_literal(const Expr &e) {
    switch (e.kind) {
      case ExprKind::IntLit:
      case ExprKind::FloatLit: return true;
      case ExprKind::Unary:
        return e.unop != UnaryOp::Not && e.children[0] && is_literal(*e.children[0]);
      case ExprKind::Binary:
        switch (e.binop) {
          case BinaryOp::Mul:
          case BinaryOp::Div:
          case BinaryOp::Mod:
          case BinaryOp::Add:
          case BinaryOp::Sub:
          case BinaryOp::Shl:
          case BinaryOp::Shr:
          case BinaryOp::BitAnd:
          case BinaryOp::BitXor:
          case BinaryOp::BitOr:
            return e.children[0] && e.children[1] && is_literal(*e.children[0]) &&
                   is_literal(*e.children[1]);
          case BinaryOp::Lt:
          case BinaryOp::Le:
          case BinaryOp::Gt:
          case BinaryOp::Ge:
          case BinaryOp::Eq:
          case BinaryOp::Ne:
          case BinaryOp::And:
          case BinaryOp::Or: return false;
        }
        return false;
      case ExprKind::BoolLit:
      case ExprKind::StringLit:
      case ExprKind::Name:
      case ExprKind::Call:
      case ExprKind::Field:
      case ExprKind::Index:
      case ExprKind::Tuple:
      case ExprKind::Construct:
      case ExprKind::New:
      case ExprKind::Range:
      case ExprKind::AnonTask:
      case ExprKind::Future: return false;
    }
    return false;
  }

  // Unsuffixed integer literals are ints unless the context made them longs
  // (adapt), which may happen after they are checked (`y + 5999999999`):
  // once everything is checked, those still ints must fit an int, and take
  // the 32-bit value their digits spell (0xFFFFFFFF: -1).
  void settle_int_literals() {
    for (Expr *e : int_literals_) {
      if (e->is_long) continue;
      if (!e->fits_int) {
        diags_.error(e->loc, "integer literal is too large for int (an L suffix makes a long)");
        continue;
      }
      e->int_value = int32_t(uint32_t(uint64_t(e->int_value)));
    }
    int_literals_.clear();
  }

  Type *check_expr(Expr &e, Type *want) {
    e.type = check_expr_inner(e, want);
    if (e.type) adapt(e, want);
    return e.type;
  }

  Type *check_expr_inner(Expr &e, Type *want) {
    switch (e.kind) {
      case ExprKind::IntLit:
        if (e.is_long) return types_.long_t();
        if (int_literals_seen_.insert(&e).second) int_literals_.push_back(&e);
        return types_.int_t();
      case ExprKind::FloatLit: return e.is_float32 ? types_.float_t() : types_.double_t();
      case ExprKind::BoolLit: return types_.bool_t();
      case ExprKind::StringLit:
        diags_.error(e.loc, "a string literal can only be an argument of print");
        return nullptr;
      case ExprKind::Name: return check_name(e);
      case ExprKind::Call: return check_call(e, want);
      case ExprKind::Unary: return check_unary(e, want);
      case ExprKind::Binary: return check_binary(e, want);
      case ExprKind::Field: return check_field(e);
      case ExprKind::Index: return check_index(e);
      case ExprKind::Tuple: return check_tuple(e);
      case ExprKind::Construct: return check_construct(e);
      case ExprKind::New: return check_new(e);
      case ExprKind::Range: {
        Type *a = value_of(*e.children[0], types_.int_t());
        Type *b = value_of(*e.children[1], types_.int_t());
        if (!a || !b) return nullptr;
        if (a != types_.int_t() || b != types_.int_t()) {
          diags_.error(e.loc, "a range needs int bounds, not {} and {}", to_string(a), to_string(b));
          return nullptr;
        }
        return types_.range_t();
      }
      case ExprKind::AnonTask: return check_anon(e);
      case ExprKind::Future: return check_future(e);
    }
    return nullptr;
  }

  // An anonymous task is checked where it stands, as a task of its own whose
  // enclosing variables are visible (and become its captures); frontend/lift
  // lifts it to the program's tasks.
  Type *check_anon(Expr &e) {
    TaskDecl &t = *e.anon;
    std::string own_name = t.name;  // a named task declared in a task body
    t.is_anonymous = true;
    t.name = fmt::format("anon_{}_{}", e.loc.line, e.loc.col);
    declare_signature(t);
    TaskDecl *outer = task_;
    int saved_depth = loop_depth_;
    auto saved_maps = std::move(map_locals_);
    map_locals_.clear();
    loop_depth_ = 0;
    if (!own_name.empty()) selves_.push_back({own_name, &t, scopes_.size(), frames_.size()});
    frames_.push_back({&t, scopes_.size()});
    check_task_body(t);
    frames_.pop_back();
    if (!own_name.empty()) {
      selves_.pop_back();
      capture_for_self_references(t);
    }
    loop_depth_ = saved_depth;
    map_locals_ = std::move(saved_maps);
    task_ = outer;
    e.task = &t;
    return t.type;
  }

  // The name of a named task declared in a task body, used inside its own
  // body (where it is not declared yet: its declaration's value is the task
  // being checked); null if a variable of a task inside it hides the name.
  const SelfName *self_named(const std::string &name) {
    size_t innermost_var = 0;  // one past the innermost scope declaring `name`
    for (size_t i = scopes_.size(); i-- > 0;)
      if (scopes_[i].count(name)) {
        innermost_var = i + 1;
        break;
      }
    for (size_t i = selves_.size(); i-- > 0;)
      if (selves_[i].name == name)
        return innermost_var > selves_[i].scope_base ? nullptr : &selves_[i];
    return nullptr;
  }

  // A named task's own name inside its body stands for the task itself: a
  // closure of the same task with the same captures (frontend/lift leaves
  // it as it is; ir/closures makes it the task's own closure). The tasks
  // between the task and the use capture what the task captures.
  Type *self_reference(Expr &e, const SelfName &self) {
    e.kind = ExprKind::AnonTask;
    e.task = self.task;
    std::vector<TaskDecl *> between;
    for (size_t i = self.frame + 1; i < frames_.size(); ++i) between.push_back(frames_[i].task);
    if (!between.empty()) self_uses_.push_back({self.task, std::move(between)});
    return self.task->type;
  }

  // Once t's captures are known (its body is checked), the tasks inside it
  // that name t capture them too, to make t's closure.
  void capture_for_self_references(TaskDecl &t) {
    for (auto &use : self_uses_) {
      if (use.first != &t) continue;
      for (TaskDecl *inner : use.second)
        for (VarDecl *v : t.captures) {
          auto &caps = inner->captures;
          if (std::find(caps.begin(), caps.end(), v) == caps.end()) caps.push_back(v);
        }
    }
  }

  // `task e` evaluates e as a task of its own: frontend/lift makes it an
  // anonymous task without parameters returning e, called at once.
  Type *check_future(Expr &e) {
    Type *t = value_of(*e.children[0], nullptr);
    if (!t) return nullptr;
    if (t->kind == TypeKind::Unit) {
      diags_.error(e.loc, "'task e' needs an expression with a value");
      return nullptr;
    }
    return types_.future(t);
  }

  // How a run-time error names e's child i if it is null (Expr::null_names).
  static void name_null(Expr &e, size_t i) {
    e.null_names.resize(e.children.size());
    e.null_names[i] = null_name(*e.children[i]);
  }

  Type *check_field(Expr &e) {
    Type *base = value_of(*e.children[0], nullptr);
    if (!base) return nullptr;
    name_null(e, 0);
    if (base->kind == TypeKind::Tuple) {
      size_t k = 0;
      bool digits = !e.text.empty() && e.text.size() < 6;
      for (char ch : e.text) digits &= ch >= '0' && ch <= '9';
      if (digits) k = std::stoul(e.text);
      if (!digits || k >= base->params.size()) {
        diags_.error(e.loc, "a tuple of type {} has no member '{}'", to_string(base), e.text);
        return nullptr;
      }
      e.field = int(k);
      return base->params[k];
    }
    if (base->kind == TypeKind::Struct) {
      int k = field_index(base->name, e.text);
      if (k < 0) {
        diags_.error(e.loc, "struct {} has no field '{}'", base->name, e.text);
        return nullptr;
      }
      e.field = k;
      return fields_[base->name][k].second;
    }
    if (base->kind == TypeKind::Union) {
      diags_.error(e.loc, "the fields of union {} can only be read with case", base->name);
      return nullptr;
    }
    if ((base->kind == TypeKind::Array || base->kind == TypeKind::Range) &&
        (e.text == "length" || e.text == "size" || e.text == "len" || e.text == "count")) {
      const Expr &of = *e.children[0];
      std::string arg = of.kind == ExprKind::Name ? of.text : "...";
      diags_.error(e.loc, "{} has no fields; its length is 'length({})'",
                   base->kind == TypeKind::Array ? "an array" : "a range", arg);
      return nullptr;
    }
    diags_.error(e.loc, "a value of type {} has no fields", to_string(base));
    return nullptr;
  }

  Type *check_index(Expr &e) {
    Type *base = value_of(*e.children[0], nullptr);
    Type *index = value_of(*e.children[1], types_.int_t());
    if (!base || !index) return nullptr;
    if (index != types_.int_t()) {
      diags_.error(e.children[1]->loc, "an index must be an int, not {}", to_string(index));
      return nullptr;
    }
    if (base->kind == TypeKind::Array) return base->elem;
    if (base->kind == TypeKind::Range) {
      diags_.error(e.loc, "a range cannot be indexed; iterate it with for or map");
      return nullptr;
    }
    diags_.error(e.loc, "a value of type {} cannot be indexed", to_string(base));
    return nullptr;
  }

  Type *check_tuple(Expr &e) {
    std::vector<Type *> members;
    for (auto &c : e.children) {
      Type *t = value_of(*c, nullptr);
      if (!t) return nullptr;
      if (t->kind == TypeKind::Unit) {
        diags_.error(c->loc, "a tuple cannot hold unit");
        return nullptr;
      }
      members.push_back(t);
    }
    return types_.tuple(members);
  }

  Type *check_construct(Expr &e) {
    const std::string &name = e.type_expr->name;
    auto sd = structs_.find(name);
    if (sd == structs_.end()) {
      diags_.error(e.type_expr->loc, "unknown struct or union '{}'", name);
      for (auto &f : e.fields) check_expr(*f.value, nullptr);
      return nullptr;
    }
    bool is_union = sd->second->is_union;
    auto &fields = fields_[name];
    std::set<int> given;
    bool ok = true;
    for (auto &f : e.fields) {
      int k = field_index(name, f.name);
      if (k < 0) {
        diags_.error(f.loc, "{} {} has no field '{}'", is_union ? "union" : "struct", name, f.name);
        check_expr(*f.value, nullptr);
        ok = false;
        continue;
      }
      if (!given.insert(k).second) {
        diags_.error(f.loc, "field '{}' is given twice", f.name);
        ok = false;
      }
      Type *want = fields[k].second;
      Type *got = value_of(*f.value, want);
      if (got && got != want) {
        type_mismatch(f.value->loc, want, got, "initialising field '" + f.name + "'");
        ok = false;
      }
      ok &= got != nullptr;
    }
    if (is_union && e.fields.size() != 1) {
      diags_.error(e.loc, "a union constructor names exactly one field");
      ok = false;
    }
    if (!ok) return nullptr;
    return types_.named(is_union ? TypeKind::Union : TypeKind::Struct, name);
  }

  Type *check_new(Expr &e) {
    Type *elem = resolve(e.type_expr.get());
    if (e.children.size() != 1) {
      diags_.error(e.loc, "new<t>(n) takes one length");
      for (auto &c : e.children) check_expr(*c, nullptr);
      return nullptr;
    }
    Type *n = value_of(*e.children[0], types_.int_t());
    if (!elem || !n) return nullptr;
    if (elem->kind == TypeKind::Unit) {
      diags_.error(e.type_expr->loc, "an array cannot hold unit");
      return nullptr;
    }
    if (n != types_.int_t()) {
      diags_.error(e.children[0]->loc, "an array length must be an int, not {}", to_string(n));
      return nullptr;
    }
    return types_.array(elem);
  }

  // Values print can print: scalars, and arrays, tuples and ranges of them.
  bool printable(Type *t) {
    if (t->is_scalar() || t->kind == TypeKind::Range) return true;
    if (t->kind == TypeKind::Array) return t->elem->is_scalar();
    if (t->kind == TypeKind::Tuple) {
      for (Type *m : t->params)
        if (!m->is_scalar() && m->kind != TypeKind::Range) return false;
      return true;
    }
    return false;
  }

  Type *check_name(Expr &e) {
    if (!in_constant_) {
      if (const SelfName *self = self_named(e.text)) return self_reference(e, *self);
      if (VarDecl *v = lookup(e.text)) {
        e.var = v;
        return v->type;
      }
    }
    if (in_constant_) {
      auto decl = value_decls_.find(e.text);
      if (decl != value_decls_.end() && !value_ready(e, *decl->second)) return nullptr;
    }
    auto val = values_.find(e.text);
    if (val != values_.end()) {
      e.global = val->second;
      return val->second->checked_type;
    }
    if (tasks_.count(e.text)) {
      if (in_constant_) {
        diags_.error(e.loc, "task values in top-level values are not supported yet");
        return nullptr;
      }
      e.task = tasks_[e.text];
      return e.task->type;
    }
    Builtin b;
    if (find_builtin(e.text, &b)) {
      diags_.error(e.loc, "built-in function '{}' can only be called", e.text);
      return nullptr;
    }
    auto sd = structs_.find(e.text);
    if (sd != structs_.end()) {
      const StructDecl &d = *sd->second;
      diags_.error(e.loc, "'{}' is a {} type, not a value; construct one with {}{{ {} = ... }}",
                   e.text, d.is_union ? "union" : "struct", e.text,
                   d.fields.empty() ? "x" : d.fields[0].name);
      return nullptr;
    }
    if (globals_.count(e.text))  // a constant whose declaration had an error
      return nullptr;
    diags_.error(e.loc, "use of undeclared name '{}'", e.text);
    return nullptr;
  }

  Type *check_call(Expr &e, Type *want) {
    Expr &callee = *e.children[0];
    size_t nargs = e.children.size() - 1;
    if (callee.kind == ExprKind::Name) {
      Builtin b;
      bool shadowed = self_named(callee.text) || lookup(callee.text) != nullptr;
      if (!shadowed && find_builtin(callee.text, &b)) return check_builtin(e, b, want);
    }
    if (in_constant_) {
      diags_.error(e.loc, "task calls in top-level values are not supported yet");
      return nullptr;
    }
    bool local = callee.kind == ExprKind::Name && (self_named(callee.text) || lookup(callee.text));
    bool direct = callee.kind == ExprKind::Name && !local && tasks_.count(callee.text);
    if (!direct) {
      // A call of a task value: any expression of type task<...>.
      if (callee.kind == ExprKind::Name && !local && !values_.count(callee.text) &&
          !globals_.count(callee.text)) {
        diags_.error(callee.loc, "call of undeclared task '{}'", callee.text);
        for (size_t i = 1; i < e.children.size(); ++i) check_expr(*e.children[i], nullptr);
        return nullptr;
      }
      Type *ft = value_of(callee, nullptr);
      if (!ft) return nullptr;
      name_null(e, 0);
      if (ft->kind != TypeKind::Task) {
        diags_.error(callee.loc, "a value of type {} is not a task and cannot be called",
                     to_string(ft));
        return nullptr;
      }
      if (nargs != ft->params.size()) {
        diags_.error(e.loc, "this task takes {} argument{}, but {} {} given", ft->params.size(),
                     ft->params.size() == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
        return nullptr;
      }
      bool ok = true;
      for (size_t i = 0; i < nargs; ++i) {
        Type *want = ft->params[i];
        Type *got = value_of(*e.children[i + 1], want);
        if (got && got != want) {
          type_mismatch(e.children[i + 1]->loc, want, got,
                        "passing argument " + std::to_string(i + 1));
          ok = false;
        }
        ok &= got != nullptr;
      }
      if (!ok) return nullptr;
      return types_.future(ft->elem);  // APP
    }
    auto it = tasks_.find(callee.text);
    TaskDecl *t = it->second;
    callee.task = t;
    callee.type = t->type;
    if (nargs != t->params.size()) {
      diags_.error(e.loc, "task '{}' takes {} argument{}, but {} {} given", t->name,
                   t->params.size(), t->params.size() == 1 ? "" : "s", nargs,
                   nargs == 1 ? "was" : "were");
      return nullptr;
    }
    bool ok = true;
    for (size_t i = 0; i < nargs; ++i) {
      Type *want = t->type->params[i];
      Type *got = value_of(*e.children[i + 1], want);
      if (got && got != want) {
        type_mismatch(e.children[i + 1]->loc, want, got,
                      "passing argument '" + t->params[i].name + "' of '" + t->name + "'");
        ok = false;
      }
      ok &= got != nullptr;
    }
    if (!ok) return nullptr;
    return types_.future(t->result_type);  // APP
  }

  // `want` is the type the call's context wants: an argument whose type is
  // the result's (abs, min, max, pow) wants it too, so literals adapt.
  Type *check_builtin(Expr &e, Builtin b, Type *want) {
    Expr &callee = *e.children[0];
    callee.builtin = int(b);
    size_t nargs = e.children.size() - 1;
    auto arg = [&](size_t i, Type *want = nullptr) { return value_of(*e.children[i + 1], want); };
    auto arity = [&](size_t n) {
      if (nargs == n) return true;
      diags_.error(e.loc, "'{}' takes {} argument{}, but {} {} given", callee.text, n,
                   n == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
      return false;
    };
    switch (b) {
      case Builtin::print_: {
        for (size_t i = 0; i < nargs; ++i) {
          Expr &a = *e.children[i + 1];
          if (a.kind == ExprKind::StringLit) {
            a.type = types_.string_t();
            continue;
          }
          Type *t = arg(i);
          if (t && !printable(t)) {
            diags_.error(a.loc, "print cannot print a value of type {} yet", to_string(t));
          }
          if (t && t->kind == TypeKind::Tuple) name_null(e, i + 1);
        }
        return types_.unit_t();
      }
      case Builtin::int_:
      case Builtin::long_:
      case Builtin::float_:
      case Builtin::double_: {
        if (!arity(1)) return nullptr;
        Type *t = arg(0);
        if (!t) return nullptr;
        // A conversion's argument has no wanted type: long(3 << 30) shifts
        // an int, as in C. Only a literal argument that cannot be an int
        // (long(2147483648), int(3 * 0x100000000 + 5)) is a long.
        if (is_literal(*e.children[1]) && needs_long(*e.children[1])) {
          adapt(*e.children[1], types_.long_t());
          t = e.children[1]->type;
        }
        if (!t->is_scalar()) {
          diags_.error(e.children[1]->loc, "cannot convert {} to {}", to_string(t), callee.text);
          return nullptr;
        }
        return b == Builtin::int_    ? types_.int_t()
               : b == Builtin::long_ ? types_.long_t()
               : b == Builtin::float_ ? types_.float_t()
                                      : types_.double_t();
      }
      case Builtin::abs_: {
        if (!arity(1)) return nullptr;
        Type *t = arg(0, want);
        if (t && !t->is_numeric()) return numeric_error(*e.children[1], callee.text, t);
        return t;
      }
      case Builtin::min_:
      case Builtin::max_:
      case Builtin::pow_: {
        if (!arity(2)) return nullptr;
        Type *a = arg(0, want), *c = arg(1, want);
        if (!a || !c) return nullptr;
        if (a != c) {
          if (is_literal(*e.children[1])) adapt(*e.children[1], c);
          if (is_literal(*e.children[2])) adapt(*e.children[2], a);
          // Either argument may be a task call: force it (FORCE).
          a = e.children[1]->type->forced();
          c = e.children[2]->type->forced();
        }
        bool need_float = b == Builtin::pow_;
        if (!(need_float ? a->is_floating() : a->is_numeric()))
          return numeric_error(*e.children[1], callee.text, a);
        if (a != c) {
          diags_.error(e.children[2]->loc, "'{}' needs two arguments of the same type, not {} and {}",
                       callee.text, to_string(a), to_string(c));
          return nullptr;
        }
        return a;
      }
      case Builtin::sqrt_:
      case Builtin::exp_:
      case Builtin::log_:
      case Builtin::sin_:
      case Builtin::cos_:
      case Builtin::floor_: {
        if (!arity(1)) return nullptr;
        Type *t = arg(0);
        if (t && !t->is_floating()) {
          diags_.error(e.children[1]->loc, "'{}' takes a float or double, not {}", callee.text,
                       to_string(t));
          return nullptr;
        }
        return t;
      }
      case Builtin::length_: {
        if (!arity(1)) return nullptr;
        Type *t = arg(0);
        if (t && t->kind != TypeKind::Array && t->kind != TypeKind::Range) {
          diags_.error(e.children[1]->loc, "'length' takes an array or a range, not {}",
                       to_string(t));
          return nullptr;
        }
        return t ? types_.int_t() : nullptr;
      }
      case Builtin::atomic_add_:
      case Builtin::atomic_min_:
      case Builtin::atomic_max_:
      case Builtin::atomic_cas_: {
        size_t n = b == Builtin::atomic_cas_ ? 3 : 2;
        if (!arity(n)) return nullptr;
        Expr &target = *e.children[1];
        Type *t = arg(0);
        if (!t) return nullptr;
        if (target.kind != ExprKind::Index || !t->is_integer()) {
          diags_.error(target.loc, "'{}' needs an element of an int or long array, like a[i]",
                       callee.text);
          return nullptr;
        }
        for (size_t i = 1; i < n; ++i) {
          Type *v = arg(i, t);
          if (v && v != t) {
            diags_.error(e.children[i + 1]->loc, "'{}' on a {} element needs a {} value, not {}",
                         callee.text, to_string(t), to_string(t), to_string(v));
            return nullptr;
          }
          if (!v) return nullptr;
        }
        return t;
      }
      case Builtin::hash_: {
        if (!arity(1)) return nullptr;
        Type *t = arg(0, types_.long_t());
        if (t && t != types_.long_t()) {
          diags_.error(e.children[1]->loc, "'hash' takes a long, not {}", to_string(t));
          return nullptr;
        }
        return types_.long_t();
      }
    }
    return nullptr;
  }

  Type *numeric_error(Expr &a, const std::string &fn, Type *t) {
    diags_.error(a.loc, "'{}' takes a number, not {}", fn, to_string(t));
    return nullptr;
  }

  Type *check_unary(Expr &e, Type *want) {
    Type *t = value_of(*e.children[0], want);
    if (!t) return nullptr;
    switch (e.unop) {
      case UnaryOp::Neg:
        if (t->is_numeric()) return t;
        break;
      case UnaryOp::Not:
        if (t->kind == TypeKind::Bool) return t;
        break;
      case UnaryOp::BitNot:
        if (t->is_integer()) return t;
        break;
    }
    diags_.error(e.loc, "operator '{}' cannot be applied to {}", spelling(e.unop), to_string(t));
    return nullptr;
  }

  Type *check_binary(Expr &e, Type *want) {
    BinaryOp op = e.binop;
    bool logical = op == BinaryOp::And || op == BinaryOp::Or;
    bool compare = op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt ||
                   op == BinaryOp::Ge || op == BinaryOp::Eq || op == BinaryOp::Ne;
    bool shift = op == BinaryOp::Shl || op == BinaryOp::Shr;
    Type *operand_want = (logical || compare || shift) ? nullptr : want;
    Expr &l = *e.children[0], &r = *e.children[1];
    Type *a = value_of(l, logical ? types_.bool_t() : operand_want);
    Type *b = value_of(r, logical ? types_.bool_t() : shift ? nullptr : operand_want);
    if (!a || !b) return nullptr;
    if (!shift && a != b) {
      // The literal side takes the other side's type (both may be literals:
      // `596 + 5L`); adapt only widens, so at most one side changes.
      if (is_literal(l)) adapt(l, b);
      if (is_literal(r)) adapt(r, a);
      a = l.type->forced();
      b = r.type->forced();
    }
    auto bad = [&]() -> Type * {
      diags_.error(e.loc, "operator '{}' cannot be applied to {} and {}", spelling(op),
                   to_string(a), to_string(b));
      precedence_note(e);
      return nullptr;
    };
    if (logical) return a->kind == TypeKind::Bool && b->kind == TypeKind::Bool ? a : bad();
    if (shift) return a->is_integer() && b->is_integer() ? a : bad();
    if (a != b) return bad();
    if (compare) {
      bool eq = op == BinaryOp::Eq || op == BinaryOp::Ne;
      return (a->is_numeric() || (eq && a->kind == TypeKind::Bool)) ? types_.bool_t() : bad();
    }
    switch (op) {
      case BinaryOp::Add:
      case BinaryOp::Sub:
      case BinaryOp::Mul:
      case BinaryOp::Div: return a->is_numeric() ? a : bad();
      case BinaryOp::Mod: return a->is_integer() ? a : bad();
      case BinaryOp::BitAnd:
      case BinaryOp::BitOr:
      case BinaryOp::BitXor:
        return (a->is_integer() || a->kind == TypeKind::Bool) ? a : bad();
      case BinaryOp::Shl:
      case BinaryOp::Shr:
      case BinaryOp::Lt:
      case BinaryOp::Le:
      case BinaryOp::Gt:
      case BinaryOp::Ge:
      case BinaryOp::Eq:
      case BinaryOp::Ne:
      case BinaryOp::And:
      case BinaryOp::Or: return bad();  // answered above
    }
    return bad();
  }

  // After a type error at `n & 1 == 0`: C's precedence, which Kite keeps,
  // reads it as `n & (1 == 0)`; a note suggests the parentheses meant.
  void precedence_note(const Expr &e) {
    auto comparison = [](const Expr &x) {
      if (x.kind != ExprKind::Binary || x.in_parens) return false;
      switch (x.binop) {
        case BinaryOp::Lt:
        case BinaryOp::Le:
        case BinaryOp::Gt:
        case BinaryOp::Ge:
        case BinaryOp::Eq:
        case BinaryOp::Ne: return true;
        default: return false;
      }
    };
    if (e.binop != BinaryOp::BitAnd && e.binop != BinaryOp::BitOr && e.binop != BinaryOp::BitXor)
      return;
    const Expr &l = *e.children[0], &r = *e.children[1];
    std::string op = spelling(e.binop);
    std::string meant;
    const char *cmp = nullptr;
    if (comparison(r)) {
      cmp = spelling(r.binop);
      meant = fmt::format("({} {} {}) {} {}", to_kite(l), op, to_kite(*r.children[0]), cmp,
                          to_kite(*r.children[1]));
    } else if (comparison(l)) {
      cmp = spelling(l.binop);
      meant = fmt::format("{} {} ({} {} {})", to_kite(*l.children[0]), cmp, to_kite(*l.children[1]),
                          op, to_kite(r));
    } else {
      return;
    }
    diags_.note(e.loc, fmt::format("'{}' binds more tightly than '{}' (as in C): write '{}' if "
                                   "that is what was meant",
                                   cmp, op, meant));
  }

  Program &program_;
  TypeContext &types_;
  Diagnostics &diags_;
  std::map<std::string, SourceLoc> globals_;
  std::map<std::string, TaskDecl *> tasks_;
  std::map<std::string, ValueDecl *> values_;
  std::vector<std::map<std::string, VarDecl *>> scopes_;
  TaskDecl *task_ = nullptr;
  bool in_constant_ = false;  // checking a top-level value
  std::map<std::string, ValueDecl *> value_decls_;  // every top-level value, by name
  std::vector<ValueDecl *> value_stack_;  // the top-level values being checked, innermost last
  std::set<ValueDecl *> values_checked_;
  std::vector<ValueDecl *> value_order_;  // in the order checked
  int loop_depth_ = 0;
  std::vector<std::set<VarDecl *>> map_locals_;  // variables declared in each enclosing map body
  std::set<VarDecl *> loop_indices_;  // the index variables written in for and map loops
  std::map<std::string, StructDecl *> structs_;
  std::vector<Expr *> int_literals_;  // unsuffixed integer literals, in the order checked
  std::set<Expr *> int_literals_seen_;
  // The anonymous tasks being checked, innermost last, with the number of
  // scopes that belong to the tasks around each.
  struct Frame {
    TaskDecl *task;
    size_t scope_base;
  };
  std::vector<Frame> frames_;
  // The named tasks declared in task bodies being checked, innermost last:
  // inside its body, a task's name is the task (self_named).
  std::vector<SelfName> selves_;
  // Each use of a task's own name from a task inside it, with the tasks
  // between the two (innermost last).
  std::vector<std::pair<TaskDecl *, std::vector<TaskDecl *>>> self_uses_;
  std::map<std::string, std::vector<std::pair<std::string, Type *>>> fields_;
};

}  // namespace

bool find_builtin(const std::string &name, Builtin *out) {
  for (size_t i = 0; i < sizeof(kBuiltinNames) / sizeof(kBuiltinNames[0]); ++i) {
    if (name == kBuiltinNames[i]) {
      *out = Builtin(i);
      return true;
    }
  }
  return false;
}

const char *builtin_name(Builtin b) { return kBuiltinNames[int(b)]; }
bool builtin_is_atomic(Builtin b) { return kBuiltinAtomic[int(b)]; }

bool builtin_only_computes(Builtin b) {
  switch (b) {
    case Builtin::int_:
    case Builtin::long_:
    case Builtin::float_:
    case Builtin::double_:
    case Builtin::abs_:
    case Builtin::min_:
    case Builtin::max_:
    case Builtin::sqrt_:
    case Builtin::exp_:
    case Builtin::log_:
    case Builtin::sin_:
    case Builtin::cos_:
    case Builtin::floor_:
    case Builtin::pow_:
    case Builtin::hash_: return true;
    default: return false;
  }
}

bool only_computes(const ast::Expr &e, const std::function<bool(const ast::Expr &)> &name_ok) {
  auto all = [&](auto first, auto last) {
    return std::all_of(first, last,
                       [&](const ast::ExprPtr &c) { return only_computes(*c, name_ok); });
  };
  switch (e.kind) {
    case ast::ExprKind::IntLit:
    case ast::ExprKind::FloatLit:
    case ast::ExprKind::BoolLit: return true;
    case ast::ExprKind::Name: return name_ok(e);
    case ast::ExprKind::Unary:
    case ast::ExprKind::Binary: return all(e.children.begin(), e.children.end());
    case ast::ExprKind::Call:
      if (e.children[0]->kind != ast::ExprKind::Name || e.children[0]->builtin < 0 ||
          !builtin_only_computes(Builtin(e.children[0]->builtin)))
        return false;
      return all(e.children.begin() + 1, e.children.end());
    default: return false;
  }
}

void check(ast::Program &program, TypeContext &types, Diagnostics &diags) {
  Checker(program, types, diags).run();
  diags.check_no_errors();
}

}  // namespace kite
