// Checked AST -> the interpreter's code (code.h).
//
// Every variable gets a slot in its task's frame: parameters first, then an
// anonymous task's captures, then the rest as they are met. Task calls
// inside expressions are moved out in front of the statement, into
// temporaries, in the order ir/anf.cpp moves them (callee and arguments
// first, left to right; the calls of `a && f(x)`'s right side only when it
// is needed), so a statement's calls and errors happen in kite-run's order.
#include <fmt/format.h>

#include <unordered_map>

#include "frontend/builtins.h"
#include "frontend/diagnostics.h"
#include "interp/code.h"

namespace kite::interp {

Kind kind_of(Type *t) {
  switch (t->forced()->kind) {
    case TypeKind::Int:
      return Kind::Int;
    case TypeKind::Long:
      return Kind::Long;
    case TypeKind::Float:
      return Kind::Float;
    case TypeKind::Double:
      return Kind::Double;
    case TypeKind::Bool:
      return Kind::Bool;
    case TypeKind::Range:
      return Kind::Range;
    case TypeKind::Unit:
    case TypeKind::String:
    case TypeKind::Future:
    case TypeKind::Task:
    case TypeKind::Array:
    case TypeKind::Tuple:
    case TypeKind::Struct:
    case TypeKind::Union:
      return Kind::Ref;
  }
  return Kind::Ref;
}

Elem elem_of(Type *t) {
  switch (t->forced()->kind) {
    case TypeKind::Int:
    case TypeKind::Bool:
      return Elem::I32;
    case TypeKind::Float:
      return Elem::F32;
    case TypeKind::Long:
    case TypeKind::Double:
    case TypeKind::Unit:
    case TypeKind::String:
    case TypeKind::Future:
    case TypeKind::Task:
    case TypeKind::Array:
    case TypeKind::Range:
    case TypeKind::Tuple:
    case TypeKind::Struct:
    case TypeKind::Union:
      return Elem::W64;
  }
  return Elem::W64;
}

namespace {

using namespace ast;

class Compiler {
 public:
  explicit Compiler(const Program &program) : program_(program), out_(new ProgramCode) {}

  std::unique_ptr<ProgramCode> run() {
    for (auto &s : program_.structs) structs_[s->name] = s.get();
    out_->tasks.resize(program_.tasks.size());
    for (auto &t : program_.tasks) {
      auto code = std::make_unique<TaskCode>();
      code->decl = t.get();
      code->self.task = code.get();
      out_->tasks[t->id] = std::move(code);
    }
    // Constants: no variables, no calls (the checker allows neither).
    for (auto &v : program_.values) {
      constant_ids_[v.get()] = int(out_->constants.size());
      out_->constants.emplace_back();
    }
    for (auto &v : program_.values) {
      List none;
      if (v->init && v->checked_type)
        out_->constants[constant_ids_[v.get()]].init = expr(*v->init, none);
    }
    for (auto &t : program_.tasks) compile_task(*t);
    for (auto &t : program_.tasks)
      if (t.get() == program_.main) out_->main = out_->tasks[t->id].get();
    if (!out_->main) internal_error("the interpreter was given a program without main");
    return std::move(out_);
  }

 private:
  // --- Tasks and slots ---------------------------------------------------

  void compile_task(const TaskDecl &t) {
    task_ = out_->tasks[t.id].get();
    slots_.clear();
    captured_.clear();
    for (VarDecl *p : t.param_vars) slot_of(p);
    task_->params = int(t.param_vars.size());
    for (VarDecl *c : t.captures) {
      slot_of(c);
      captured_[c] = true;
    }
    task_->captures = int(t.captures.size());
    list(t.body, task_->body);
    task_ = nullptr;
  }

  int slot_of(const VarDecl *v) {
    auto [it, added] = slots_.emplace(v, task_->slots);
    if (added) ++task_->slots;
    return it->second;
  }

  int temp() { return task_->slots++; }

  Node *node(Op op, SourceLoc loc) {
    Node &n = out_->nodes.emplace_back();
    n.op = op;
    n.loc = loc;
    return &n;
  }

  Code *code(CodeOp op, SourceLoc loc) {
    Code &c = out_->codes.emplace_back();
    c.op = op;
    c.loc = loc;
    return &c;
  }

  // How a run-time error names e's child i if it is null (the checker's
  // Expr::null_names), or null.
  static const std::string *null_name(const Expr &e, size_t i) {
    return i < e.null_names.size() ? &e.null_names[i] : nullptr;
  }

  // --- What --races checks ----------------------------------------------

  const Site *site(SourceLoc loc, Access access, std::string what) {
    Site &s = out_->sites.emplace_back();
    s.loc = loc;
    s.access = access;
    s.what = std::move(what);
    return &s;
  }

  // How a report names the array or struct `e` reaches: `a`, `p.q`,
  // `m[...]`; "" for anything else (a call's result, a new array).
  static std::string name_of(const Expr &e) {
    if (e.kind == ExprKind::Name) return e.text;
    if (e.kind != ExprKind::Field && e.kind != ExprKind::Index) return "";
    std::string base = name_of(*e.children[0]);
    if (base.empty()) return "";
    return e.kind == ExprKind::Field ? base + "." + e.text : base + "[...]";
  }

  static std::string element_of(const Expr &array) {
    std::string name = name_of(array);
    return name.empty() ? "an element of an array" : fmt::format("an element of '{}'", name);
  }

  static std::string field_of(const Expr &record, const std::string &field) {
    std::string name = name_of(record);
    return name.empty() ? fmt::format("field '{}' of a struct", field)
                        : fmt::format("field '{}' of '{}'", field, name);
  }

  // A loop's element variable `x` stands for an element of its collection.
  static std::string element_alias(const VarDecl &x, const Stmt &loop) {
    std::string name = name_of(*loop.expr);
    return name.empty() ? fmt::format("'{}', an element of the loop's array", x.name)
                        : fmt::format("an element of '{}' (as '{}')", name, x.name);
  }

  const Node *local(int slot, SourceLoc loc) {
    Node *n = node(Op::Local, loc);
    n->slot = slot;
    return n;
  }

  // Reading variable v in the current task: its slot, or for a loop's
  // element variable the element it aliases. A captured element variable
  // is a copy, made with the closure.
  const Node *read_var(const VarDecl *v, SourceLoc loc) {
    if (const Stmt *loop = v->alias_of; loop && !captured_.count(v)) {
      bool range = loop->coll_var->type->kind == TypeKind::Range;
      Node *n = node(range ? Op::AliasRange : Op::AliasElem, loop->loc);
      n->slot = slot_of(loop->coll_var.get());
      n->slot2 = slot_of(loop->index_var.get());
      n->elem = elem_of(v->type);
      if (!range) n->site = site(loc, Access::Read, element_alias(*v, *loop));
      return n;
    }
    return local(slot_of(v), loc);
  }

  // --- Statements --------------------------------------------------------

  void list(const StmtList &stmts, List &out) {
    for (auto &s : stmts) stmt(*s, out);
  }

  void stmt(const Stmt &s, List &out) {
    switch (s.kind) {
      case StmtKind::ExprStmt: {
        const Expr &e = *s.expr;
        if (is_task_call(e)) {
          out.push_back(call(e, out, -1, CodeOp::Call));
        } else if (e.kind == ExprKind::Call && e.children[0]->builtin == int(Builtin::print_)) {
          out.push_back(print(e, out));
        } else {
          Code *c = code(CodeOp::Eval, s.loc);
          c->e = expr(e, out);
          out.push_back(c);
        }
        return;
      }
      case StmtKind::Decl: {
        Code *c = code(CodeOp::Decl, s.loc);
        for (auto &v : s.vars) c->slots.push_back(slot_of(v.get()));
        if (s.expr && is_task_call(*s.expr)) {
          // x = f(a): the arguments, the declaration, then the call.
          Code *call_code = call(*s.expr, out, c->slots[0], CodeOp::Call);
          out.push_back(c);
          out.push_back(call_code);
          return;
        }
        if (s.expr) c->e = expr(*s.expr, out);
        out.push_back(c);
        return;
      }
      case StmtKind::Assign:
        assign(s, out);
        return;
      case StmtKind::Return: {
        if (s.expr && is_task_call(*s.expr)) {
          out.push_back(call(*s.expr, out, -1, CodeOp::TailCall));
          return;
        }
        Code *c = code(CodeOp::Return, s.loc);
        if (s.expr) c->e = expr(*s.expr, out);
        out.push_back(c);
        return;
      }
      case StmtKind::Then: {
        // Kept as one statement for --races: what it orders is its own.
        Code *c = code(CodeOp::Then, s.loc);
        list(s.body, c->body);
        list(s.else_body, c->other);
        out.push_back(c);
        return;
      }
      case StmtKind::Block:
        list(s.body, out);
        return;
      case StmtKind::If: {
        Code *c = code(CodeOp::If, s.loc);
        c->e = expr(*s.expr, out);
        list(s.body, c->body);
        list(s.else_body, c->other);
        out.push_back(c);
        return;
      }
      case StmtKind::Case: {
        Code *c = code(CodeOp::Case, s.loc);
        c->e = expr(*s.expr, out);
        c->null_name = &s.null_name;
        for (const CaseBranch &b : s.branches) {
          Arm arm;
          arm.field = b.field.empty() ? -1 : b.field_index;
          if (b.binder_var) arm.binder = slot_of(b.binder_var);
          list(b.body, arm.body);
          c->arms.push_back(std::move(arm));
        }
        out.push_back(c);
        return;
      }
      case StmtKind::For:
      case StmtKind::Map: {
        Code *c = code(s.kind == StmtKind::For ? CodeOp::For : CodeOp::Map, s.loc);
        c->e = expr(*s.expr, out);
        c->slot = slot_of(s.coll_var.get());
        c->slot2 = slot_of(s.index_var.get());
        c->is_range = s.coll_var->type->kind == TypeKind::Range;
        list(s.body, c->body);
        out.push_back(c);
        return;
      }
      case StmtKind::While: {
        Code *c = code(CodeOp::While, s.loc);
        c->e = expr(*s.expr, c->other);
        list(s.body, c->body);
        out.push_back(c);
        return;
      }
    }
    internal_error("statement kind unknown to the interpreter");
  }

  void assign(const Stmt &s, List &out) {
    const Expr &target = *s.target;
    if (target.kind == ExprKind::Name) {
      const VarDecl *v = target.var;
      if (v->alias_of && !captured_.count(v)) {
        const Stmt *loop = v->alias_of;
        Code *c = code(CodeOp::SetAlias, loop->loc);
        c->e = expr(*s.expr, out);
        c->slot = slot_of(loop->coll_var.get());
        c->slot2 = slot_of(loop->index_var.get());
        c->elem = elem_of(v->type);
        c->site = site(target.loc, Access::Write, element_alias(*v, *loop));
        out.push_back(c);
        return;
      }
      if (is_task_call(*s.expr)) {
        out.push_back(call(*s.expr, out, slot_of(v), CodeOp::Call));
        return;
      }
      Code *c = code(CodeOp::Set, s.loc);
      c->e = expr(*s.expr, out);
      c->slot = slot_of(v);
      out.push_back(c);
      return;
    }
    // a[i] <- e and r.x <- e: e first, then the target's parts.
    Code *c =
        code(target.kind == ExprKind::Index ? CodeOp::SetIndex : CodeOp::SetField, target.loc);
    c->e = expr(*s.expr, out);
    c->a = expr(*target.children[0], out);
    if (target.kind == ExprKind::Index) {
      c->b = expr(*target.children[1], out);
      c->elem = elem_of(target.type);
      c->site = site(target.loc, Access::Write, element_of(*target.children[0]));
    } else {
      c->slot = target.field;
      c->site = site(target.loc, Access::Write, field_of(*target.children[0], target.text));
      c->null_name = null_name(target, 0);
    }
    out.push_back(c);
  }

  // A task call; its callee and arguments' own calls go to `out` first.
  Code *call(const Expr &e, List &out, int result_slot, CodeOp op) {
    Code *c = code(op, e.loc);
    const Expr &callee = *e.children[0];
    if (callee.kind == ExprKind::Name && callee.task && !callee.var) {
      c->task = out_->tasks[callee.task->id].get();
    } else {
      c->e = expr(callee, out);
      c->null_name = null_name(e, 0);
    }
    for (size_t i = 1; i < e.children.size(); ++i) c->args.push_back(expr(*e.children[i], out));
    c->slot = result_slot;
    return c;
  }

  Code *print(const Expr &e, List &out) {
    Code *c = code(CodeOp::Print, e.loc);
    for (size_t i = 1; i < e.children.size(); ++i) {
      const Expr &a = *e.children[i];
      c->null_names.push_back(null_name(e, i));
      if (a.kind == ExprKind::StringLit) {
        c->strings.push_back(int(out_->strings.size()));
        out_->strings.push_back(a.text);
        c->args.push_back(nullptr);
        c->types.push_back(nullptr);
        c->sites.push_back(nullptr);
        continue;
      }
      c->strings.push_back(-1);
      c->args.push_back(expr(a, out));
      c->types.push_back(a.type->forced());
      // An array is printed element by element: each is read.
      bool array = a.type->forced()->kind == TypeKind::Array;
      c->sites.push_back(array ? site(a.loc, Access::Read, element_of(a)) : nullptr);
    }
    return c;
  }

  // --- Expressions -------------------------------------------------------

  const Node *expr(const Expr &e, List &out) {
    if (is_task_call(e)) {
      if (!task_) internal_error("a task call outside a task");
      int t = temp();
      Code *c = call(e, out, t, CodeOp::Call);
      c->to_temp = true;
      out.push_back(c);
      return local(t, e.loc);
    }
    if (e.kind == ExprKind::Binary && (e.binop == BinaryOp::And || e.binop == BinaryOp::Or) &&
        contains_task_call(*e.children[1])) {
      // t = left; if (t) { t = right }  (if (!t) for ||).
      int t = temp();
      Code *first = code(CodeOp::Set, e.loc);
      first->e = expr(*e.children[0], out);
      first->slot = t;
      out.push_back(first);
      Code *branch = code(CodeOp::If, e.loc);
      if (e.binop == BinaryOp::And) {
        branch->e = local(t, e.loc);
      } else {
        Node *n = node(Op::Not, e.loc);
        n->a = local(t, e.loc);
        branch->e = n;
      }
      Code *second = code(CodeOp::Set, e.loc);
      second->e = expr(*e.children[1], branch->body);
      second->slot = t;
      branch->body.push_back(second);
      out.push_back(branch);
      return local(t, e.loc);
    }
    switch (e.kind) {
      case ExprKind::IntLit: {
        Node *n = node(Op::Const, e.loc);
        n->imm = e.is_long ? of_long(e.int_value)
                           : of_int(static_cast<int32_t>(static_cast<uint32_t>(e.int_value)));
        return n;
      }
      case ExprKind::FloatLit: {
        Node *n = node(Op::Const, e.loc);
        n->imm =
            e.is_float32 ? of_float(static_cast<float>(e.float_value)) : of_double(e.float_value);
        return n;
      }
      case ExprKind::BoolLit: {
        Node *n = node(Op::Const, e.loc);
        n->imm = of_long(e.bool_value ? 1 : 0);
        return n;
      }
      case ExprKind::Name: {
        if (e.var) return read_var(e.var, e.loc);
        if (e.global) {
          Node *n = node(Op::Global, e.loc);
          n->slot = constant_ids_.at(e.global);
          return n;
        }
        if (e.task) {
          Node *n = node(Op::TaskValue, e.loc);
          n->task = out_->tasks[e.task->id].get();
          return n;
        }
        internal_error("unresolved name " + e.text);
      }
      case ExprKind::AnonTask: {
        Node *n = node(Op::MakeClosure, e.loc);
        n->task = out_->tasks[e.task->id].get();
        for (VarDecl *c : e.task->captures) n->list.push_back(read_var(c, e.loc));
        return n;
      }
      case ExprKind::Unary:
        return unary(e, out);
      case ExprKind::Binary:
        return binary(e, out);
      case ExprKind::Call:
        return builtin(e, out);
      case ExprKind::Field: {
        Node *n = node(Op::Field, e.loc);
        n->a = expr(*e.children[0], out);
        n->slot = e.field;
        n->null_name = null_name(e, 0);
        // A tuple's members and a union's value never change: only a
        // struct's fields can race.
        if (e.children[0]->type->forced()->kind == TypeKind::Struct)
          n->site = site(e.loc, Access::Read, field_of(*e.children[0], e.text));
        return n;
      }
      case ExprKind::Index: {
        Node *n = node(Op::Index, e.loc);
        n->a = expr(*e.children[0], out);
        n->b = expr(*e.children[1], out);
        n->elem = elem_of(e.type);
        n->site = site(e.loc, Access::Read, element_of(*e.children[0]));
        return n;
      }
      case ExprKind::Tuple: {
        Node *n = node(Op::Tuple, e.loc);
        for (auto &m : e.children) n->list.push_back(expr(*m, out));
        return n;
      }
      case ExprKind::Construct:
        return construct(e, out);
      case ExprKind::New: {
        Node *n = node(Op::New, e.loc);
        n->a = expr(*e.children[0], out);
        n->elem = elem_of(e.type->forced()->elem);
        return n;
      }
      case ExprKind::Range: {
        Node *n = node(Op::Range, e.loc);
        n->a = expr(*e.children[0], out);
        n->b = expr(*e.children[1], out);
        return n;
      }
      case ExprKind::StringLit:
      case ExprKind::Future:
        break;  // print's arguments; a call after checking
    }
    internal_error("expression kind unknown to the interpreter");
  }

  const Node *construct(const Expr &e, List &out) {
    Type *t = e.type->forced();
    const StructDecl *sd = structs_.at(t->name);
    // The values in the order written (their calls move out in that order),
    // placed by field.
    std::vector<const Node *> values(sd->fields.size(), nullptr);
    int given = -1;
    for (const FieldInit &f : e.fields) {
      for (size_t k = 0; k < sd->fields.size(); ++k) {
        if (sd->fields[k].name != f.name) continue;
        values[k] = expr(*f.value, out);
        given = int(k);
      }
    }
    if (t->kind == TypeKind::Union) {
      Node *n = node(Op::Union, e.loc);
      n->slot = given;
      n->a = values[given];
      return n;
    }
    Node *n = node(Op::Struct, e.loc);
    n->list = std::move(values);
    return n;
  }

  const Node *unary(const Expr &e, List &out) {
    Kind k = kind_of(e.children[0]->type);
    Op op = Op::Not;
    switch (e.unop) {
      case UnaryOp::Neg:
        op = k == Kind::Int     ? Op::NegI
             : k == Kind::Long  ? Op::NegL
             : k == Kind::Float ? Op::NegF
                                : Op::NegD;
        break;
      case UnaryOp::Not:
        op = Op::Not;
        break;
      case UnaryOp::BitNot:
        op = Op::BitNot;
        break;
    }
    Node *n = node(op, e.loc);
    n->a = expr(*e.children[0], out);
    return n;
  }

  // The op for kind k among the int/long/float/double variants.
  static Op by_kind(Kind k, Op i, Op l, Op f, Op d) {
    switch (k) {
      case Kind::Int:
        return i;
      case Kind::Float:
        return f;
      case Kind::Double:
        return d;
      default:
        return l;
    }
  }

  const Node *binary(const Expr &e, List &out) {
    Kind k = kind_of(e.children[0]->type);
    Op op = Op::AddI;
    switch (e.binop) {
      case BinaryOp::Add:
        op = by_kind(k, Op::AddI, Op::AddL, Op::AddF, Op::AddD);
        break;
      case BinaryOp::Sub:
        op = by_kind(k, Op::SubI, Op::SubL, Op::SubF, Op::SubD);
        break;
      case BinaryOp::Mul:
        op = by_kind(k, Op::MulI, Op::MulL, Op::MulF, Op::MulD);
        break;
      case BinaryOp::Div:
        op = by_kind(k, Op::DivI, Op::DivL, Op::DivF, Op::DivD);
        break;
      case BinaryOp::Mod:
        op = by_kind(k, Op::ModI, Op::ModL, Op::ModL, Op::ModL);
        break;
      case BinaryOp::Shl:
        op = k == Kind::Int ? Op::ShlI : Op::ShlL;
        break;
      case BinaryOp::Shr:
        op = k == Kind::Int ? Op::ShrI : Op::ShrL;
        break;
      case BinaryOp::BitAnd:
        op = Op::BitAnd;
        break;
      case BinaryOp::BitOr:
        op = Op::BitOr;
        break;
      case BinaryOp::BitXor:
        op = Op::BitXor;
        break;
      case BinaryOp::Lt:
        op = by_kind(k, Op::LtL, Op::LtL, Op::LtF, Op::LtD);
        break;
      case BinaryOp::Le:
        op = by_kind(k, Op::LeL, Op::LeL, Op::LeF, Op::LeD);
        break;
      case BinaryOp::Gt:
        op = by_kind(k, Op::GtL, Op::GtL, Op::GtF, Op::GtD);
        break;
      case BinaryOp::Ge:
        op = by_kind(k, Op::GeL, Op::GeL, Op::GeF, Op::GeD);
        break;
      case BinaryOp::Eq:
        op = by_kind(k, Op::EqL, Op::EqL, Op::EqF, Op::EqD);
        break;
      case BinaryOp::Ne:
        op = by_kind(k, Op::NeL, Op::NeL, Op::NeF, Op::NeD);
        break;
      case BinaryOp::And:
        op = Op::And;
        break;
      case BinaryOp::Or:
        op = Op::Or;
        break;
    }
    // Ops on kinds the checker does not allow never arise (a % on doubles).
    Node *n = node(op, e.loc);
    n->a = expr(*e.children[0], out);
    n->b = expr(*e.children[1], out);
    return n;
  }

  const Node *builtin(const Expr &e, List &out) {
    Builtin b = Builtin(e.children[0]->builtin);
    Kind t = kind_of(e.type);
    auto arg_kind = [&](size_t i) { return kind_of(e.children[i + 1]->type); };
    auto with_args = [&](Op op, size_t from = 0) {
      Node *n = node(op, e.loc);
      const Node **slots[] = {&n->a, &n->b, &n->c, &n->d};
      for (size_t i = from + 1; i < e.children.size(); ++i)
        *slots[i - 1 - from] = expr(*e.children[i], out);
      return n;
    };
    auto fp = [&](Op f, Op d) { return with_args(t == Kind::Float ? f : d); };
    switch (b) {
      case Builtin::int_:
      case Builtin::long_:
      case Builtin::float_:
      case Builtin::double_: {
        Node *n = with_args(Op::Convert);
        n->from = arg_kind(0);
        n->to = t;
        return n;
      }
      case Builtin::abs_:
        return with_args(by_kind(t, Op::AbsI, Op::AbsL, Op::AbsF, Op::AbsD));
      case Builtin::min_:
        return with_args(by_kind(t, Op::MinL, Op::MinL, Op::MinF, Op::MinD));
      case Builtin::max_:
        return with_args(by_kind(t, Op::MaxL, Op::MaxL, Op::MaxF, Op::MaxD));
      case Builtin::pow_:
        return fp(Op::PowF, Op::PowD);
      case Builtin::sqrt_:
        return fp(Op::SqrtF, Op::SqrtD);
      case Builtin::exp_:
        return fp(Op::ExpF, Op::ExpD);
      case Builtin::log_:
        return fp(Op::LogF, Op::LogD);
      case Builtin::sin_:
        return fp(Op::SinF, Op::SinD);
      case Builtin::cos_:
        return fp(Op::CosF, Op::CosD);
      case Builtin::floor_:
        return fp(Op::FloorF, Op::FloorD);
      case Builtin::hash_:
        return with_args(Op::Hash);
      case Builtin::length_:
        return with_args(arg_kind(0) == Kind::Range ? Op::LengthRange : Op::LengthArray);
      case Builtin::atomic_add_:
      case Builtin::atomic_min_:
      case Builtin::atomic_max_:
      case Builtin::atomic_cas_: {
        // a[i] as its array and index, then the values; errors at a[i].
        const Expr &element = *e.children[1];
        Op op = b == Builtin::atomic_add_   ? Op::AtomicAdd
                : b == Builtin::atomic_min_ ? Op::AtomicMin
                : b == Builtin::atomic_max_ ? Op::AtomicMax
                                            : Op::AtomicCas;
        Node *n = node(op, element.loc);
        n->a = expr(*element.children[0], out);
        n->b = expr(*element.children[1], out);
        n->c = expr(*e.children[2], out);
        if (op == Op::AtomicCas) n->d = expr(*e.children[3], out);
        n->elem = elem_of(element.type);
        n->site = site(element.loc, Access::Atomic, element_of(*element.children[0]));
        return n;
      }
      case Builtin::print_:
        break;
    }
    internal_error("print used as a value");
  }

  const Program &program_;
  std::unique_ptr<ProgramCode> out_;
  TaskCode *task_ = nullptr;
  std::unordered_map<const VarDecl *, int> slots_;
  std::unordered_map<const VarDecl *, bool> captured_;
  std::unordered_map<const ValueDecl *, int> constant_ids_;
  std::map<std::string, const StructDecl *> structs_;
};

}  // namespace

std::unique_ptr<ProgramCode> compile(const ast::Program &program) {
  return Compiler(program).run();
}

}  // namespace kite::interp
