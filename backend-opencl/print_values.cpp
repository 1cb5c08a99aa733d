// How values are held: their C types, record slots and heap records (structs,
// tuples, unions), what print writes, and main's record made from the arguments.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "backend-opencl/printer.h"

namespace kite::print {

namespace {

// How a value of a type is held in C and in a record slot: the one switch
// over TypeKind that the helpers below share.
enum class Repr { Int, Float, Double, Long };

Repr repr(const Type *t) {
  switch (t->kind) {
    case TypeKind::Int:
    case TypeKind::Bool:
      return Repr::Int;
    case TypeKind::Float:
      return Repr::Float;
    case TypeKind::Double:
      return Repr::Double;
    case TypeKind::Long:
    case TypeKind::Range:  // both ends in one long
    case TypeKind::Unit:
    case TypeKind::String:
    case TypeKind::Future:
    case TypeKind::Task:
    case TypeKind::Array:
    case TypeKind::Tuple:
    case TypeKind::Struct:
    case TypeKind::Union:
      return Repr::Long;  // heap references, task ids
  }
  return Repr::Long;
}

int print_tag(const Type *t) {
  switch (t->kind) {
    case TypeKind::Int:
      return 1;
    case TypeKind::Long:
      return 2;
    case TypeKind::Float:
      return 3;
    case TypeKind::Double:
      return 4;
    case TypeKind::Bool:
      return 5;
    case TypeKind::Range:
      return 9;
    case TypeKind::Unit:
    case TypeKind::String:
    case TypeKind::Future:
    case TypeKind::Task:
    case TypeKind::Array:
    case TypeKind::Tuple:
    case TypeKind::Struct:
    case TypeKind::Union:
      return 6;  // KITE_PRINT_STRING; arrays and tuples print by their parts (emit_print)
  }
  return 6;
}

}  // namespace

// Heap values, ranges and longs live in 8 bytes; the rest in 4.
bool is_wide(const Type *t) {
  return !(t->kind == TypeKind::Int || t->kind == TypeKind::Float || t->kind == TypeKind::Bool);
}

std::string c_type(const Type *t) {
  switch (repr(t)) {
    case Repr::Int:
      return "int";
    case Repr::Float:
      return "float";
    case Repr::Double:
      return "double";
    case Repr::Long:
      return "long";
  }
  return "long";
}

// The typed slot accessor (runtime-cl/device/context.cl) for values of type t.
const char *slot_macro(const Type *t) {
  switch (repr(t)) {
    case Repr::Int:
      return "KITE_I";
    case Repr::Float:
      return "KITE_F";
    case Repr::Double:
      return "KITE_D";
    case Repr::Long:
      return "KITE_L";
  }
  return "KITE_L";
}

// A value as the raw bits of a long (results, arguments), and back.
std::string to_bits(const Type *t, const std::string &v) {
  switch (repr(t)) {
    case Repr::Float:
      return "(long)as_uint(" + v + ")";
    case Repr::Double:
      return "as_long(" + v + ")";
    case Repr::Int:
      return "(long)(" + v + ")";
    case Repr::Long:
      return "(" + v + ")";
  }
  return "(" + v + ")";
}
std::string from_bits(const Type *t, const std::string &bits) {
  switch (repr(t)) {
    case Repr::Float:
      return "as_float((uint)(" + bits + "))";
    case Repr::Double:
      return "as_double(" + bits + ")";
    case Repr::Int:
      return "(int)(" + bits + ")";
    case Repr::Long:
      return "(" + bits + ")";
  }
  return "(" + bits + ")";
}

std::string Printer::slot(const VarDecl *v, const char *record) {
  if (auto it = env_.find(v); it != env_.end() && std::string(record) == "f")
    return it->second.name;
  int s = p_.tasks[task_].var_slot[v->id];
  return fmt::format("{}({}, {})", slot_macro(v->type), record, s);
}

// A heap record of 8-byte slots (struct, tuple; a union when tag >= 0:
// the tag, then the one value), made by a helper function emitted once
// per construction site.
std::string Printer::make_record(const std::vector<std::pair<const Type *, std::string>> &members,
                                 int tag, SourceLoc loc) {
  int id = helper_count_++;
  std::ostringstream h;
  size_t longs = members.size() + (tag >= 0 ? 1 : 0);
  h << "long kite_make_" << id << "(kite_ctx *c";
  for (size_t i = 0; i < members.size(); ++i) h << ", " << c_type(members[i].first) << " v" << i;
  h << ") {\n";
  h << fmt::format("  long r = kite_heap_alloc(c, {}, {});\n", std::max<size_t>(longs, 1),
                   site(loc));
  h << "  if (r == 0) return 0;\n";
  h << "  KITE_DATA __global long *h = c->heap + r;\n";
  size_t first = 0;
  if (tag >= 0) {
    h << fmt::format("  h[0] = {};\n", tag);
    first = 1;
  }
  for (size_t i = 0; i < members.size(); ++i)
    h << fmt::format("  {}(h, {}) = v{};\n", slot_macro(members[i].first), first + i, i);
  h << "  return r;\n}\n\n";
  helpers_ << in_part(helper_task_, h.str());
  std::string call = fmt::format("kite_make_{}(c", id);
  for (auto &m : members) call += ", " + m.second;
  return call + ")";
}

std::string Printer::construct(const Expr &e, const Type *t) {
  const StructDecl *sd = nullptr;
  sd = source_.find_struct(t->name);
  if (t->kind == TypeKind::Union) {
    const FieldInit &f = e.fields[0];
    int tag = 0;
    for (size_t k = 0; k < sd->fields.size(); ++k)
      if (sd->fields[k].name == f.name) tag = int(k);
    return make_record({{f.value->type->forced(), expr(*f.value)}}, tag, e.loc);
  }
  // Fields not given are zero (a null reference for heap values).
  std::vector<std::pair<const Type *, std::string>> members;
  for (auto &field : sd->fields) {
    const FieldInit *init = nullptr;
    for (auto &f : e.fields)
      if (f.name == field.name) init = &f;
    if (init)
      members.push_back({init->value->type->forced(), expr(*init->value)});
    else
      members.push_back({nullptr, "0"});
  }
  for (auto &m : members)
    if (!m.first) m.first = t;  // zero stored as a long: any 8-byte slot type will do
  return make_record(members, -1, e.loc);
}

// print(...) becomes a helper that counts the record's items, reserves
// them at once (so lines never interleave) and writes them.
void Printer::emit_print(const Expr &call, std::ostream &s, int ind) {
  int id = helper_count_++;
  std::ostringstream h;
  h << "void kite_print_" << id << "(kite_ctx *c";
  std::string args;
  size_t n = call.children.size() - 1;
  for (size_t i = 0; i < n; ++i) {
    const Expr &a = *call.children[i + 1];
    if (a.kind == ExprKind::StringLit) continue;
    h << ", " << c_type(a.type->forced()) << " a" << i;
    args += ", " + expr(a);
  }
  h << ") {\n  int items = 0;\n";
  // A tuple never given a value is an error before anything is printed.
  for (size_t i = 0; i < n; ++i) {
    const Expr &a = *call.children[i + 1];
    const Type *t = a.type ? a.type->forced() : nullptr;
    if (t && t->kind == TypeKind::Tuple)
      h << fmt::format("  if (a{} == 0) {{ kite_error(c, KITE_ERR_NULL, {}, {}, 0); return; }}\n",
                       i, site(a.loc), null_name(call, i + 1));
  }
  for (size_t i = 0; i < n; ++i) {
    const Expr &a = *call.children[i + 1];
    const Type *t = a.type ? a.type->forced() : nullptr;
    if (t && t->kind == TypeKind::Array)
      h << fmt::format("  items += 1 + kite_length(c, a{});\n", i);
    else if (t && t->kind == TypeKind::Tuple)
      h << fmt::format("  items += {};\n", 1 + t->params.size());
    else
      h << "  items += 1;\n";
  }
  h << "  int p = kite_print_reserve(c, items);\n  if (p < 0) return;\n";
  h << "  volatile __global long *out = c->printbuf + p;\n";
  for (size_t i = 0; i < n; ++i) {
    const Expr &a = *call.children[i + 1];
    if (a.kind == ExprKind::StringLit) {
      out_.strings.push_back(a.text);
      h << fmt::format("  out[0] = KITE_PRINT_STRING; out[1] = {}; out += 2;\n",
                       out_.strings.size() - 1);
      continue;
    }
    const Type *t = a.type->forced();
    std::string v = fmt::format("a{}", i);
    if (t->kind == TypeKind::Array) {
      const Type *e = t->elem;
      h << fmt::format(
          "  {{ int len = kite_length(c, {}); out[0] = KITE_PRINT_LIST; out[1] = len; out += 2;\n",
          v);
      h << fmt::format(
          "    KITE_DATA __global {} *el = (KITE_DATA __global {} *)(c->heap + {} + 1);\n",
          c_type(e), c_type(e), v);
      h << fmt::format(
          "    for (int k = 0; k < len; ++k) {{ out[0] = {}; out[1] = {}; out += 2; }} }}\n",
          print_tag(e), to_bits(e, "el[k]"));
    } else if (t->kind == TypeKind::Tuple) {
      h << fmt::format("  {{ KITE_DATA __global long *m = kite_field(c, {}, 0, -1, -1);\n", v);
      h << fmt::format("    out[0] = KITE_PRINT_TUPLE; out[1] = {}; out += 2;\n", t->params.size());
      for (size_t k = 0; k < t->params.size(); ++k) {
        const Type *mt = t->params[k];
        h << fmt::format("    out[0] = {}; out[1] = {}; out += 2;\n", print_tag(mt),
                         to_bits(mt, fmt::format("{}(m, {})", slot_macro(mt), k)));
      }
      h << "  }\n";
    } else {
      h << fmt::format("  out[0] = {}; out[1] = {}; out += 2;\n", print_tag(t), to_bits(t, v));
    }
  }
  h << "}\n\n";
  helpers_ << h.str();
  line(s, ind, fmt::format("kite_print_{}(c{});", id, args));
}

void Printer::emit_start(std::ostream &out) {
  std::ostringstream s;  // only main's part starts the run
  const TaskDecl *main = source_.tasks[size_t(source_.main)].decl.get();
  const cps::Task &ct = p_.tasks[main->id];
  task_ = main->id;
  s << "void kite_start_main(kite_ctx *c) {\n";
  line(s, 2, "int rec = kite_alloc(c, -1);");
  line(s, 2, "if (rec < 0) return;");
  line(s, 2, "kite_rec f = KITE_REC(c, rec);");
  line(s, 2, "f[0] = KITE_LINK(-1, 0);");
  for (size_t i = 0; i < main->param_vars.size(); ++i) {
    const VarDecl *v = main->param_vars[i];
    line(s, 2,
         slot(v) + " = " + from_bits(v->type, fmt::format("c->ctl64[KITE_CTL64_ARGS + {}]", i)) +
             ";");
    out_.params.push_back({v->name, to_string(v->type)});
  }
  line(s, 2, fmt::format("kite_ready(c, rec, {});", p_.blocks[ct.entry_block].code));
  s << "}\n";
  out << in_part(main->id, s.str());
  out_.result = to_string(main->result_type);
}

void Printer::emit_constant(const ValueDecl &v, std::ostream &s) {
  s << fmt::format("{} kite_const_{}(kite_ctx *c) {{ return {}; }}\n\n", c_type(v.checked_type),
                   v.name, expr(*v.init));
}

}  // namespace kite::print
