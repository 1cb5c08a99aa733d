// Runs the interpreter's code (code.h). See interp.h for the order things
// run in; docs/kite-interp.md for how it relates to kite-run.
#include "interp/interp.h"

#include <alloca.h>
#include <fmt/format.h>
#include <pthread.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>

#include "frontend/prelude.h"
#include "host/args.h"
#include "host/cl.h"
#include "host/printer.h"
#include "host/run_errors.h"
#include "host/values.h"
#include "interp/code.h"
#include "runtime-cl/kite_abi.h"

namespace kite::interp {
namespace {

constexpr size_t kStackMargin = size_t(4) << 20;  // kept free below the deepest call

// --- Arithmetic as the device does it (runtime-cl/device/errors.cl) --------

int32_t wrap32(uint64_t x) { return static_cast<int32_t>(static_cast<uint32_t>(x)); }

int64_t add64(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t sub64(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }
int64_t mul64(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }

// kite_div_*, kite_mod_*: b != 0 here. INT_MIN / -1 wraps, INT_MIN % -1 is 0.
template <typename T, typename U>
T divide(T a, T b) {
  return b == -1 ? T(U(0) - U(a)) : a / b;
}
template <typename T>
T remainder(T a, T b) {
  return b == -1 ? 0 : a % b;
}

// Float to integer: saturating, NaN to 0, toward zero (convert_*_sat_rtz).
int32_t to_int_sat(double x) {
  if (std::isnan(x)) return 0;
  if (x <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  if (x >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  return static_cast<int32_t>(x);
}
int64_t to_long_sat(double x) {
  if (std::isnan(x)) return 0;
  if (x <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  if (x >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(x);
}

Value convert(Value v, Kind from, Kind to) {
  // The source as a double or an integer, exactly.
  bool floating = from == Kind::Float || from == Kind::Double;
  double d = from == Kind::Float ? double(v.f) : v.d;
  int64_t i = v.l;  // int sign-extended, bool 0/1, long
  switch (to) {
    case Kind::Int:
      return of_int(floating ? to_int_sat(d) : wrap32(uint64_t(i)));
    case Kind::Long:
      return of_long(floating ? to_long_sat(d) : i);
    case Kind::Float:
      if (from == Kind::Float) return v;
      return of_float(from == Kind::Double ? static_cast<float>(d) : static_cast<float>(i));
    case Kind::Double:
      return of_double(floating ? d : static_cast<double>(i));
    default:
      break;
  }
  return v;
}

uint64_t range_of(int32_t first, int32_t last) {
  return (uint64_t(uint32_t(last)) << 32) | uint32_t(first);
}
int32_t range_first(Value r) { return static_cast<int32_t>(static_cast<uint32_t>(r.u)); }
int32_t range_length(Value r) {
  int64_t n = int64_t(int32_t(uint32_t(r.u >> 32))) - int64_t(range_first(r)) + 1;
  return n < 0 ? 0 : wrap32(uint64_t(n));
}

int64_t kite_hash(int64_t x) {
  uint64_t z = uint64_t(x) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return int64_t(z ^ (z >> 31));
}

Value load(Elem e, const unsigned char *p) {
  switch (e) {
    case Elem::I32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return of_int(x);
    }
    case Elem::F32: {
      Value v;
      v.u = 0;
      std::memcpy(&v.f, p, 4);
      return v;
    }
    case Elem::W64:
      break;
  }
  Value v;
  std::memcpy(&v, p, 8);
  return v;
}

void store(Elem e, unsigned char *p, Value v) {
  switch (e) {
    case Elem::I32: {
      int32_t x = as_int(v);
      std::memcpy(p, &x, 4);
      return;
    }
    case Elem::F32:
      std::memcpy(p, &v.f, 4);
      return;
    case Elem::W64:
      std::memcpy(p, &v, 8);
      return;
  }
}

// The value's bits as kite-run's print records and results hold them.
int64_t bits_of(Type *t, Value v) {
  return t->kind == TypeKind::Float ? int64_t(v.u & 0xffffffffu) : v.l;
}

int64_t print_tag(Type *t) {
  switch (t->kind) {
    case TypeKind::Int:
      return KITE_PRINT_INT;
    case TypeKind::Long:
      return KITE_PRINT_LONG;
    case TypeKind::Float:
      return KITE_PRINT_FLOAT;
    case TypeKind::Double:
      return KITE_PRINT_DOUBLE;
    case TypeKind::Bool:
      return KITE_PRINT_BOOL;
    case TypeKind::Range:  // print prints scalars and ranges (check_builtins.cpp)
    case TypeKind::Unit:
    case TypeKind::String:
    case TypeKind::Future:
    case TypeKind::Task:
    case TypeKind::Array:
    case TypeKind::Tuple:
    case TypeKind::Struct:
    case TypeKind::Union:
      return KITE_PRINT_RANGE;
  }
  return KITE_PRINT_RANGE;
}

// --- Errors, as kite-run words them (host/run_errors.h) ---------------------

[[noreturn]] void fail(host::ErrorKind kind, SourceLoc loc, int64_t a = 0, int64_t b = 0) {
  host::ErrorOperands operands;
  operands.a = a;
  operands.b = b;
  throw RunTimeError(host::error_message(kind, operands), loc);
}
[[noreturn]] void division_by_zero(SourceLoc loc) { fail(host::ErrorKind::DivZero, loc); }
[[noreturn]] void out_of_bounds(int64_t i, int64_t n, SourceLoc loc) {
  fail(host::ErrorKind::Index, loc, i, n);
}
// `name`: how the value is named (ast::null_name), or null or empty where
// the compiler gave no name.
[[noreturn]] void null_value(const std::string *name, SourceLoc loc) {
  host::ErrorOperands operands;
  if (name && !name->empty()) operands.name = *name;
  throw RunTimeError(host::error_message(host::ErrorKind::Null, operands), loc);
}

// --- The heap: nothing is freed before the run ends, as on the device -------

class Heap {
 public:
  Heap() = default;
  Heap(const Heap &) = delete;
  Heap &operator=(const Heap &) = delete;
  ~Heap() {
    for (void *b : blocks_) std::free(b);
  }

  // `bytes` zeroed bytes, 8-aligned.
  void *alloc(size_t bytes) {
    bytes = (bytes + 7) & ~size_t(7);
    if (bytes > kBlock / 4) return fresh(bytes);
    if (size_t(end_ - cur_) < bytes) {
      cur_ = static_cast<char *>(fresh(kBlock));
      end_ = cur_ + kBlock;
    }
    void *p = cur_;
    cur_ += bytes;
    return p;
  }

  Array *array(int64_t n, Elem e) {
    auto *a = static_cast<Array *>(alloc(sizeof(Array) + size_t(n) * elem_bytes(e)));
    a->length = n;
    return a;
  }

  Value *record(size_t n) {
    return static_cast<Value *>(alloc(sizeof(Value) * std::max<size_t>(n, 1)));
  }

 private:
  static constexpr size_t kBlock = size_t(1) << 20;
  void *fresh(size_t bytes) {
    void *p = std::calloc(1, bytes);
    if (!p) throw std::bad_alloc();
    blocks_.push_back(p);
    return p;
  }
  std::vector<void *> blocks_;
  char *cur_ = nullptr, *end_ = nullptr;
};

// --- The machine -------------------------------------------------------------

enum class Flow { Next, Return, Tail };

class Machine {
 public:
  Machine(const ProgramCode &code, std::FILE *out, RaceDetector *races)
      : code_(code), out_(out), printer_(strings_, out), constants_(code.constants), races_(races) {
    strings_.strings = code.strings;
  }

  void set_stack(uintptr_t low, size_t size) {
    stack_limit_ = low + kStackMargin;
    stack_size_ = size;
  }

  // main with its arguments, then its result printed as kite-run prints it.
  void run_main(const std::vector<std::string> &args) {
    const TaskCode *main = code_.main;
    const ast::TaskDecl &decl = *main->decl;
    host::Artifact signature;
    for (ast::VarDecl *p : decl.param_vars)
      signature.params.push_back({p->name, to_string(p->type)});
    host::MainArgs converted = host::convert_args(signature, args);
    std::vector<Value> values;
    for (size_t i = 0; i < decl.param_vars.size(); ++i)
      values.push_back(argument(decl.param_vars[i]->type, converted, converted.bits[i]));
    Value result = run_task(main, nullptr, values.data(), decl.loc);
    print_result(decl.result_type, result);
  }

 private:
  // One of main's arguments, from kite-run's conversion (raw bits; an array
  // as a reference into its heap image).
  Value argument(Type *t, const host::MainArgs &converted, int64_t bits) {
    if (t->kind != TypeKind::Array) {
      Value v;
      v.l = bits;
      if (t->kind == TypeKind::Int) v.l = int32_t(uint32_t(bits));
      return v;
    }
    auto scalar = *host::array_element_type(to_string(t));
    const auto *image = reinterpret_cast<const unsigned char *>(converted.heap.data());
    int64_t n = converted.heap[bits];
    Elem e = elem_of(t->elem);
    Array *a = heap_.array(n, e);
    const size_t size = host::element_bytes(scalar);
    for (int64_t i = 0; i < n; ++i) {
      Value v;
      v.l = host::load_element(scalar, image + (bits + 1) * 8 + i * size);
      store(e, a->elements() + i * elem_bytes(e), v);
    }
    return of_ptr(a);
  }

  void print_result(Type *t, Value v) {
    if (t->kind == TypeKind::Unit) return;
    if (t->kind == TypeKind::Array) {
      pairs_.clear();
      add_array(t, v);
      write_line();
      return;
    }
    auto scalar = host::scalar_type(to_string(t));
    fmt::print(out_, "{}\n", host::format_scalar(*scalar, bits_of(t, v)));
  }

  // --- Print -----------------------------------------------------------------

  void add_array(Type *t, Value v) {
    auto *a = static_cast<Array *>(v.p);
    int64_t n = a ? a->length : 0;
    pairs_.push_back(KITE_PRINT_LIST);
    pairs_.push_back(n);
    Elem e = elem_of(t->elem);
    for (int64_t i = 0; i < n; ++i) {
      pairs_.push_back(print_tag(t->elem));
      pairs_.push_back(bits_of(t->elem, load(e, a->elements() + i * elem_bytes(e))));
    }
  }

  void write_line() {
    std::string line = printer_.format_record(pairs_.data(), int64_t(pairs_.size() / 2));
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), out_);
  }

  __attribute__((noinline)) void print(const Code *c, Value *f) {
    // The arguments first, then the line (as the device's print helper).
    std::vector<Value> values(c->args.size());
    for (size_t i = 0; i < c->args.size(); ++i)
      if (c->args[i]) values[i] = eval(c->args[i], f);
    if (races_) {
      for (size_t i = 0; i < c->args.size(); ++i) {
        auto *a = c->sites[i] ? static_cast<Array *>(values[i].p) : nullptr;
        Elem e = a ? elem_of(c->types[i]->elem) : Elem::W64;
        for (int64_t k = 0; a && k < a->length; ++k)
          races_->access(a->elements() + k * elem_bytes(e), c->sites[i]);
      }
    }
    pairs_.clear();
    for (size_t i = 0; i < c->args.size(); ++i) {
      if (!c->args[i]) {
        pairs_.push_back(KITE_PRINT_STRING);
        pairs_.push_back(c->strings[i]);
        continue;
      }
      Type *t = c->types[i];
      if (t->kind == TypeKind::Array) {
        add_array(t, values[i]);
      } else if (t->kind == TypeKind::Tuple) {
        auto *members = static_cast<Value *>(values[i].p);
        if (!members) null_value(c->null_names[i], c->args[i]->loc);
        pairs_.push_back(KITE_PRINT_TUPLE);
        pairs_.push_back(int64_t(t->params.size()));
        for (size_t k = 0; k < t->params.size(); ++k) {
          pairs_.push_back(print_tag(t->params[k]));
          pairs_.push_back(bits_of(t->params[k], members[k]));
        }
      } else {
        pairs_.push_back(print_tag(t));
        pairs_.push_back(bits_of(t, values[i]));
      }
    }
    write_line();
  }

  // --- Calls -----------------------------------------------------------------

  [[noreturn]] __attribute__((noinline)) void too_deep(SourceLoc site) {
    fail(host::ErrorKind::TooDeep, site, depth_, int64_t(stack_size_ >> 20));
  }

  // Runs a task to completion; `caps` are a closure's captures. A tail call
  // in it reuses this frame, so tail recursion runs in constant host stack.
  Value run_task(const TaskCode *t, const Value *caps, const Value *args, SourceLoc site) {
    char probe;
    if (reinterpret_cast<uintptr_t>(&probe) < stack_limit_) too_deep(site);
    ++depth_;
    int capacity = std::max(t->slots, 1);
    auto *f = static_cast<Value *>(alloca(sizeof(Value) * capacity));
    for (;;) {
      std::memset(f, 0, sizeof(Value) * t->slots);
      if (t->params) std::memcpy(f, args, sizeof(Value) * t->params);
      if (t->captures) std::memcpy(f + t->params, caps, sizeof(Value) * t->captures);
      Flow flow = run_list(t->body, f, 0);
      if (flow != Flow::Tail) {
        --depth_;
        return flow == Flow::Return ? result_ : Value{};
      }
      t = tail_task_;
      caps = tail_caps_;
      args = tail_args_.data();
      if (t->slots > capacity) {
        capacity = t->slots;
        f = static_cast<Value *>(alloca(sizeof(Value) * capacity));
      }
    }
  }

  // The callee of a call: a named task, or a task value (null is an error,
  // found once the arguments are evaluated, as the device's dispatcher does).
  const TaskCode *callee(const Code *c, Value fn, const Value **caps) {
    if (c->task) {
      *caps = nullptr;
      return c->task;
    }
    auto *closure = static_cast<const Closure *>(fn.p);
    if (!closure) null_value(c->null_name, c->loc);
    *caps = closure->captures;
    return closure->task;
  }

  __attribute__((noinline)) void call(const Code *c, Value *f) {
    Value fn = c->task ? Value{} : eval(c->e, f);
    auto *args = static_cast<Value *>(alloca(sizeof(Value) * std::max<size_t>(c->args.size(), 1)));
    for (size_t i = 0; i < c->args.size(); ++i) args[i] = eval(c->args[i], f);
    const Value *caps;
    const TaskCode *t = callee(c, fn, &caps);
    Value r = run_task(t, caps, args, c->loc);
    if (c->slot >= 0) f[c->slot] = r;
  }

  void tail_call(const Code *c, Value *f) {
    Value fn = c->task ? Value{} : eval(c->e, f);
    tail_args_.resize(c->args.size());
    for (size_t i = 0; i < c->args.size(); ++i) tail_args_[i] = eval(c->args[i], f);
    tail_task_ = callee(c, fn, &tail_caps_);
  }

  // --- Statements ------------------------------------------------------------

  // `list` as part `part` of the statement running now (races.h).
  Flow run_list(const List &list, Value *f, int64_t part) {
    if (!races_) return exec_list(list, f);
    races_->enter(list, part);
    Flow flow = Flow::Next;
    for (size_t i = 0; i < list.size() && flow == Flow::Next; ++i) {
      races_->at(int(i));
      flow = exec(list[i], f);
    }
    races_->leave();
    return flow;
  }

  Flow exec_list(const List &list, Value *f) {
    for (const Code *c : list) {
      Flow flow = exec(c, f);
      if (flow != Flow::Next) return flow;
    }
    return Flow::Next;
  }

  Flow exec(const Code *c, Value *f) {
    switch (c->op) {
      case CodeOp::Eval:
        eval(c->e, f);
        return Flow::Next;
      case CodeOp::Print:
        print(c, f);
        return Flow::Next;
      case CodeOp::Decl: {
        Value v = c->e ? eval(c->e, f) : Value{};
        for (int s : c->slots) f[s] = v;
        return Flow::Next;
      }
      case CodeOp::Set:
        f[c->slot] = eval(c->e, f);
        return Flow::Next;
      case CodeOp::SetAlias: {
        Value v = eval(c->e, f);
        unsigned char *p = element_at(f[c->slot], as_int(f[c->slot2]), c->elem, c->loc);
        if (races_) races_->access(p, c->site);
        store(c->elem, p, v);
        return Flow::Next;
      }
      case CodeOp::SetIndex: {
        Value v = eval(c->e, f);
        Value a = eval(c->a, f);
        int32_t i = as_int(eval(c->b, f));
        unsigned char *p = element_at(a, i, c->elem, c->loc);
        if (races_) races_->access(p, c->site);
        store(c->elem, p, v);
        return Flow::Next;
      }
      case CodeOp::SetField: {
        Value v = eval(c->e, f);
        auto *r = static_cast<Value *>(eval(c->a, f).p);
        if (!r) null_value(c->null_name, c->loc);
        if (races_) races_->access(&r[c->slot], c->site);
        r[c->slot] = v;
        return Flow::Next;
      }
      case CodeOp::Call:
        call(c, f);
        return Flow::Next;
      case CodeOp::TailCall:
        tail_call(c, f);
        if (races_) races_->tail_call();
        return Flow::Tail;
      case CodeOp::Return:
        result_ = c->e ? eval(c->e, f) : Value{};
        return Flow::Return;
      case CodeOp::If:
        return run_list(as_int(eval(c->e, f)) ? c->body : c->other, f, 0);
      case CodeOp::Then: {
        Flow flow = run_list(c->body, f, 0);
        return flow != Flow::Next ? flow : run_list(c->other, f, 1);
      }
      case CodeOp::Case:
        return exec_case(c, f);
      case CodeOp::For:
      case CodeOp::Map:
        loop(c, f);
        return Flow::Next;
      case CodeOp::While:
        // Iteration k: its condition's calls (part 2k), then the
        // condition and the body (part 2k + 1).
        for (int64_t k = 0;; ++k) {
          run_list(c->other, f, 2 * k);
          if (races_) races_->enter(c->body, 2 * k + 1), races_->at(-1);
          bool go_on = as_int(eval(c->e, f));
          if (races_) races_->leave();
          if (!go_on) break;
          run_list(c->body, f, 2 * k + 1);
        }
        return Flow::Next;
    }
    return Flow::Next;
  }

  Flow exec_case(const Code *c, Value *f) {
    auto *u = static_cast<Value *>(eval(c->e, f).p);
    if (!u) null_value(c->null_name, c->loc);
    const Arm *chosen = nullptr;
    for (const Arm &arm : c->arms) {
      if (arm.field == u[0].l) {
        chosen = &arm;
        break;
      }
      if (arm.field < 0) chosen = &arm;
    }
    if (!chosen) fail(host::ErrorKind::Case, c->loc);
    if (chosen->field >= 0 && chosen->binder >= 0) f[chosen->binder] = u[1];
    return run_list(chosen->body, f, 0);
  }

  // A for runs its iterations in order with the index in its slot (the body
  // may assign it); a map's iteration k starts with the index k. A map's
  // iterations run in copies of the record taken when it starts; as a map
  // body assigns no variable declared outside it, running them in this
  // frame one after another is the same.
  void loop(const Code *c, Value *f) {
    Value coll = eval(c->e, f);
    f[c->slot] = coll;
    int64_t n = c->is_range ? range_length(coll)
                : coll.p    ? static_cast<Array *>(coll.p)->length
                            : 0;
    if (c->op == CodeOp::For) {
      int64_t k = 0;
      for (f[c->slot2] = of_int(0); as_int(f[c->slot2]) < n;
           f[c->slot2] = of_int(wrap32(uint64_t(f[c->slot2].l) + 1)))
        run_list(c->body, f, k++);
    } else {
      for (int64_t k = 0; k < n; ++k) {
        f[c->slot2] = of_int(int32_t(k));
        run_list(c->body, f, k);
      }
    }
  }

  // --- Heap access -------------------------------------------------------------

  // Element i of array a, checked as kite_elem checks it (null: length 0).
  unsigned char *element_at(Value a, int32_t i, Elem e, SourceLoc loc) {
    auto *array = static_cast<Array *>(a.p);
    int64_t n = array ? array->length : 0;
    if (i < 0 || i >= n) out_of_bounds(i, n, loc);
    return array->elements() + size_t(i) * elem_bytes(e);
  }

  template <typename T>
  T *record_field(Value r, const Node *n) {
    if (!r.p) null_value(n->null_name, n->loc);
    return static_cast<T *>(r.p);
  }

  // --- Expressions -------------------------------------------------------------

  Value eval(const Node *n, Value *f) {
    switch (n->op) {
      case Op::Const:
        return n->imm;
      case Op::Local:
        return f[n->slot];
      case Op::AliasElem: {
        unsigned char *p = element_at(f[n->slot], as_int(f[n->slot2]), n->elem, n->loc);
        if (races_) races_->access(p, n->site);
        return load(n->elem, p);
      }
      case Op::AliasRange:
        return of_int(wrap32(uint64_t(range_first(f[n->slot])) + uint64_t(f[n->slot2].l)));
      case Op::Global:
        return constant(n->slot);
      case Op::TaskValue:
        return of_ptr(const_cast<Closure *>(&n->task->self));
      case Op::MakeClosure: {
        auto *c =
            static_cast<Closure *>(heap_.alloc(sizeof(Closure) + sizeof(Value) * n->list.size()));
        c->task = n->task;
        for (size_t i = 0; i < n->list.size(); ++i) c->captures[i] = eval(n->list[i], f);
        return of_ptr(c);
      }

      case Op::NegI:
        return of_int(wrap32(0 - uint64_t(eval(n->a, f).l)));
      case Op::NegL:
        return of_long(sub64(0, eval(n->a, f).l));
      case Op::NegF:
        return of_float(-eval(n->a, f).f);
      case Op::NegD:
        return of_double(-eval(n->a, f).d);
      case Op::Not:
        return of_long(eval(n->a, f).l == 0);
      case Op::BitNot:
        return of_long(~eval(n->a, f).l);

// clang-format off
#define KITE_BIN(name, expr) \
  case Op::name: { Value x = eval(n->a, f); Value y = eval(n->b, f); return expr; }
        KITE_BIN(AddI, of_int(wrap32(x.u + y.u)))
        KITE_BIN(AddL, of_long(add64(x.l, y.l)))
        KITE_BIN(AddF, of_float(x.f + y.f))
        KITE_BIN(AddD, of_double(x.d + y.d))
        KITE_BIN(SubI, of_int(wrap32(x.u - y.u)))
        KITE_BIN(SubL, of_long(sub64(x.l, y.l)))
        KITE_BIN(SubF, of_float(x.f - y.f))
        KITE_BIN(SubD, of_double(x.d - y.d))
        KITE_BIN(MulI, of_int(wrap32(x.u * y.u)))
        KITE_BIN(MulL, of_long(mul64(x.l, y.l)))
        KITE_BIN(MulF, of_float(x.f * y.f))
        KITE_BIN(MulD, of_double(x.d * y.d))
        KITE_BIN(DivF, of_float(x.f / y.f))
        KITE_BIN(DivD, of_double(x.d / y.d))
        KITE_BIN(ShlI, of_int(wrap32(uint64_t(uint32_t(x.u) << (y.u & 31)))))
        KITE_BIN(ShlL, of_long(int64_t(x.u << (y.u & 63))))
        KITE_BIN(ShrI, of_int(as_int(x) >> (y.u & 31)))
        KITE_BIN(ShrL, of_long(x.l >> (y.u & 63)))
        KITE_BIN(BitAnd, of_long(x.l & y.l))
        KITE_BIN(BitOr, of_long(x.l | y.l))
        KITE_BIN(BitXor, of_long(x.l ^ y.l))
        KITE_BIN(LtL, of_long(x.l < y.l))
        KITE_BIN(LeL, of_long(x.l <= y.l))
        KITE_BIN(GtL, of_long(x.l > y.l))
        KITE_BIN(GeL, of_long(x.l >= y.l))
        KITE_BIN(EqL, of_long(x.l == y.l))
        KITE_BIN(NeL, of_long(x.l != y.l))
        KITE_BIN(LtF, of_long(x.f < y.f))
        KITE_BIN(LeF, of_long(x.f <= y.f))
        KITE_BIN(GtF, of_long(x.f > y.f))
        KITE_BIN(GeF, of_long(x.f >= y.f))
        KITE_BIN(EqF, of_long(x.f == y.f))
        KITE_BIN(NeF, of_long(x.f != y.f))
        KITE_BIN(LtD, of_long(x.d < y.d))
        KITE_BIN(LeD, of_long(x.d <= y.d))
        KITE_BIN(GtD, of_long(x.d > y.d))
        KITE_BIN(GeD, of_long(x.d >= y.d))
        KITE_BIN(EqD, of_long(x.d == y.d))
        KITE_BIN(NeD, of_long(x.d != y.d))
        KITE_BIN(MinL, of_long(std::min(x.l, y.l)))
        KITE_BIN(MaxL, of_long(std::max(x.l, y.l)))
        KITE_BIN(MinF, of_float(std::fmin(x.f, y.f)))
        KITE_BIN(MaxF, of_float(std::fmax(x.f, y.f)))
        KITE_BIN(MinD, of_double(std::fmin(x.d, y.d)))
        KITE_BIN(MaxD, of_double(std::fmax(x.d, y.d)))
        KITE_BIN(PowF, of_float(std::pow(x.f, y.f)))
        KITE_BIN(PowD, of_double(std::pow(x.d, y.d)))
#undef KITE_BIN
        // clang-format on

      case Op::Range: {
        Value x = eval(n->a, f), y = eval(n->b, f);
        // A loop's index and a range's length are ints.
        if (int64_t(as_int(y)) - int64_t(as_int(x)) >= INT32_MAX)
          fail(host::ErrorKind::Range, n->loc, as_int(x), as_int(y));
        return of_long(int64_t(range_of(as_int(x), as_int(y))));
      }
      case Op::DivI: {
        int32_t x = as_int(eval(n->a, f)), y = as_int(eval(n->b, f));
        if (y == 0) division_by_zero(n->loc);
        return of_int(divide<int32_t, uint32_t>(x, y));
      }
      case Op::DivL: {
        int64_t x = eval(n->a, f).l, y = eval(n->b, f).l;
        if (y == 0) division_by_zero(n->loc);
        return of_long(divide<int64_t, uint64_t>(x, y));
      }
      case Op::ModI: {
        int32_t x = as_int(eval(n->a, f)), y = as_int(eval(n->b, f));
        if (y == 0) division_by_zero(n->loc);
        return of_int(remainder(x, y));
      }
      case Op::ModL: {
        int64_t x = eval(n->a, f).l, y = eval(n->b, f).l;
        if (y == 0) division_by_zero(n->loc);
        return of_long(remainder(x, y));
      }
      case Op::And:
        return of_long(eval(n->a, f).l && eval(n->b, f).l);
      case Op::Or:
        return of_long(eval(n->a, f).l || eval(n->b, f).l);

      case Op::Field: {
        Value *r = record_field<Value>(eval(n->a, f), n);
        if (races_ && n->site) races_->access(&r[n->slot], n->site);
        return r[n->slot];
      }
      case Op::Index: {
        Value a = eval(n->a, f);
        int32_t i = as_int(eval(n->b, f));
        unsigned char *p = element_at(a, i, n->elem, n->loc);
        if (races_) races_->access(p, n->site);
        return load(n->elem, p);
      }
      case Op::Tuple:
      case Op::Struct: {
        // Members first, then the record (as the device's helper).
        auto *values =
            static_cast<Value *>(alloca(sizeof(Value) * std::max<size_t>(n->list.size(), 1)));
        for (size_t i = 0; i < n->list.size(); ++i)
          values[i] = n->list[i] ? eval(n->list[i], f) : Value{};
        Value *r = heap_.record(n->list.size());
        std::memcpy(r, values, sizeof(Value) * n->list.size());
        return of_ptr(r);
      }
      case Op::Union: {
        Value v = eval(n->a, f);
        Value *r = heap_.record(2);
        r[0] = of_long(n->slot);
        r[1] = v;
        return of_ptr(r);
      }
      case Op::New: {
        int32_t count = as_int(eval(n->a, f));
        if (count < 0) fail(host::ErrorKind::Length, n->loc, count);
        return of_ptr(heap_.array(count, n->elem));
      }

      case Op::Convert:
        return convert(eval(n->a, f), n->from, n->to);
      case Op::AbsI: {
        int32_t x = as_int(eval(n->a, f));
        return of_int(wrap32(x < 0 ? 0u - uint32_t(x) : uint32_t(x)));
      }
      case Op::AbsL: {
        int64_t x = eval(n->a, f).l;
        return of_long(x < 0 ? sub64(0, x) : x);
      }
      case Op::AbsF:
        return of_float(std::fabs(eval(n->a, f).f));
      case Op::AbsD:
        return of_double(std::fabs(eval(n->a, f).d));
      case Op::SqrtF:
        return of_float(std::sqrt(eval(n->a, f).f));
      case Op::SqrtD:
        return of_double(std::sqrt(eval(n->a, f).d));
      case Op::ExpF:
        return of_float(std::exp(eval(n->a, f).f));
      case Op::ExpD:
        return of_double(std::exp(eval(n->a, f).d));
      case Op::LogF:
        return of_float(std::log(eval(n->a, f).f));
      case Op::LogD:
        return of_double(std::log(eval(n->a, f).d));
      case Op::SinF:
        return of_float(std::sin(eval(n->a, f).f));
      case Op::SinD:
        return of_double(std::sin(eval(n->a, f).d));
      case Op::CosF:
        return of_float(std::cos(eval(n->a, f).f));
      case Op::CosD:
        return of_double(std::cos(eval(n->a, f).d));
      case Op::FloorF:
        return of_float(std::floor(eval(n->a, f).f));
      case Op::FloorD:
        return of_double(std::floor(eval(n->a, f).d));
      case Op::Hash:
        return of_long(kite_hash(eval(n->a, f).l));
      case Op::LengthArray: {
        auto *a = static_cast<Array *>(eval(n->a, f).p);
        return of_int(a ? int32_t(a->length) : 0);
      }
      case Op::LengthRange:
        return of_int(range_length(eval(n->a, f)));

      case Op::AtomicAdd:
      case Op::AtomicMin:
      case Op::AtomicMax:
      case Op::AtomicCas:
        return atomic(n, f);
    }
    internal_error("unknown interpreter op");
  }

  // Atomics run alone here: read the old value, write the new one.
  __attribute__((noinline)) Value atomic(const Node *n, Value *f) {
    Value a = eval(n->a, f);
    int32_t i = as_int(eval(n->b, f));
    Value v = eval(n->c, f);                             // the operand; atomic_cas: expected
    Value replacement = n->d ? eval(n->d, f) : Value{};  // atomic_cas: the new value
    unsigned char *p = element_at(a, i, n->elem, n->loc);
    if (races_) races_->access(p, n->site);
    Value old = load(n->elem, p);
    bool wide = n->elem == Elem::W64;
    Value now = old;
    switch (n->op) {
      case Op::AtomicAdd:
        now = wide ? of_long(add64(old.l, v.l)) : of_int(wrap32(old.u + v.u));
        break;
      case Op::AtomicMin:
        now = of_long(std::min(old.l, v.l));
        break;
      case Op::AtomicMax:
        now = of_long(std::max(old.l, v.l));
        break;
      default:
        if (old.l == v.l) now = replacement;
        break;
    }
    store(n->elem, p, now);
    return old;
  }

  // A top-level constant, computed where it is first used (an error in it
  // is reported there, as on the device, which computes it at every use).
  Value constant(int id) {
    Constant &c = constants_[id];
    if (!c.known) {
      c.value = eval(c.init, nullptr);
      c.known = true;
    }
    return c.value;
  }

  const ProgramCode &code_;
  std::FILE *out_;
  host::Artifact strings_;  // print's string literals, where the Printer looks them up
  host::Printer printer_;
  std::vector<Constant> constants_;
  Heap heap_;
  std::vector<int64_t> pairs_;
  Value result_{};
  const TaskCode *tail_task_ = nullptr;
  const Value *tail_caps_ = nullptr;
  std::vector<Value> tail_args_;
  uintptr_t stack_limit_ = 0;
  size_t stack_size_ = 0;
  int64_t depth_ = 0;
  RaceDetector *races_;  // null unless --races
};

// The interpreter's thread: its stack, and what it ended with.
struct Job {
  Machine *machine;
  const std::vector<std::string> *args;
  std::exception_ptr error;
};

void *run_job(void *p) {
  auto *job = static_cast<Job *>(p);
  try {
    pthread_attr_t attr;
    void *low = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      pthread_attr_getstack(&attr, &low, &size);
      pthread_attr_destroy(&attr);
    }
    job->machine->set_stack(reinterpret_cast<uintptr_t>(low), size);
    job->machine->run_main(*job->args);
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

void run(const ast::Program &program, const std::vector<std::string> &args, std::FILE *out,
         const Options &options) {
  std::unique_ptr<ProgramCode> code = compile(program);
  std::unique_ptr<RaceDetector> races;
  if (options.on_race) races = std::make_unique<RaceDetector>(*code, options.on_race);
  Machine machine(*code, out, races.get());
  Job job{&machine, &args, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, std::max(options.stack_bytes, kStackMargin * 2));
  pthread_t thread;
  int err = pthread_create(&thread, &attr, run_job, &job);
  pthread_attr_destroy(&attr);
  if (err != 0) {
    throw host::RunError(
        fmt::format("cannot start the interpreter's thread with a {} MiB stack: {}",
                    options.stack_bytes >> 20, std::strerror(err)));
  }
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

std::string where(SourceLoc loc, const std::string &source_path) {
  if (!loc.valid()) return "";
  return fmt::format(" at {}:{}:{}", loc.in_prelude() ? kPreludePath : source_path, loc.line,
                     loc.col);
}

}  // namespace kite::interp
