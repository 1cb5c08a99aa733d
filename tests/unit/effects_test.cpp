// ir/effects.h: what expressions do besides giving their values, what
// statements write, and what a loop's element stands for, each option
// answering as its comment says.
#include "ir/effects.h"

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "driver/pipeline.h"
#include "frontend/builtins.h"

namespace {

using namespace kite;

const char *kProgram = R"(task f(x: int): int { return x; }
task main(n: int): int {
  a = new<int>(n);
  m = new<array<int>>(2);
  m[0] <- a;
  s = 0;
  t = (n, 1);
  for (x = a[i]) {
    x <- min(i, n) + length(a);
    s <- atomic_add(a[0], 1);
  }
  for (y = m[0][j]) { y <- j; }
  print(s, t.0);
  return f(s) + 1;
}
)";

struct Compiled {
  SourceFile file{"t.kite", kProgram};
  std::ostringstream errors;
  Compilation c;
  Compiled() { REQUIRE(compile(file, CompileOptions{}, errors, c) == 0); }
  const anf::Task &main() const { return c.anf.tasks[size_t(c.anf.main)]; }
};

std::vector<std::string> names(const effects::Effects &f) {
  std::vector<std::string> out;
  for (const ast::Expr *name : f.names) out.push_back(name->text);
  return out;
}

std::vector<std::string> written(const anf::Stmt &st, effects::Element element) {
  std::vector<std::string> out;
  effects::for_each_written(st, element, [&](const ast::VarDecl *v) { out.push_back(v->name); });
  return out;
}

}  // namespace

TEST_CASE("the built-ins' table: a pure built-in does nothing else, an atomic one writes") {
  CHECK(builtin_info(Builtin::min_).pure);
  CHECK_FALSE(builtin_info(Builtin::length_).pure);
  CHECK(builtin_info(Builtin::length_).length);
  CHECK(builtin_info(Builtin::print_).prints);
  CHECK(builtin_info(Builtin::atomic_cas_).writes);
  CHECK(builtin_info(Builtin::atomic_cas_).atomic);
  Builtin b;
  REQUIRE(find_builtin("atomic_add", &b));
  CHECK(std::string(builtin_info(b).name) == "atomic_add");
  CHECK_FALSE(find_builtin("fib", &b));
}

TEST_CASE("effects of expressions: what each does, and the names it reads") {
  Compiled c;
  const anf::StmtList &body = c.main().body;
  const anf::Stmt &loop = *body[5];
  REQUIRE(loop.kind == anf::StmtKind::For);

  // x <- min(i, n) + length(a): a length is read, nothing else done.
  effects::Effects length = effects::of(*loop.body[0]->expr);
  CHECK(length.only_reads());
  CHECK(length.reads);
  CHECK(names(length) == std::vector<std::string>{"i", "n", "a"});
  CHECK_FALSE(effects::only_computes(*loop.body[0]->expr, [](const ast::Expr &) { return true; }));

  // s <- atomic_add(a[0], 1) writes an element.
  effects::Effects atomic = effects::of(*loop.body[1]->expr);
  CHECK(atomic.writes);
  CHECK_FALSE(atomic.only_reads());

  // t = (n, 1) makes a tuple, which no other allocation is.
  effects::Effects tuple = effects::of(*body[4]->expr);
  CHECK(tuple.tuples);
  CHECK_FALSE(tuple.allocates);
  CHECK(effects::of(*body[0]->expr).allocates);  // new

  // print(s, t.0) prints and reads a field; f(s) calls a task.
  effects::Effects print = effects::of(*body[7]->expr);
  CHECK(print.prints);
  CHECK(print.reads);
  CHECK(effects::of(*body[9]->expr).calls);

  // j, as the loop's body reads it, only computes from a name accepted.
  const anf::Stmt &rows = *body[6];
  CHECK(effects::only_computes(*rows.body[0]->expr, [](const ast::Expr &) { return true; }));
  CHECK_FALSE(effects::only_computes(*rows.body[0]->expr, [](const ast::Expr &) { return false; }));
}

TEST_CASE("what a statement writes: a loop's element as its collection or as a variable") {
  Compiled c;
  const anf::Stmt &loop = *c.main().body[5];
  // The loop binds its collection (_c), its index and its element.
  CHECK(written(loop, effects::Element::AsCollection) == std::vector<std::string>{"_c", "i"});
  CHECK(written(loop, effects::Element::AsVariable) == std::vector<std::string>{"_c", "i", "x"});
  // x <- ... writes the element either way.
  const anf::Stmt &set = *loop.body[0];
  CHECK(written(set, effects::Element::AsCollection) == std::vector<std::string>{"x"});
  CHECK(written(set, effects::Element::AsVariable) == std::vector<std::string>{"x"});
}

TEST_CASE("a loop's element stands for the variable its collection is reached through") {
  Compiled c;
  const anf::Task &main = c.main();
  const anf::Stmt &loop = *main.body[5], &rows = *main.body[6];
  auto collections = [&](const anf::Stmt &l) {
    std::vector<std::string> out;
    for (int id : effects::element_collections(main, l.elem_var->id))
      out.push_back(main.vars[size_t(id)]->name);
    return out;
  };
  // for (x = a[i]): a.
  CHECK(collections(loop) == std::vector<std::string>{"a"});
  // for (y = m[0][j]): m, through an index.
  CHECK(collections(rows) == std::vector<std::string>{"m"});
  // Neither stands for anything but an element.
  CHECK(effects::element_collections(main, loop.index_var->id).empty());
}

TEST_CASE("what writing through an expression writes: the variable it is reached through") {
  Compiled c;
  const anf::StmtList &body = c.main().body;
  // m[0] <- a: m, not a.
  REQUIRE(body[2]->kind == anf::StmtKind::Set);
  CHECK(effects::reached_through(*body[2]->target)->name == "m");
  CHECK(effects::reached_through(*body[2]->expr)->name == "a");
  // new<int>(n): no variable.
  CHECK(effects::reached_through(*body[0]->expr) == nullptr);
  // m[0]: m at an index, no one field; a: the whole value.
  effects::Reach target = effects::reach(*body[2]->target), value = effects::reach(*body[2]->expr);
  CHECK((target.field == effects::kAnyField && !target.whole));
  CHECK((value.var->name == "a" && value.field == effects::kAnyField && value.whole));
}

namespace {

const char *kWrites = R"(struct box { items: array<int>; }
task set_first(a: array<int>) { a[0] <- 1; }
task passes_on(b: array<int>) { set_first(b); }
task reads(c: array<int>): int { return c[0]; }
task bumps(d: array<int>): int { return atomic_add(d[0], 1); }
task elements(e: array<int>) { for (x = e[i]) { x <- i; } }
task rows(q: array<array<int>>) { for (r = q[i]) { r[0] <- i; } }
task cells(u: array<array<int>>) { for (r = u[i]) { for (x = r[j]) { x <- j; } } }
task field(p: box) { p.items[0] <- 2; }
task gives(f: task<array<int>, unit>, g: array<int>) { f(g); }
task main(n: int) {
  h = new<int>(n);
  k = task (): int { h[0] <- 3; return 0; };
  print(k());
}
)";

}  // namespace

TEST_CASE("what the program writes through: assignments, atomics, elements, calls, captures") {
  SourceFile file{"t.kite", kWrites};
  std::ostringstream errors;
  Compilation c;
  REQUIRE(compile(file, CompileOptions{}, errors, c) == 0);
  std::set<std::string> written;
  for (const auto &[v, fields] : effects::written_through(c.anf)) written.insert(v->name);
  // a, and b through set_first's a; not c, which is only read; d by the
  // atomic; e through its element; q through its element r, which r[0] <-
  // writes, and u through the element r of the element x; p through its
  // field; g, given to a task value; h, which k captured (the anonymous
  // task writes it through its closure's field).
  CHECK(written == std::set<std::string>{"a", "b", "d", "e", "q", "r", "u", "p", "g", "h"});
}

namespace {

// Fields of stats: items 0, rows 1, n 2.
const char *kFields = R"(struct stats { items: array<int>; rows: array<array<int>>; n: int; }
union cell { values: array<int>; none: bool; }
task set_first(a: array<int>) { a[0] <- 1; }
task atom(p: stats) { atomic_add(p.items[0], 1); }
task elements(q: stats) { for (x = q.items) { x <- 0; } }
task nested(r: stats) { for (row = r.rows) { for (x = row) { x <- 0; } } }
task passes_on(s: stats) { atom(s); }
task part(t: stats) { set_first(t.items); }
task assigns(u: stats) { u.n <- 1; }
task reads(v: stats): int { return v.n + v.items[0]; }
task gives(f: task<stats, unit>, w: stats) { f(w); }
task wraps(g: task<cell, unit>, y: cell) { g(y); }
task main(n: int) {
  z = stats{ rows = new<array<int>>(n) };
  k = task (): int { z.rows[0][0] <- 3; return 0; };
  print(k());
}
)";

}  // namespace

TEST_CASE("which fields the program writes through: atomics, elements, calls, captures") {
  SourceFile file{"t.kite", kFields};
  std::ostringstream errors;
  Compilation c;
  REQUIRE(compile(file, CompileOptions{}, errors, c) == 0);
  std::map<std::string, std::set<int>> written;
  for (const auto &[v, fields] : effects::written_through(c.anf)) written[v->name] = fields;
  const int any = effects::kAnyField;
  // p by the atomic on its items; q through the element x of its items; r
  // through the element x of its element row, which stands for r's rows; s
  // at what atom writes; t by giving its items to set_first; u's n; not v,
  // which is only read; w whole, given to a task value, and the union y
  // too; z's rows, through the anonymous task's closure.
  CHECK(written["p"] == std::set<int>{0});
  CHECK(written["q"] == std::set<int>{0});
  CHECK(written["r"] == std::set<int>{1});
  CHECK(written["s"] == std::set<int>{0});
  CHECK(written["t"] == std::set<int>{0});
  CHECK(written["u"] == std::set<int>{2});
  CHECK(written.count("v") == 0);
  CHECK(written["w"] == std::set<int>{any});
  CHECK(written["y"] == std::set<int>{any});
  CHECK(written["z"] == std::set<int>{1});
  // Arrays, and elements, are written at no one field.
  CHECK(written["a"] == std::set<int>{any});
  CHECK(written["row"] == std::set<int>{any});
}
