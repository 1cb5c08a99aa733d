// Unit tests of the parser's state (frontend/parser.h): everything a parse
// keeps is in its Parser, so parses of different files, one after the other
// or with their steps interleaved, give each file's AST and errors as if it
// were parsed alone, with its own file id in every location.
// The generated parser comes before doctest, whose THEN macro would
// rewrite its THEN() accessors.
// clang-format off
#include "frontend/parse.h"
#include "frontend/parser.h"

#include <doctest/doctest.h>
// clang-format on

#include <sstream>
#include <string>

namespace kite {
namespace {

const char *const kFirst = R"(struct point { x: int; y: int; }
task f(n: int): int { return n + 1; }
task main(n: int): int {
  p = point{ x = n, y = 2 };
  g = task (k: int): int { return k * p.y; };
  return f(p.x) + g(3);
}
)";

const char *const kSecond = R"(task main(): long {
  a = new<long>(4);
  for (v = a[i]) { a[i] <- long(i) << 2; }
  return a[3];
}
)";

// A syntax error found only by the full LL parse (step 3).
const char *const kBroken = R"(task main(): int {
  s = 0;
  s += 1;
  return s;
}
)";

// What parsing one file gives: the AST's dump and every error printed.
struct Result {
  std::string dump;
  std::string errors;
  bool parsed = false;
};

// Every location in the program: tasks, parameters, statements and
// expressions, anonymous tasks' included.
std::vector<SourceLoc> locations(const ast::Program &program) {
  std::vector<SourceLoc> out;
  for (auto &s : program.structs) out.push_back(s->loc);
  for (auto &t : program.tasks) {
    out.push_back(t->loc);
    for (auto &p : t->params) out.push_back(p.loc);
    for (auto &s : t->body) out.push_back(s->loc);
    for_each_expr(t->body, [&](const ast::Expr &e) { out.push_back(e.loc); });
  }
  return out;
}

Result result_of(const std::unique_ptr<ast::Program> &program, const std::ostringstream &errors,
                 FileId file_id) {
  Result r;
  r.errors = errors.str();
  r.parsed = program != nullptr;
  if (!program) return r;
  std::ostringstream dump;
  ast::dump(*program, dump);
  r.dump = dump.str();
  for (SourceLoc loc : locations(*program)) CHECK(loc.file == file_id);
  return r;
}

Result parse_alone(const SourceFile &file, FileId file_id) {
  std::ostringstream errors;
  Diagnostics diags(file, errors);
  return result_of(parse(file, diags, file_id), errors, file_id);
}

void check_same(const Result &a, const Result &b) {
  CHECK(a.parsed == b.parsed);
  CHECK(a.dump == b.dump);
  CHECK(a.errors == b.errors);
}

TEST_CASE("parses of different files one after the other do not influence each other") {
  SourceFile first("first.kite", kFirst), second("second.kite", kSecond),
      broken("broken.kite", kBroken);
  Result a = parse_alone(first, FileId::Program);
  REQUIRE(a.parsed);
  Result b = parse_alone(second, FileId::Prelude);
  REQUIRE(b.parsed);
  Result c = parse_alone(broken, FileId(2));
  CHECK_FALSE(c.parsed);
  CHECK(c.errors.rfind("broken.kite:3:5: error: Kite has no '+=': write 's <- s + 1'", 0) == 0);
  check_same(parse_alone(first, FileId::Program), a);
  check_same(parse_alone(second, FileId::Prelude), b);
  check_same(parse_alone(broken, FileId(2)), c);
  CHECK(a.dump != b.dump);
}

TEST_CASE("parsers of different files used side by side do not influence each other") {
  SourceFile first("first.kite", kFirst), second("second.kite", kSecond),
      broken("broken.kite", kBroken);
  Result a = parse_alone(first, FileId::Program), b = parse_alone(second, FileId::Prelude),
         c = parse_alone(broken, FileId(2));

  std::ostringstream errors_a, errors_b, errors_c;
  Diagnostics diags_a(first, errors_a), diags_b(second, errors_b), diags_c(broken, errors_c);
  parsing::Parser pa(first, diags_a, FileId::Program), pb(second, diags_b, FileId::Prelude),
      pc(broken, diags_c, FileId(2));
  REQUIRE(pc.lex());
  REQUIRE(pb.lex());
  REQUIRE(pa.lex());
  auto *tree_b = pb.parse_tree();
  CHECK(pc.parse_tree() == nullptr);
  auto *tree_a = pa.parse_tree();
  REQUIRE(tree_a);
  REQUIRE(tree_b);
  auto ast_b = pb.build(tree_b);
  auto ast_a = pa.build(tree_a);
  check_same(result_of(ast_a, errors_a, FileId::Program), a);
  check_same(result_of(ast_b, errors_b, FileId::Prelude), b);
  check_same(result_of(nullptr, errors_c, FileId(2)), c);
}

}  // namespace
}  // namespace kite
