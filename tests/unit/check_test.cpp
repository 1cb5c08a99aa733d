// Unit tests of the type checker: futures, literal adaptation, task values.
#include "frontend/check.h"

#include <doctest/doctest.h>

#include <sstream>

#include "driver/pipeline.h"

namespace {

using namespace kite;

// A program through kitec's pipeline up to the checked AST (driver/pipeline.h).
struct Checked {
  SourceFile file;
  std::ostringstream errors;
  Compilation c;
  TypeContext &types = c.types;
  std::unique_ptr<ast::Program> &program = c.program;
  bool ok = true;
  explicit Checked(const std::string &text) : file("t.kite", text) {
    CompileOptions options;
    options.check_only = true;
    ok = compile(file, options, errors, c) == 0;
    REQUIRE(program);
  }
  // The checked initial value of the first declaration of main.
  const ast::Expr &first_init() {
    for (auto &t : program->tasks)
      if (t->name == "main") return *t->body[0]->expr;
    FAIL("no main");
    throw 0;
  }
};

TEST_CASE("a task call has type future<r> and is forced where a value is needed") {
  Checked c("task f(): int { return 1; } task main(): int { x = f(); return x + 1; }");
  REQUIRE(c.ok);
  const ast::Expr &call = c.first_init();
  CHECK(to_string(call.type) == "future<int>");
  CHECK(c.program->tasks[1]->body[0]->vars[0]->type == c.types.int_t());
}

TEST_CASE("unsuffixed literals adapt to long and float, nothing else converts") {
  Checked ok("task main(): long { a: long = 5; b: float = 0.5; return a + 1; }");
  CHECK(ok.ok);
  Checked bad("task main(n: int): long { a: long = 5; return a + n; }");
  CHECK_FALSE(bad.ok);
  CHECK(bad.errors.str().find("operator '+' cannot be applied to long and int") !=
        std::string::npos);
}

TEST_CASE("a hexadecimal literal's value depends on the type it takes") {
  Checked as_int("task main() { x = 0xFFFFFFFF; }");
  REQUIRE(as_int.ok);
  CHECK(as_int.first_init().int_value == -1);
  CHECK_FALSE(as_int.first_init().is_long);
  Checked as_long("task main() { x: long = 0xFFFFFFFF; }");
  REQUIRE(as_long.ok);
  CHECK(as_long.first_init().int_value == 4294967295);
  CHECK(as_long.first_init().is_long);
}

TEST_CASE("named and anonymous tasks are values of task types") {
  Checked c(
      "task inc(x: int): int { return x + 1; }\n"
      "task main(): int { f = inc; g = task (y: int): int { return f(y); }; return g(1); }");
  REQUIRE(c.ok);
  CHECK(to_string(c.first_init().type) == "task<int, int>");
  // The anonymous task was lifted to the program (frontend/lift) and captures f.
  REQUIRE(c.program->tasks.size() == 3);
  const ast::TaskDecl &anon = *c.program->tasks[2];
  CHECK(anon.is_anonymous);
  REQUIRE(anon.captures.size() == 1);
  CHECK(anon.captures[0]->name == "f");
}

TEST_CASE("explicit futures and future annotations") {
  Checked c(
      "task f(): int { return 1; } task main(): int { x: future<int> = task (f() + 1); return x; "
      "}");
  REQUIRE(c.ok);
  CHECK(to_string(c.first_init().type) == "future<int>");
}

TEST_CASE("a case must cover every field of the union unless it has a default") {
  Checked c(
      "union u { a: int; b: bool; }\n"
      "task main() { v = u{ a = 1 }; case (v) { a x: print(x); } }");
  CHECK_FALSE(c.ok);
  CHECK(c.errors.str().find("case does not cover field 'b' of union u") != std::string::npos);
}

// Interning looks a type up by its parts, which are interned already, so
// each step takes the same time however deep the type is (keyed by its
// spelling instead, 3000 levels take seconds).
TEST_CASE("interning deeply nested types is linear" * doctest::timeout(1.0)) {
  TypeContext types;
  auto step = [&](int i, Type *t) {
    return i % 2 ? types.array(t) : types.task({types.int_t(), t}, types.bool_t());
  };
  std::vector<Type *> first;
  Type *t = types.int_t();
  for (int i = 0; i < 3000; ++i) first.push_back(t = step(i, t));
  t = types.int_t();
  int same = 0;
  for (int i = 0; i < 3000; ++i) same += (t = step(i, t)) == first[i];
  CHECK(same == 3000);
  CHECK(types.array(first.back()) != types.future(first.back()));
  CHECK(types.named(TypeKind::Struct, "p") != types.named(TypeKind::Union, "p"));
  CHECK(types.tuple({types.int_t(), types.bool_t()}) !=
        types.tuple({types.bool_t(), types.int_t()}));
}

}  // namespace
