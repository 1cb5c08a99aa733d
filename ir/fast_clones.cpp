// Sequential forms: the pass that finds the tasks that have one
// (fast_clones.h).
#include "ir/fast_clones.h"

#include <algorithm>
#include <set>

#include "frontend/builtins.h"
#include "ir/effects.h"

namespace kite::fast_clones {

using anf::Stmt;
using anf::StmtKind;
using ast::Expr;
using ast::ExprKind;

namespace {

// Where a reason for no form stands: "line 12:3: ".
std::string at(SourceLoc loc) {
  return "line " + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ": ";
}

// A type as an error message names it.
std::string type_name(const Type *t) { return "`" + to_string(t) + "`"; }

// The values a sequential form holds: scalars, and references to arrays,
// structs, unions and tuples, which it only reads through.
bool held(const Type *t) {
  if (!t) return false;
  switch (t->kind) {
    case TypeKind::Int:
    case TypeKind::Long:
    case TypeKind::Float:
    case TypeKind::Double:
    case TypeKind::Bool:
    case TypeKind::Range:
    case TypeKind::Array:
    case TypeKind::Tuple:
    case TypeKind::Struct:
    case TypeKind::Union:
    case TypeKind::Task:  // a task value: a named task's number, or a closure
      return true;
    case TypeKind::Unit:
    case TypeKind::String:
    case TypeKind::Future:
      return false;
  }
  return false;
}

// Whether e computes from held values and constants (effects.h's
// only_reads), reading fields, elements and lengths at most: evaluated
// again, it gives the same value and fails the same way, unless another
// task writes what it reads at the same time, which the rules leave
// unordered anyway.
// Whether the names an expression reads are values a form holds, or
// top-level constants.
bool names_held(const effects::Effects &f) {
  for (const Expr *name : f.names) {
    // (A task's name as a value is its number, a constant.)
    if (name->var ? !held(name->var->type) : !name->global && !name->task) return false;
  }
  return true;
}

bool reads(const Expr &e) {
  const effects::Effects f = effects::of(e);
  return f.only_reads() && names_held(f);
}

// Whether e computes as `reads` allows, and may also make structs, unions
// and tuples on the heap (tree sum's `build`), but no array and nothing by
// an allocating built-in. A form that stops loses what it made (garbage
// until the run ends); one that runs out of heap reports it as the task
// form does.
bool builds(const Expr &e) {
  const effects::Effects f = effects::of(e);
  if (f.calls || f.makes_tasks || f.prints || f.writes) return false;
  bool ok = true;
  ast::for_each_expr(e, [&](const Expr &x) {
    if (x.kind == ExprKind::New) ok = false;
    if (x.kind == ExprKind::Call)
      if (const BuiltinInfo *b = called_builtin(x); b && b->allocates) ok = false;
  });
  return ok && names_held(f);
}

// What e does that a form's expressions may not (builds' and reads'
// limits), as the reason a task has no form.
std::string does(const Expr &e) {
  const effects::Effects f = effects::of(e);
  if (f.makes_tasks) return "an anonymous task or a future";
  if (f.calls) return "a call of a task value";
  if (f.prints) return "a print";
  if (f.writes) return "an atomic";
  bool array = false;
  ast::for_each_expr(e, [&](const Expr &x) {
    if (x.kind == ExprKind::New) array = true;
    if (x.kind == ExprKind::Call)
      if (const BuiltinInfo *b = called_builtin(x); b && b->allocates) array = true;
  });
  if (array) return "an array made on the heap";
  if (f.allocates || f.tuples) return "a struct, union or tuple made where a form only reads";
  for (const Expr *name : f.names)
    if (name->var && !held(name->var->type)) return "a value of type " + type_name(name->var->type);
  return "an expression a form does not evaluate";
}

// Whether s is a `for` over an array on the heap: not a range, not one of
// `local` (a task's own arrays, which its form keeps on its stack).
bool heap_loop(const Stmt &s, const std::vector<const ast::VarDecl *> &local) {
  if (s.kind != StmtKind::For || s.coll_var->type->kind == TypeKind::Range) return false;
  return s.expr->kind != ExprKind::Name ||
         std::find(local.begin(), local.end(), s.expr->var) == local.end();
}

// Whether s is a `for` over a range (`for (k = [lo, hi])`).
bool over_range(const Stmt &s) {
  return s.kind == StmtKind::For && s.coll_var && s.coll_var->type->kind == TypeKind::Range;
}

// Whether v is a plain variable of `task` that a form holds (not a loop's
// element).
bool plain(const anf::Task &task, const ast::VarDecl *v) {
  return v && held(v->type) && !task.element_of(v);
}

// What a form's statements are checked against: the task, the tasks that
// still have a form, and the task's local arrays (cps::Task::local_arrays)
// whose elements a form holds, which its form keeps on its own stack.
struct Scope {
  const anf::Program &prog;
  const anf::Task &task;
  const std::vector<bool> &fast;
  std::set<const ast::VarDecl *> arrays;  // local arrays a form may hold
  // The variables a map's body binds, where a statement inside one is
  // checked; null outside maps.
  const std::set<const ast::VarDecl *> *map_vars = nullptr;
  // Why the body has no form: the first statement that keeps it from one
  // (cps::Task::no_fast).
  std::string why;
};

// Records why s keeps its task from a form (the innermost reason wins) and
// gives false.
bool no(Scope &sc, const Stmt &s, const std::string &why) {
  if (sc.why.empty()) sc.why = at(s.loc) + why;
  return false;
}

bool body(Scope &sc, const anf::StmtList &list);

// The variables the statements of `list` bind, nested ones too.
void bound_in(const anf::StmtList &list, std::set<const ast::VarDecl *> &out) {
  for (const anf::StmtPtr &s : list) {
    for (const ast::VarDecl *v : anf::bound_vars(*s)) out.insert(v);
    bound_in(s->body, out);
    bound_in(s->else_body, out);
    for (const anf::CaseBranch &b : s->branches) bound_in(b.body, out);
  }
}

// Whether v is the element of a loop over a local array the form holds.
bool local_element(const Scope &sc, const ast::VarDecl *v) {
  const anf::Stmt *loop = v ? sc.task.element_of(v) : nullptr;
  return loop && loop->expr->kind == ExprKind::Name && sc.arrays.count(loop->expr->var);
}

// Whether `x <- e` of plain variable v is one a form runs: inside a map's
// body, only of the body's own variables (a map whose body writes others
// folds them in parallel, in an order a sequential loop would not keep).
bool settable(const Scope &sc, const ast::VarDecl *v) {
  return plain(sc.task, v) && (!sc.map_vars || sc.map_vars->count(v));
}

// Whether s is what a sequential form runs, calling tasks that `sc.fast`
// still marks; where not, `no` says why.
bool stmt(Scope &sc, const Stmt &s) {
  const anf::Task &task = sc.task;
  switch (s.kind) {
    case StmtKind::Let:
      for (const ast::VarDecl *v : s.vars)
        if (!plain(task, v)) return no(sc, s, "a variable of type " + type_name(v->type));
      if (s.vars.size() == 1 && sc.arrays.count(s.vars[0])) {
        // The form makes it on its stack.
        if (s.expr && s.expr->kind == ExprKind::New && s.expr->children.size() == 1 &&
            reads(*s.expr->children[0]))
          return true;
        return no(sc, s, "a local array not made by `new` of a length that only reads");
      }
      return !s.expr || builds(*s.expr) || no(sc, s, does(*s.expr));
    case StmtKind::Set: {
      if (!(s.target->kind == ExprKind::Name ? builds(*s.expr) : reads(*s.expr)))
        return no(sc, s, does(*s.expr));
      const Expr &t = *s.target;
      if (t.kind == ExprKind::Name) {
        if (settable(sc, t.var) || local_element(sc, t.var)) return true;
        if (task.element_of(t.var))
          return no(sc, s, "a write of the element of a loop over an array the task did not make");
        if (sc.map_vars)
          return no(sc, s, "a map's body that assigns a variable declared outside it");
        return no(sc, s, "an assignment of a variable of type " + type_name(t.var->type));
      }
      if (t.kind == ExprKind::Field) {
        // A struct's field, written in place: as an element of an array the
        // form did not make (writes_memory).
        if (t.children[0]->type->forced()->kind != TypeKind::Struct)
          return no(sc, s, "a write of a union's field");
        if (!reads(*t.children[0])) return no(sc, s, does(*t.children[0]));
        if (held(t.type->forced())) return true;
        return no(sc, s, "a write of a field of type " + type_name(t.type->forced()));
      }
      if (t.kind != ExprKind::Index) return no(sc, s, "an assignment of this kind");
      if (!reads(*t.children[1])) return no(sc, s, does(*t.children[1]));
      if (t.children[0]->kind == ExprKind::Name && sc.arrays.count(t.children[0]->var)) return true;
      // An element of an array the form did not make, written in place: a
      // form that writes runs only where a stop keeps its work
      // (cps::Task::fast_writes).
      if (reads(*t.children[0]) && held(t.type->forced())) return true;
      return no(sc, s, "a write of an element of type " + type_name(t.type->forced()));
    }
    case StmtKind::Return:
      return !s.expr || builds(*s.expr) || no(sc, s, does(*s.expr));
    case StmtKind::If:
      return (reads(*s.expr) || no(sc, s, does(*s.expr))) && body(sc, s.body) &&
             body(sc, s.else_body);
    case StmtKind::While:
      return (reads(*s.expr) || no(sc, s, does(*s.expr))) && body(sc, s.body);
    case StmtKind::Call: {
      const Expr &call = *s.expr;
      const Expr &callee = *call.children[0];
      if (callee.kind == ExprKind::Name && callee.task) {
        if (!sc.fast[size_t(callee.task->id)])
          return no(sc, s, "a call of " + callee.task->name + ", which has no sequential form");
      } else {
        // A task value: its form is whichever the value names, so every
        // task of its type needs one.
        if (!reads(callee)) return no(sc, s, does(callee));
        for (int t : anf::tasks_of_type(sc.prog, callee.type->forced()))
          if (!sc.fast[size_t(t)])
            return no(sc, s,
                      "a call of a task value, which may be " +
                          sc.prog.tasks[size_t(t)].decl->name + ", which has no sequential form");
      }
      for (size_t i = 1; i < call.children.size(); ++i)
        if (!builds(*call.children[i])) return no(sc, s, does(*call.children[i]));
      if (!s.target || settable(sc, s.target->var)) return true;
      if (sc.map_vars) return no(sc, s, "a map's body that assigns a variable declared outside it");
      return no(sc, s, "a call whose result is of type " + type_name(s.target->var->type));
    }
    case StmtKind::Case:
      if (!reads(*s.expr)) return no(sc, s, does(*s.expr));
      for (const anf::CaseBranch &b : s.branches) {
        if (b.binder && !plain(task, b.binder))
          return no(sc, s, "a branch's variable of type " + type_name(b.binder->type));
        if (!body(sc, b.body)) return false;
      }
      return true;
    case StmtKind::For:
    case StmtKind::Map: {
      // A `for` over a range, run in order: its element is a value that
      // only reads (an assignment of it is no `settable`'s).
      if (over_range(s)) return (reads(*s.expr) || no(sc, s, does(*s.expr))) && body(sc, s.body);
      // A loop over a local array, run in order by the form.
      if (s.expr->kind != ExprKind::Name || !sc.arrays.count(s.expr->var)) {
        // A `for` over an array on the heap reads its elements there, in
        // order (an assignment of its element is no `settable`'s).
        if (s.kind == StmtKind::For && held(s.elem_var->type)) {
          if (!reads(*s.expr)) return no(sc, s, does(*s.expr));
          return body(sc, s.body);
        }
        return no(sc, s,
                  s.kind == StmtKind::For
                      ? "a `for` over an array of type " + type_name(s.coll_var->type->forced())
                      : "a `map` over an array the task did not make");
      }
      if (s.kind == StmtKind::For) return body(sc, s.body);
      std::set<const ast::VarDecl *> own;
      bound_in(s.body, own);
      const std::set<const ast::VarDecl *> *outer = sc.map_vars;
      sc.map_vars = &own;
      const bool ok = body(sc, s.body);
      sc.map_vars = outer;
      return ok;
    }
    case StmtKind::Then:  // one side, then the other: in order, as a form runs
      return body(sc, s.body) && body(sc, s.else_body);
    case StmtKind::Do:  // print and the atomics
      return no(sc, s, does(*s.expr));
  }
  return false;
}

bool body(Scope &sc, const anf::StmtList &list) {
  for (const anf::StmtPtr &s : list)
    if (!stmt(sc, *s)) return false;
  return true;
}

// Why the task's declaration allows no sequential form, or "" where it
// does: parameters, result and closure it holds.
std::string signature(const ast::TaskDecl &decl) {
  const std::string where = at(decl.loc);
  if (!decl.result_type) return where + "no result type";
  if (decl.result_type->kind != TypeKind::Unit && !held(decl.result_type))
    return where + "a result of type " + type_name(decl.result_type);
  for (const ast::VarDecl *p : decl.param_vars)
    if (!held(p->type)) return where + "a parameter of type " + type_name(p->type);
  return "";
}

// What a form's own statements do that wide workers' rule asks about (not
// what the tasks they call do): read memory (a field, an element, a length:
// ir/effects.h; or a `case`'s union tag), make heap values (`builds`), loop
// over a range, write an element of an array it did not make.
struct Traits {
  bool reads = false;
  bool allocates = false;
  bool loops = false;
  bool writes = false;
};

Traits traits(const anf::StmtList &list, const std::vector<const ast::VarDecl *> &local_arrays) {
  struct Visit : anf::Visitor {
    const std::vector<const ast::VarDecl *> &local;
    Traits t;
    explicit Visit(const std::vector<const ast::VarDecl *> &l) : local(l) {}
    using anf::Visitor::visit;
    void visit(const anf::Stmt &s) override {
      t.reads = t.reads || s.kind == StmtKind::Case || heap_loop(s, local);
      t.loops = t.loops || over_range(s);
      t.writes = t.writes || writes_memory(s, local);
      anf::Visitor::visit(s);
    }
    void visit(const Expr &e) override {
      t.reads = t.reads || effects::of(e).reads;
      ast::for_each_expr(e, [&](const Expr &x) {
        t.allocates = t.allocates || x.kind == ExprKind::Construct || x.kind == ExprKind::Tuple;
      });
    }
  } v(local_arrays);
  v.visit(list);
  return v.t;
}

}  // namespace

bool writes_memory(const anf::Stmt &s, const std::vector<const ast::VarDecl *> &local_arrays) {
  if (s.kind != StmtKind::Set) return false;
  if (s.target->kind == ExprKind::Field) return true;
  if (s.target->kind != ExprKind::Index) return false;
  const Expr &array = *s.target->children[0];
  return array.kind != ExprKind::Name ||
         std::find(local_arrays.begin(), local_arrays.end(), array.var) == local_arrays.end();
}

void find(cps::Program &blocks) {
  // The greatest set of tasks whose bodies qualify calling only each other:
  // start from every task with a fitting signature and drop the others
  // until nothing changes.
  std::vector<bool> fast(blocks.tasks.size());
  for (size_t t = 0; t < blocks.tasks.size(); ++t) {
    blocks.tasks[t].no_fast = signature(*blocks.tasks[t].source->decl);
    fast[t] = blocks.tasks[t].no_fast.empty();
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t t = 0; t < blocks.tasks.size(); ++t) {
      const anf::Task &task = *blocks.tasks[t].source;
      if (!fast[t]) continue;
      Scope sc{*blocks.anf, task, fast, {}, nullptr, {}};
      for (const ast::VarDecl *a : blocks.tasks[t].local_arrays)
        if (held(a->type->forced()->elem)) sc.arrays.insert(a);
      if (!body(sc, task.body)) {
        blocks.tasks[t].no_fast = sc.why;
        fast[t] = false;
        changed = true;
      }
    }
  }
  for (size_t t = 0; t < blocks.tasks.size(); ++t) blocks.tasks[t].fast = fast[t];
  // Which forms read memory, make heap values or loop over ranges,
  // themselves or through the forms they call.
  std::vector<std::vector<int>> calls(blocks.tasks.size());
  for (size_t t = 0; t < blocks.tasks.size(); ++t) {
    if (!fast[t]) continue;
    const Traits own = traits(blocks.tasks[t].source->body, blocks.tasks[t].local_arrays);
    blocks.tasks[t].fast_reads = own.reads;
    blocks.tasks[t].fast_allocates = own.allocates;
    blocks.tasks[t].fast_loops = own.loops;
    blocks.tasks[t].fast_writes = own.writes;
    calls[t] = anf::reachable_calls(*blocks.anf, blocks.tasks[t].source->body);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t t = 0; t < blocks.tasks.size(); ++t) {
      cps::Task &task = blocks.tasks[t];
      if (!task.fast) continue;
      for (int callee : calls[t]) {
        const cps::Task &c = blocks.tasks[size_t(callee)];
        if ((c.fast_reads && !task.fast_reads) || (c.fast_allocates && !task.fast_allocates) ||
            (c.fast_loops && !task.fast_loops) || (c.fast_writes && !task.fast_writes)) {
          task.fast_reads = task.fast_reads || c.fast_reads;
          task.fast_allocates = task.fast_allocates || c.fast_allocates;
          task.fast_loops = task.fast_loops || c.fast_loops;
          task.fast_writes = task.fast_writes || c.fast_writes;
          changed = true;
        }
      }
    }
  }
}

}  // namespace kite::fast_clones
