// The interpreter's form of a checked program: expression trees (Node) and
// statement lists (Code) whose variables are frame slots, built once by
// interp/compile.cpp and run by interp/interp.cpp.
//
// Values are 8 bytes (Value). An int is held sign-extended to 64 bits and a
// bool as 0 or 1, so ints, longs and bools share comparisons and bitwise
// operators; a float is held in the low 32 bits with the upper ones zero; a
// range as kite-run holds it (first in the low 32 bits, last in the high
// 32); heap values (arrays, structs, unions, tuples, task values) as
// pointers, null when never given a value.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/source.h"

namespace kite::interp {

union Value {
  int64_t l;
  uint64_t u;
  double d;
  float f;
  void *p;
};

inline Value of_long(int64_t x) {
  Value v;
  v.l = x;
  return v;
}
inline Value of_int(int32_t x) { return of_long(x); }
inline Value of_float(float x) {
  Value v;
  v.u = 0;
  v.f = x;
  return v;
}
inline Value of_double(double x) {
  Value v;
  v.d = x;
  return v;
}
inline Value of_ptr(void *p) {
  Value v;
  v.p = p;
  return v;
}
inline int32_t as_int(Value v) { return static_cast<int32_t>(v.l); }

// What a value of a Kite type is, for the operations that differ by type.
enum class Kind : uint8_t { Int, Long, Float, Double, Bool, Range, Ref };
Kind kind_of(Type *t);

// How an array element is stored: 4 bytes for int, bool and float, as on the
// device, 8 for everything else.
enum class Elem : uint8_t { I32, F32, W64 };
Elem elem_of(Type *t);
inline size_t elem_bytes(Elem e) { return e == Elem::W64 ? 8 : 4; }

// An array: its length, then its elements from the next 8-byte boundary.
struct Array {
  int64_t length;
  unsigned char *elements() { return reinterpret_cast<unsigned char *>(this + 1); }
};
// A struct or tuple is an array of Values, one per member; a union is two
// (the field's number, then its value); a task value is a closure.
struct TaskCode;
struct Closure {
  const TaskCode *task;
  Value captures[1];  // as many as the task has captures
};

// An operation on a heap value that kite-interp --races checks
// (interp/races.h): an element of an array or a field of a struct, read,
// written or updated by an atomic built-in, and how reports name it.
enum class Access : uint8_t { Read, Write, Atomic };
struct Site {
  SourceLoc loc;
  Access access = Access::Read;
  std::string what;  // "an element of 'a'", "field 'balance' of 'acc'"
};

// clang-format off
enum class Op : uint8_t {
  // Leaves: a constant, a slot, a loop's element, a top-level constant, a
  // named task as a value; an anonymous task's closure.
  Const, Local, AliasElem, AliasRange, Global, TaskValue, MakeClosure,
  // Operators, by operand kind: I int, L long (and int or bool where the
  // sign-extended form gives the same answer), F float, D double.
  NegI, NegL, NegF, NegD, Not, BitNot,
  AddI, AddL, AddF, AddD, SubI, SubL, SubF, SubD, MulI, MulL, MulF, MulD,
  DivI, DivL, DivF, DivD, ModI, ModL, ShlI, ShlL, ShrI, ShrL, BitAnd, BitOr, BitXor,
  LtL, LeL, GtL, GeL, EqL, NeL, LtF, LeF, GtF, GeF, EqF, NeF, LtD, LeD, GtD, GeD, EqD, NeD,
  And, Or,
  // Heap values.
  Field, Index, Tuple, Struct, Union, New, Range,
  // Built-ins.
  Convert, AbsI, AbsL, AbsF, AbsD, MinL, MinF, MinD, MaxL, MaxF, MaxD, PowF, PowD,
  SqrtF, SqrtD, ExpF, ExpD, LogF, LogD, SinF, SinD, CosF, CosD, FloorF, FloorD, Hash,
  LengthArray, LengthRange, AtomicAdd, AtomicMin, AtomicMax, AtomicCas,
};
// clang-format on

// An expression with no task call in it (compile.cpp moves calls out).
struct Node {
  Op op;
  Elem elem = Elem::W64;  // Index, AliasElem, New, atomics: the elements' storage
  Kind from = Kind::Int;  // Convert: from this kind ...
  Kind to = Kind::Int;    // ... to this one
  int slot = -1;          // Local: the slot; AliasElem/AliasRange: the collection's;
                          // Field: the member; Global: the constant; Union: the field
  int slot2 = -1;         // AliasElem/AliasRange: the index variable's slot
  Value imm{};            // Const
  SourceLoc loc;          // where an error of this operation is reported
  const Node *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
  std::vector<const Node *> list;          // Tuple, Struct (null: a zero field), MakeClosure
  const TaskCode *task = nullptr;          // TaskValue, MakeClosure
  const Site *site = nullptr;              // Index, AliasElem, a struct's Field, atomics
  const std::string *null_name = nullptr;  // Field: how an error names a null record
};

enum class CodeOp : uint8_t {
  Eval,      // e, for its effects (atomics)
  Print,     // args, one line
  Decl,      // slots = e, or zero
  Set,       // slot = e
  SetAlias,  // the element the loop at `loc` aliases (slot: collection, slot2: index) = e
  SetIndex,  // a[b] = e (e first)
  SetField,  // a.slot = e (e first)
  Call,      // slot (or nothing, when -1) = the task `task`, or the value e, called with args
  TailCall,  // return that call: the task's frame is reused (constant host stack)
  Then,      // body then other: other waits for all of body (only --races tells)
  Return,    // return e (or nothing)
  If,        // if (e) body else other
  Case,      // case (e) arms
  For,       // for: slot = e (the collection), slot2 its index, body
  Map,       // map: the same, iterations in index order
  While,     // while: run `other` (the condition's calls), test e, run body; repeat
};

struct Code;
using List = std::vector<const Code *>;

struct Arm {
  int field = -1;   // the union field it matches; -1: default
  int binder = -1;  // the slot of the variable bound to the field's value
  List body;
};

struct Code {
  CodeOp op;
  SourceLoc loc;
  const Node *e = nullptr, *a = nullptr, *b = nullptr;
  int slot = -1, slot2 = -1;
  Elem elem = Elem::W64;
  bool is_range = false;            // For, Map
  std::vector<int> slots;           // Decl
  std::vector<const Node *> args;   // Call, TailCall; Print (null for a string)
  std::vector<Type *> types;        // Print: each argument's type
  std::vector<int> strings;         // Print: each argument's string number, or -1
  const TaskCode *task = nullptr;   // Call, TailCall: a named task (else e is the callee)
  bool to_temp = false;             // Call: its result goes to a temporary of the statement
  const Site *site = nullptr;       // SetAlias, SetIndex, SetField: the write
  std::vector<const Site *> sites;  // Print: each array argument's elements, read
  // How an error names a null value (ast::null_name): SetField's record,
  // Case's union, the task value Call and TailCall call; Print: each tuple's.
  const std::string *null_name = nullptr;
  std::vector<const std::string *> null_names;
  List body, other;
  std::vector<Arm> arms;
};

struct TaskCode {
  const ast::TaskDecl *decl = nullptr;
  int params = 0;    // slots [0, params): the arguments
  int captures = 0;  // slots [params, params + captures): a closure's captures
  int slots = 0;     // the frame's size
  List body;
  Closure self{this, {}};  // the named task as a value (no captures)
};

struct Constant {
  const Node *init = nullptr;
  bool known = false;
  Value value{};
};

// A whole program, ready to run.
struct ProgramCode {
  std::vector<std::unique_ptr<TaskCode>> tasks;  // by TaskDecl::id
  const TaskCode *main = nullptr;
  std::vector<Constant> constants;
  std::vector<std::string> strings;  // print's string literals
  std::deque<Node> nodes;            // owns every Node
  std::deque<Code> codes;            // owns every Code
  std::deque<Site> sites;            // owns every Site
};

// Builds the code of a checked program (one with a task `main`).
std::unique_ptr<ProgramCode> compile(const ast::Program &program);

}  // namespace kite::interp
