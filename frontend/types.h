// Kite's semantic types, interned: two equal types are the same pointer, so
// `a == b` compares types.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace kite {

#define KITE_TYPE_KINDS(X)                               \
  X(Int)    /* 32-bit signed */                          \
  X(Long)   /* 64-bit signed */                          \
  X(Float)  /* 32-bit IEEE */                            \
  X(Double) /* 64-bit IEEE */                            \
  X(Bool)                                                \
  X(Unit)   /* what a task without `: t` returns */      \
  X(String) /* a string literal; only print takes one */ \
  X(Future) /* future<t>: elem */                        \
  X(Task)   /* task<params..., result>: params, elem */  \
  X(Array)  /* array<t>: elem */                         \
  X(Range)  /* [a, b] */                                 \
  X(Tuple)  /* (t1, t2, ...): params */                  \
  X(Struct) /* name */                                   \
  X(Union)  /* name */

enum class TypeKind {
#define X(k) k,
  KITE_TYPE_KINDS(X)
#undef X
};

struct Type {
  TypeKind kind;
  Type *elem = nullptr;          // Future, Array: element; Task: result
  std::vector<Type *> params{};  // Task: parameters; Tuple: members
  std::string name{};            // Struct, Union

  bool is_integer() const { return kind == TypeKind::Int || kind == TypeKind::Long; }
  bool is_floating() const { return kind == TypeKind::Float || kind == TypeKind::Double; }
  bool is_numeric() const { return is_integer() || is_floating(); }
  bool is_scalar() const { return is_numeric() || kind == TypeKind::Bool; }
  // The type a value of this type has once forced (FORCE): future<t> -> t.
  Type *forced() { return kind == TypeKind::Future ? elem : this; }
  const Type *forced() const { return kind == TypeKind::Future ? elem : this; }
};

// Spells a type as Kite source would: `array<int>`, `task<int, unit>`.
std::string to_string(const Type *t);

// Owns and interns every type of one compilation.
class TypeContext {
 public:
  TypeContext();
  Type *int_t() { return int_; }
  Type *long_t() { return long_; }
  Type *float_t() { return float_; }
  Type *double_t() { return double_; }
  Type *bool_t() { return bool_; }
  Type *unit_t() { return unit_; }
  Type *string_t() { return string_; }
  Type *range_t() { return range_; }
  Type *future(Type *t);
  Type *array(Type *t);
  Type *task(std::vector<Type *> params, Type *result);
  Type *tuple(std::vector<Type *> members);
  Type *named(TypeKind kind, const std::string &name);  // Struct or Union

 private:
  Type *intern(Type t);
  std::vector<std::unique_ptr<Type>> owned_;
  // What identifies an interned type: kind, elem, params, name.
  using Key = std::tuple<TypeKind, Type *, std::vector<Type *>, std::string>;
  std::map<Key, Type *> by_key_;
  Type *int_, *long_, *float_, *double_, *bool_, *unit_, *string_, *range_;
};

}  // namespace kite
