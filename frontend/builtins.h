// The prelude's built-in functions (builtins.def) and what each does besides
// giving its value: the one table every pass asks, from the checker to the
// backend and kite-interp.
#pragma once

#include <string>

namespace kite {

namespace ast {
struct Expr;
}

enum class Builtin {
#define KITE_BUILTIN(name, pure, allocates, prints, writes, atomic, length) name##_,
#include "frontend/builtins.def"
};

// A built-in's row of builtins.def.
struct BuiltinInfo {
  const char *name;
  bool pure;       // only computes from its arguments
  bool allocates;  // makes a value on the heap
  bool prints;     // prints its arguments
  bool writes;     // writes the array element its first argument names
  bool atomic;     // by an atomic read-modify-write
  bool length;     // reads the length of the array (or range) it is given
};

const BuiltinInfo &builtin_info(Builtin b);
// The built-in that `call` (a call expression) calls, or null (a task).
const BuiltinInfo *called_builtin(const ast::Expr &call);
// The builtin named `name`, or false.
bool find_builtin(const std::string &name, Builtin *out);

}  // namespace kite
