// Closure conversion: anonymous tasks read what they capture from their closure.
#include "ir/closures.h"

#include <algorithm>

namespace kite {

using namespace ast;

void convert_closures(Program &program, TypeContext &types) {
  // 1. Where an anonymous task is made, its children name what it captures.
  for (auto &t : program.tasks)
    rewrite_exprs(t->body, [&](ExprPtr &e) {
      if (e->kind != ExprKind::AnonTask) return;
      e->children.clear();
      for (VarDecl *v : e->task->captures) e->children.push_back(name_of(v, e->loc));
    });
  // 2. Inside, a captured variable reads slot k + 1 of the closure (slot 0
  //    holds the task's id).
  for (auto &t : program.tasks) {
    if (!t->is_anonymous) continue;
    std::vector<Type *> slots = {types.long_t()};
    for (VarDecl *v : t->captures) slots.push_back(v->type);
    auto env = std::make_unique<VarDecl>();
    env->loc = t->loc;
    env->name = "_closure";
    env->type = types.tuple(slots);
    env->is_param = true;
    env->is_temp = true;
    t->env = env.get();
    t->locals.push_back(std::move(env));
    rewrite_exprs(t->body, [&](ExprPtr &e) {
      if (e->kind == ExprKind::AnonTask && e->task == t.get()) {
        // A named task's own name in its body (frontend/check): its closure.
        auto self = name_of(t->env, e->loc);
        self->type = t->type;
        e = std::move(self);
        return;
      }
      if (e->kind != ExprKind::Name || !e->var) return;
      auto at = std::find(t->captures.begin(), t->captures.end(), e->var);
      if (at == t->captures.end()) return;
      auto read = make_expr(ExprKind::Field, e->loc);
      read->field = int(at - t->captures.begin()) + 1;
      read->text = e->var->name;
      read->type = e->var->type;
      read->children.push_back(name_of(t->env, e->loc));
      e = std::move(read);
    });
  }
}

}  // namespace kite
