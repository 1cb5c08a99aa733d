// Types, interned: each distinct type is one object.
#include "frontend/types.h"

namespace kite {

std::string to_string(const Type *t) {
  switch (t->kind) {
    case TypeKind::Int:
      return "int";
    case TypeKind::Long:
      return "long";
    case TypeKind::Float:
      return "float";
    case TypeKind::Double:
      return "double";
    case TypeKind::Bool:
      return "bool";
    case TypeKind::Unit:
      return "unit";
    case TypeKind::String:
      return "string";
    case TypeKind::Range:
      return "range";
    case TypeKind::Future:
      return "future<" + to_string(t->elem) + ">";
    case TypeKind::Array:
      return "array<" + to_string(t->elem) + ">";
    case TypeKind::Task: {
      std::string s = "task<";
      for (Type *p : t->params) s += to_string(p) + ", ";
      return s + to_string(t->elem) + ">";
    }
    case TypeKind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < t->params.size(); ++i) s += (i ? ", " : "") + to_string(t->params[i]);
      return s + ")";
    }
    case TypeKind::Struct:
    case TypeKind::Union:
      return t->name;
  }
  return "?";
}

TypeContext::TypeContext() {
  int_ = intern({TypeKind::Int});
  long_ = intern({TypeKind::Long});
  float_ = intern({TypeKind::Float});
  double_ = intern({TypeKind::Double});
  bool_ = intern({TypeKind::Bool});
  unit_ = intern({TypeKind::Unit});
  string_ = intern({TypeKind::String});
  range_ = intern({TypeKind::Range});
}

Type *TypeContext::intern(Type t) {
  // Hash-consing: a type's parts are interned before it is, so the kind,
  // the parts' pointers and the name identify it, and interning takes time
  // independent of how deeply the type nests. Struct and union share a name
  // space (the checker rejects a union and a struct of the same name), but
  // the kind is part of the key anyway.
  Key key{t.kind, t.elem, t.params, t.name};
  auto it = by_key_.find(key);
  if (it != by_key_.end()) return it->second;
  owned_.push_back(std::make_unique<Type>(std::move(t)));
  by_key_.emplace(std::move(key), owned_.back().get());
  return owned_.back().get();
}

Type *TypeContext::future(Type *t) { return intern({TypeKind::Future, t}); }
Type *TypeContext::array(Type *t) { return intern({TypeKind::Array, t}); }
Type *TypeContext::task(std::vector<Type *> params, Type *result) {
  return intern({TypeKind::Task, result, std::move(params)});
}
Type *TypeContext::tuple(std::vector<Type *> members) {
  return intern({TypeKind::Tuple, nullptr, std::move(members)});
}
Type *TypeContext::named(TypeKind kind, const std::string &name) {
  return intern({kind, nullptr, {}, name});
}

}  // namespace kite
