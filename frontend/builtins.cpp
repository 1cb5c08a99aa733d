// The table of builtins.def. See builtins.h.
#include "frontend/builtins.h"

#include <iterator>

#include "frontend/ast.h"

namespace kite {
namespace {

const BuiltinInfo kBuiltins[] = {
#define KITE_BUILTIN(name, pure, allocates, prints, writes, atomic, length) \
  {#name, pure, allocates, prints, writes, atomic, length},
#include "frontend/builtins.def"
};

// A pure built-in does nothing the other columns name (ir/effects.h counts
// on it), and an atomic one writes.
#define KITE_BUILTIN(name, pure, allocates, prints, writes, atomic, length)            \
  static_assert(pure == !(allocates || prints || writes || length), #name " is pure"); \
  static_assert(!atomic || writes, #name " writes");
#include "frontend/builtins.def"

}  // namespace

const BuiltinInfo &builtin_info(Builtin b) { return kBuiltins[int(b)]; }

const BuiltinInfo *called_builtin(const ast::Expr &call) {
  const int b = call.children[0]->builtin;
  return b < 0 ? nullptr : &kBuiltins[b];
}

bool find_builtin(const std::string &name, Builtin *out) {
  for (size_t i = 0; i < std::size(kBuiltins); ++i) {
    if (name == kBuiltins[i].name) {
      *out = Builtin(i);
      return true;
    }
  }
  return false;
}

}  // namespace kite
