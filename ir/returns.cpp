// Return motion: blocks flattened, then the statements after a returning
// branch moved into the branch that goes on, or a return flag (returns.h).
#include "ir/returns.h"

namespace kite {

using namespace ast;

namespace {

void flatten_blocks(StmtList &list) {
  StmtList out;
  for (auto &s : list) {
    for (StmtList *inner : nested_lists(*s)) flatten_blocks(*inner);
    if (s->kind == StmtKind::Block) {
      for (auto &inner : s->body) out.push_back(std::move(inner));
      continue;
    }
    out.push_back(std::move(s));
  }
  list = std::move(out);
}

bool always_returns(const StmtList &list);

bool stmt_always_returns(const Stmt &s) {
  switch (s.kind) {
    case StmtKind::Return:
      return true;
    case StmtKind::If:
      return s.has_else && always_returns(s.body) && always_returns(s.else_body);
    case StmtKind::Then:
      return always_returns(s.body) || always_returns(s.else_body);
    case StmtKind::Case: {
      // The checker made the branches exhaustive (or rejected the program).
      for (auto &b : s.branches)
        if (!always_returns(b.body)) return false;
      return !s.branches.empty();
    }
    case StmtKind::ExprStmt:
    case StmtKind::Decl:
    case StmtKind::Assign:
    case StmtKind::Block:  // flattened before this runs
    case StmtKind::For:
    case StmtKind::Map:
    case StmtKind::While:
      return false;
  }
  return false;
}

bool always_returns(const StmtList &list) {
  return !list.empty() && stmt_always_returns(*list.back());
}

const Stmt *find_return(StmtList &list) {
  for (auto &s : list) {
    if (s->kind == StmtKind::Return) return s.get();
    for (StmtList *inner : nested_lists(*s))
      if (const Stmt *r = find_return(*inner)) return r;
  }
  return nullptr;
}

// Moves the statements after an `if` or `case` with a returning branch into
// the one branch that does not always return. Returns false where a
// statement returns on some paths and more than one path goes on (the
// moves made so far keep the program's meaning).
bool lift_returns(StmtList &list) {
  bool ok = true;
  for (size_t i = 0; i < list.size(); ++i) {
    Stmt &s = *list[i];
    if (s.kind != StmtKind::If && s.kind != StmtKind::Case && s.kind != StmtKind::Then) continue;
    std::vector<StmtList *> branches = nested_lists(s);
    const Stmt *ret = nullptr;
    for (StmtList *b : branches)
      if (!ret) ret = find_return(*b);
    if (ret && i + 1 < list.size()) {
      StmtList *into = nullptr;
      int open = 0;
      if (s.kind == StmtKind::Then) {
        open = 2;  // a return inside `then` followed by more statements
      } else {
        for (StmtList *b : branches)
          if (!always_returns(*b)) into = b, ++open;
        // An `if` without else has an empty else branch that continues.
      }
      if (open != 1) return false;
      if (s.kind == StmtKind::If) s.has_else = true;
      for (size_t j = i + 1; j < list.size(); ++j) into->push_back(std::move(list[j]));
      list.resize(i + 1);
    }
    for (StmtList *b : branches) ok &= lift_returns(*b);
  }
  return ok;
}

// A task whose returns cannot all be lifted gets a flag instead: every
// `return e` becomes `_res <- e; _returned <- true`, the statements after
// anything that may have returned run under `if (!_returned)`, and the task
// ends with `return _res`. (Only such tasks: lifting keeps tail calls.)
class ReturnFlag {
 public:
  ReturnFlag(TaskDecl &task, TypeContext &types) : task_(task), types_(types) {}

  void run() {
    SourceLoc loc = task_.loc;
    returned_ = new_temp(task_, "_returned", types_.bool_t(), loc);
    if (task_.result_type && task_.result_type->kind != TypeKind::Unit)
      result_ = new_temp(task_, "_res", task_.result_type, loc);
    guard(task_.body);
    StmtList body;
    body.push_back(decl_of(returned_, bool_lit(false, loc), loc));
    if (result_) body.push_back(decl_of(result_, nullptr, loc));
    for (auto &st : task_.body) body.push_back(std::move(st));
    if (result_) {
      auto r = std::make_unique<Stmt>();
      r->kind = StmtKind::Return;
      r->loc = loc;
      r->expr = name_of(result_, loc);
      body.push_back(std::move(r));
    }
    task_.body = std::move(body);
  }

 private:
  // Rewrites the returns of list; true if running it may have returned.
  bool guard(StmtList &list) {
    StmtList out;
    bool may = false;
    for (size_t i = 0; i < list.size(); ++i) {
      StmtPtr st = std::move(list[i]);
      bool returns = false;
      if (st->kind == StmtKind::Return) {
        SourceLoc loc = st->loc;
        if (result_) out.push_back(assign_of(result_, std::move(st->expr), loc));
        out.push_back(assign_of(returned_, bool_lit(true, loc), loc));
        returns = true;
      } else {
        if (st->kind == StmtKind::Then) {
          // The second side runs only if the first did not return.
          bool first = guard(st->body);
          bool second = guard(st->else_body);
          if (first) st->else_body = unless_returned(std::move(st->else_body), st->loc);
          returns = first || second;
        } else if (st->kind == StmtKind::If || st->kind == StmtKind::Case) {
          for (StmtList *b : nested_lists(*st)) returns |= guard(*b);
        }
        out.push_back(std::move(st));
      }
      if (returns && i + 1 < list.size()) {
        // The rest of the list, only if nothing returned.
        StmtList rest;
        for (size_t j = i + 1; j < list.size(); ++j) rest.push_back(std::move(list[j]));
        guard(rest);
        SourceLoc loc = rest.front()->loc;
        StmtList guarded = unless_returned(std::move(rest), loc);
        for (auto &g : guarded) out.push_back(std::move(g));
        may = true;
        break;
      }
      may |= returns;
    }
    list = std::move(out);
    return may;
  }

  StmtList unless_returned(StmtList body, SourceLoc loc) {
    auto not_returned = std::make_unique<Expr>();
    not_returned->kind = ExprKind::Unary;
    not_returned->unop = UnaryOp::Not;
    not_returned->loc = loc;
    not_returned->type = types_.bool_t();
    not_returned->children.push_back(name_of(returned_, loc));
    auto branch = std::make_unique<Stmt>();
    branch->kind = StmtKind::If;
    branch->loc = loc;
    branch->expr = std::move(not_returned);
    branch->body = std::move(body);
    StmtList out;
    out.push_back(std::move(branch));
    return out;
  }

  ExprPtr bool_lit(bool value, SourceLoc loc) {
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::BoolLit;
    e->loc = loc;
    e->bool_value = value;
    e->type = types_.bool_t();
    return e;
  }

  TaskDecl &task_;
  TypeContext &types_;
  VarDecl *returned_ = nullptr;
  VarDecl *result_ = nullptr;
};

}  // namespace

void move_returns(Program &program, TypeContext &types) {
  for (auto &t : program.tasks) {
    flatten_blocks(t->body);
    if (!lift_returns(t->body)) ReturnFlag(*t, types).run();
  }
}

}  // namespace kite
