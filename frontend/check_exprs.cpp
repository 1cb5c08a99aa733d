// Expressions: names, task calls (APP) and forcing (FORCE), operators,
// anonymous tasks and their captures. See checker.h.
#include <algorithm>
#include <set>

#include "frontend/checker.h"

namespace kite::checking {

using namespace ast;

// Types e and forces it (FORCE): the type of the value e stands for.
Type *Checker::value_of(Expr &e, Type *want) {
  Type *t = check_expr(e, want);
  return t ? t->forced() : nullptr;
}

Type *Checker::check_expr(Expr &e, Type *want) {
  e.type = check_expr_inner(e, want);
  if (e.type) adapt(e, want);
  return e.type;
}

Type *Checker::check_expr_inner(Expr &e, Type *want) {
  switch (e.kind) {
    case ExprKind::IntLit:
      if (e.is_long) return types_.long_t();
      if (int_literals_seen_.insert(&e).second) int_literals_.push_back(&e);
      return types_.int_t();
    case ExprKind::FloatLit:
      return e.is_float32 ? types_.float_t() : types_.double_t();
    case ExprKind::BoolLit:
      return types_.bool_t();
    case ExprKind::StringLit:
      diags_.error(e.loc, "a string literal can only be an argument of print");
      return nullptr;
    case ExprKind::Name:
      return check_name(e);
    case ExprKind::Call:
      return check_call(e, want);
    case ExprKind::Unary:
      return check_unary(e, want);
    case ExprKind::Binary:
      return check_binary(e, want);
    case ExprKind::Field:
      return check_field(e);
    case ExprKind::Index:
      return check_index(e);
    case ExprKind::Tuple:
      return check_tuple(e);
    case ExprKind::Construct:
      return check_construct(e);
    case ExprKind::New:
      return check_new(e);
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
    case ExprKind::AnonTask:
      return check_anon(e);
    case ExprKind::Future:
      return check_future(e);
  }
  return nullptr;
}

// An anonymous task is checked where it stands, as a task of its own whose
// enclosing variables are visible (and become its captures); frontend/lift
// lifts it to the program's tasks.
Type *Checker::check_anon(Expr &e) {
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
const Checker::SelfName *Checker::self_named(const std::string &name) {
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
Type *Checker::self_reference(Expr &e, const SelfName &self) {
  e.kind = ExprKind::AnonTask;
  e.task = self.task;
  std::vector<TaskDecl *> between;
  for (size_t i = self.frame + 1; i < frames_.size(); ++i) between.push_back(frames_[i].task);
  if (!between.empty()) self_uses_.push_back({self.task, std::move(between)});
  return self.task->type;
}

// Once t's captures are known (its body is checked), the tasks inside it
// that name t capture them too, to make t's closure.
void Checker::capture_for_self_references(TaskDecl &t) {
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
Type *Checker::check_future(Expr &e) {
  Type *t = value_of(*e.children[0], nullptr);
  if (!t) return nullptr;
  if (t->kind == TypeKind::Unit) {
    diags_.error(e.loc, "'task e' needs an expression with a value");
    return nullptr;
  }
  return types_.future(t);
}

// How a run-time error names e's child i if it is null (Expr::null_names).
void Checker::name_null(Expr &e, size_t i) {
  e.null_names.resize(e.children.size());
  e.null_names[i] = null_name(*e.children[i]);
}

Type *Checker::check_field(Expr &e) {
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

Type *Checker::check_index(Expr &e) {
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

Type *Checker::check_tuple(Expr &e) {
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

Type *Checker::check_construct(Expr &e) {
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

Type *Checker::check_new(Expr &e) {
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

Type *Checker::check_name(Expr &e) {
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

Type *Checker::check_call(Expr &e, Type *want) {
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
    diags_.error(e.loc, "task '{}' takes {} argument{}, but {} {} given", t->name, t->params.size(),
                 t->params.size() == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
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

Type *Checker::check_unary(Expr &e, Type *want) {
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

Type *Checker::check_binary(Expr &e, Type *want) {
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
    diags_.error(e.loc, "operator '{}' cannot be applied to {} and {}", spelling(op), to_string(a),
                 to_string(b));
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
    case BinaryOp::Div:
      return a->is_numeric() ? a : bad();
    case BinaryOp::Mod:
      return a->is_integer() ? a : bad();
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
    case BinaryOp::Or:
      return bad();  // answered above
  }
  return bad();
}

// After a type error at `n & 1 == 0`: C's precedence, which Kite keeps,
// reads it as `n & (1 == 0)`; a note suggests the parentheses meant.
void Checker::precedence_note(const Expr &e) {
  auto comparison = [](const Expr &x) {
    if (x.kind != ExprKind::Binary || x.in_parens) return false;
    switch (x.binop) {
      case BinaryOp::Lt:
      case BinaryOp::Le:
      case BinaryOp::Gt:
      case BinaryOp::Ge:
      case BinaryOp::Eq:
      case BinaryOp::Ne:
        return true;
      default:
        return false;
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

}  // namespace kite::checking
