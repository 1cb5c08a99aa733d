// Unit tests of the parser (frontend/parse.h) and the AST printer: precedence,
// every statement form, optional semicolons, locations, syntax errors.
#include "frontend/parse.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>

namespace kite {
namespace {

struct Parsed {
  std::unique_ptr<ast::Program> program;
  std::string errors;  // everything Diagnostics printed
  std::string dump;    // ast::dump of the program, if there is one
};

Parsed parse_text(const std::string &text) {
  SourceFile file("t.kite", text);
  std::ostringstream errors;
  Diagnostics diags(file, errors);
  Parsed result;
  result.program = parse(file, diags);
  result.errors = errors.str();
  if (result.program) {
    std::ostringstream dump;
    ast::dump(*result.program, dump);
    result.dump = dump.str();
  }
  return result;
}

// The dump of the body of `task main() { <body> }`, without the header line.
std::string body(const std::string &text) {
  Parsed p = parse_text("task main() {\n" + text + "\n}\n");
  INFO(p.errors);
  REQUIRE(p.program);
  return p.dump.substr(p.dump.find('\n') + 1);
}

// The dump of one expression.
std::string expr(const std::string &text) {
  std::string d = body("x = " + text + ";");
  REQUIRE(d.rfind("  decl x = ", 0) == 0);
  return d.substr(11, d.size() - 12);
}

// The first line of the error output: `t.kite:L:C: error: message`.
std::string first_error(const std::string &text) {
  Parsed p = parse_text(text);
  CHECK_FALSE(p.program);
  return p.errors.substr(0, p.errors.find('\n'));
}

// The main task's first statement.
const ast::Stmt &first_stmt(const Parsed &p) {
  REQUIRE(p.program);
  REQUIRE(!p.program->tasks.empty());
  REQUIRE(!p.program->tasks[0]->body.empty());
  return *p.program->tasks[0]->body[0];
}

TEST_CASE("literals") {
  CHECK(expr("42") == "42");
  CHECK(expr("0x2A") == "42");
  CHECK(expr("42L") == "42L");
  // The checker decides whether a literal is an int or a long; the parser
  // keeps the long value.
  CHECK(expr("0xFFFFFFFF") == "4294967295");
  CHECK(expr("2147483648") == "2147483648");
  CHECK(expr("-2147483648") == "-2147483648");
  CHECK(expr("-9223372036854775808L") == "-9223372036854775808L");
  CHECK(expr("1.5") == "1.5");
  CHECK(expr("1e-3") == "0.001");
  CHECK(expr("1.5f") == "1.5f");
  CHECK(expr("2.0") == "2.0");
  CHECK(expr("true") == "true");
  CHECK(expr("false") == "false");
  CHECK(expr(R"("a\tb\n\"q\" \\ \x41")") == R"("a\tb\n\"q\" \\ A")");
}

TEST_CASE("literal values in the AST") {
  Parsed p = parse_text("task main() { x = 0x7fffffffffffffffL; y = 1.5f; z = \"\\0\"; }");
  REQUIRE(p.program);
  auto &body = p.program->tasks[0]->body;
  CHECK(body[0]->expr->int_value == INT64_MAX);
  CHECK(body[0]->expr->is_long);
  CHECK(body[1]->expr->float_value == 1.5);
  CHECK(body[1]->expr->is_float32);
  CHECK(body[2]->expr->text == std::string("\0", 1));
}

TEST_CASE("binary precedence follows C") {
  CHECK(expr("1 + 2 * 3") == "(+ 1 (* 2 3))");
  CHECK(expr("1 * 2 + 3") == "(+ (* 1 2) 3)");
  CHECK(expr("a - b - c") == "(- (- a b) c)");
  CHECK(expr("a / b % c") == "(% (/ a b) c)");
  CHECK(expr("a << 1 + 2") == "(<< a (+ 1 2))");
  CHECK(expr("a >> 1 < b") == "(< (>> a 1) b)");
  CHECK(expr("a < b == c >= d") == "(== (< a b) (>= c d))");
  CHECK(expr("a & b == c") == "(& a (== b c))");
  CHECK(expr("a | b ^ c & d") == "(| a (^ b (& c d)))");
  CHECK(expr("a || b && c | d") == "(|| a (&& b (| c d)))");
  CHECK(expr("a <= b != c > d") == "(!= (<= a b) (> c d))");
}

TEST_CASE("unary and postfix operators") {
  CHECK(expr("-a * b") == "(* (- a) b)");
  CHECK(expr("!a && ~b") == "(&& (! a) (~ b))");
  CHECK(expr("- -a") == "(- (- a))");
  CHECK(expr("-a.f") == "(- (. a f))");
  CHECK(expr("-(1)") == "(- 1)");
  CHECK(expr("f(1, 2)(3)") == "(call (call f 1 2) 3)");
  CHECK(expr("f()") == "(call f)");
  CHECK(expr("a[i][j]") == "(index (index a i) j)");
  CHECK(expr("t.0") == "(. t 0)");
  CHECK(expr("t.0.1") == "(. (. t 0) 1)");
  CHECK(expr("s.x.y") == "(. (. s x) y)");
  CHECK(expr("g(x)[0].f") == "(. (index (call g x) 0) f)");
}

TEST_CASE("compound expressions") {
  CHECK(expr("(1)") == "1");
  CHECK(expr("(1, (2, 3))") == "(tuple 1 (tuple 2 3))");
  CHECK(expr("[0, n - 1]") == "(range 0 (- n 1))");
  CHECK(expr("new<int>(n)") == "(new int n)");
  CHECK(expr("new<array<int>>(3)") == "(new array<int> 3)");
  CHECK(expr("branch{ l = a, r = b }") == "(construct branch (l a) (r b))");
  CHECK(expr("tree{leaf = 3}") == "(construct tree (leaf 3))");
  CHECK(expr("task f(x)") == "(future (call f x))");
  CHECK(expr("task (f(x))") == "(future (call f x))");
  CHECK(expr("task f(x) + 1") == "(+ (future (call f x)) 1)");
  CHECK(expr("task (x: int): int { return x }") == "(task (x: int): int\n    return x)");
  CHECK(expr("task () { }") == "(task ())");
  CHECK(expr("task (x: int) { print(x) }(3)") ==
        "(call (task (x: int)\n    expr (call print x)) 3)");
}

TEST_CASE("types") {
  CHECK(body("x: array<array<int>>;") == "  decl x: array<array<int>>\n");
  CHECK(body("x: task<int, unit>;") == "  decl x: task<int, unit>\n");
  CHECK(body("x: (int, bool);") == "  decl x: (int, bool)\n");
  CHECK(body("x: (int);") == "  decl x: int\n");
  CHECK(body("x: future<int> = f(1);") == "  decl x: future<int> = (call f 1)\n");
  // `>=` right after a generic type is the declaration's `=`.
  CHECK(body("x: array<int>= a;") == "  decl x: array<int> = a\n");
}

TEST_CASE("declarations and assignments") {
  CHECK(body("x: int = 1;") == "  decl x: int = 1\n");
  CHECK(body("x = 1;") == "  decl x = 1\n");
  CHECK(body("x, y: int;") == "  decl x, y: int\n");
  CHECK(body("x <- 1;") == "  assign x 1\n");
  CHECK(body("s.f <- 1;") == "  assign (. s f) 1\n");
  CHECK(body("a[i] <- a[i] + 1;") == "  assign (index a i) (+ (index a i) 1)\n");
  CHECK(body("print(x);") == "  expr (call print x)\n");
}

TEST_CASE("return, blocks, then") {
  CHECK(body("return 1;") == "  return 1\n");
  CHECK(body("return;") == "  return\n");
  CHECK(body("{ a(); b(); }") == "  block\n    expr (call a)\n    expr (call b)\n");
  CHECK(body("show(1) then show(2);") ==
        "  then\n    expr (call show 1)\n    expr (call show 2)\n");
  CHECK(body("show(1); then show(2);") ==
        "  then\n    expr (call show 1)\n    expr (call show 2)\n");
  // Left-nested: c waits for a and b.
  CHECK(body("a() then b() then c();") ==
        "  then\n    then\n      expr (call a)\n      expr (call b)\n    expr (call c)\n");
  CHECK(body("{ a(); b(); } then c();") ==
        "  then\n    block\n      expr (call a)\n      expr (call b)\n    expr (call c)\n");
}

TEST_CASE("if") {
  CHECK(body("if (x) { a(); }") == "  if x\n    expr (call a)\n");
  CHECK(body("if (x) { a(); } else { b(); }") ==
        "  if x\n    expr (call a)\n  else\n    expr (call b)\n");
  CHECK(body("if (x) { } else if (y) { b(); } else { c(); }") ==
        "  if x\n  else\n    if y\n      expr (call b)\n    else\n      expr (call c)\n");
  Parsed p = parse_text("task main() { if (x) { } else if (y) { } }");
  const ast::Stmt &s = first_stmt(p);
  CHECK(s.has_else);
  REQUIRE(s.else_body.size() == 1);
  CHECK(s.else_body[0]->kind == ast::StmtKind::If);
  CHECK_FALSE(s.else_body[0]->has_else);
}

TEST_CASE("case") {
  CHECK(body("case (t) { leaf v: return v; node b: x = 1; return x; default: return 0 }") ==
        "  case t\n    leaf v:\n      return v\n    node b:\n      decl x = 1\n      return x\n"
        "    default:\n      return 0\n");
  Parsed p = parse_text("task main() { case (t) { leaf v: f(v); default: } }");
  const ast::Stmt &s = first_stmt(p);
  REQUIRE(s.branches.size() == 2);
  CHECK(s.branches[0].field == "leaf");
  CHECK(s.branches[0].binder == "v");
  CHECK(s.branches[1].field.empty());
  CHECK(s.branches[1].body.empty());
}

TEST_CASE("for and map") {
  CHECK(body("for (x = a[i]) { x <- i; }") == "  for x = a [i]\n    assign x i\n");
  CHECK(body("for (x = a) { }") == "  for x = a\n");
  CHECK(body("map (x = [0, n]) { f(x); }") == "  map x = (range 0 n)\n    expr (call f x)\n");
  CHECK(body("map (x = m[0][j]) { }") == "  map x = (index m 0) [j]\n");
  Parsed p = parse_text("task main() { for (x = a[i]) { } }");
  const ast::Stmt &s = first_stmt(p);
  CHECK(s.kind == ast::StmtKind::For);
  REQUIRE(s.index_var);
  CHECK(s.index_var->name == "i");
  CHECK(s.elem_var->name == "x");
  CHECK(s.expr->kind == ast::ExprKind::Name);
}

TEST_CASE("local task declarations become named anonymous tasks") {
  CHECK(body("task f(x: int): int { return f(x) }") ==
        "  decl f = (task f(x: int): int\n    return (call f x))\n");
}

TEST_CASE("top level") {
  Parsed p = parse_text(
      "union tree { leaf: int; node: branch; }\n"
      "struct branch { l: tree; r: tree }\n"
      "k: int = 3;\n"
      "j = k;\n"
      "task f(a: int, b: array<int>): int { return a }\n"
      "task main() { }\n");
  INFO(p.errors);
  REQUIRE(p.program);
  CHECK(p.dump ==
        "union tree\n  leaf: int\n  node: branch\n"
        "struct branch\n  l: tree\n  r: tree\n"
        "value k: int = 3\n"
        "value j = k\n"
        "task f(a: int, b: array<int>): int\n  return a\n"
        "task main()\n");
  CHECK(p.program->structs.size() == 2);
  CHECK(p.program->structs[0]->is_union);
  CHECK(p.program->values.size() == 2);
  CHECK_FALSE(p.program->values[1]->type);
  CHECK(p.program->tasks.size() == 2);
  CHECK_FALSE(p.program->tasks[1]->result);
}

TEST_CASE("comments") {
  CHECK(body("// line\n x = /* inline */ 1; /* multi\n line */") == "  decl x = 1\n");
}

TEST_CASE("semicolons may be omitted right before or after a brace") {
  CHECK(body("a(); b()") == "  expr (call a)\n  expr (call b)\n");
  CHECK(body("if (x) { a() } b();") == "  if x\n    expr (call a)\n  expr (call b)\n");
  CHECK(body("if (x) { a(); }; b();") == "  if x\n    expr (call a)\n  expr (call b)\n");
  CHECK(body("f = task () { a() } g = 1;") ==
        "  decl f = (task ()\n    expr (call a))\n  decl g = 1\n");
  CHECK(body("t = s{ a = 1 } u = 2;") == "  decl t = (construct s (a 1))\n  decl u = 2\n");
  CHECK(parse_text("struct s { a: int; b: int }; task main() { return }").program);
  CHECK(parse_text("x = s{ a = 1 } task main() { }").program);
}

TEST_CASE("missing semicolons") {
  CHECK(first_error("task main() {\n  x = 1\n  y = 2;\n}") ==
        "t.kite:2:8: error: expected ';' after declaration");
  CHECK(first_error("task main() {\n  foo() bar();\n}") ==
        "t.kite:2:8: error: expected ';' after expression");
  CHECK(first_error("task main() { x <- 1 y <- 2; }") ==
        "t.kite:1:21: error: expected ';' after assignment");
  CHECK(first_error("task main() { return 1\n x(); }") ==
        "t.kite:1:23: error: expected ';' after return statement");
  CHECK(first_error("struct s { a: int b: int }") ==
        "t.kite:1:18: error: expected ';' after field");
  CHECK(first_error("k = 1\ntask main() { }") ==
        "t.kite:1:6: error: expected ';' after declaration");
  // In a case branch only the last statement before `}` may omit it.
  CHECK(first_error("task main() { case (t) { leaf v: f(v) node b: g(b) } }") ==
        "t.kite:1:38: error: expected ';' after expression");
}

TEST_CASE("locations") {
  Parsed p = parse_text("task main() {\n  x = a +\n    f(b)[1];\n}\n");
  const ast::Stmt &s = first_stmt(p);
  CHECK(s.loc.line == 2);
  CHECK(s.loc.col == 3);
  CHECK(s.vars[0]->loc.col == 3);
  const ast::Expr &plus = *s.expr;
  CHECK(plus.kind == ast::ExprKind::Binary);
  CHECK(plus.loc.line == 2);  // a binary expression is at its operator
  CHECK(plus.loc.col == 9);
  const ast::Expr &index = *plus.children[1];
  CHECK(index.kind == ast::ExprKind::Index);
  CHECK(index.loc.line == 3);  // other expressions are at their first token
  CHECK(index.loc.col == 5);
  const ast::Expr &call = *index.children[0];
  CHECK(call.kind == ast::ExprKind::Call);
  CHECK(call.loc.col == 5);
  CHECK(call.children[1]->loc.col == 7);

  Parsed q = parse_text("task main() { if (c) { } then return -x; }\nstruct s { f: int }");
  const ast::Stmt &then = first_stmt(q);
  CHECK(then.kind == ast::StmtKind::Then);
  CHECK(then.loc.col == 26);  // at `then`
  CHECK(then.else_body[0]->expr->loc.col == 38);
  CHECK(q.program->tasks[0]->loc.col == 6);  // a task is at its name
  CHECK(q.program->structs[0]->loc.line == 2);
  CHECK(q.program->structs[0]->fields[0].loc.col == 12);
}

TEST_CASE("syntax errors") {
  CHECK(first_error("task main() {\n  x = ;\n}") == "t.kite:2:7: error: expected expression");
  CHECK(first_error("task main() { x = 3 +; }") == "t.kite:1:22: error: expected expression");
  CHECK(first_error("task main() { if x { } }") == "t.kite:1:18: error: expected '('");
  CHECK(first_error("task main() { x: = 3; }") == "t.kite:1:18: error: expected type");
  CHECK(first_error("struct s { f int }") == "t.kite:1:14: error: expected ':'");
  CHECK(first_error("task main() {") == "t.kite:1:13: error: this '{' is never closed");
  CHECK(first_error("task main() { x y; }") == "t.kite:1:16: error: expected ';' after expression");
  CHECK(first_error("task main() { a() then }") == "t.kite:1:24: error: unexpected '}'");
  CHECK(first_error("task main() { }\n3;") == "t.kite:2:1: error: expected declaration");
  CHECK(first_error("task main( {") == "t.kite:1:12: error: expected ')'");
  CHECK(first_error("task main() { x = t{ a = 1, b }; }") == "t.kite:1:31: error: expected '='");
  CHECK(first_error("task main() { f() <- 3; }") ==
        "t.kite:1:15: error: cannot assign to this expression");
  CHECK(first_error("task main() { x, y: int = 3; }") ==
        "t.kite:1:25: error: only a single variable can have an initializer");
  CHECK(first_error("task main() { struct s { } }") ==
        "t.kite:1:15: error: struct declarations are only allowed at top level");
  CHECK(first_error("task main() { x = a > > b; }") == "t.kite:1:23: error: unexpected '>'");
  CHECK(first_error("task main() { x = a > = b; }") == "t.kite:1:23: error: unexpected '='");
  CHECK(first_error("task main() { x = t.1.5e3; }") ==
        "t.kite:1:21: error: invalid tuple index '1.5e3'");
}

TEST_CASE("lexical errors") {
  CHECK(first_error("task main() { x = 1 @ 2; }") ==
        "t.kite:1:21: error: unexpected character '@'");
  CHECK(first_error("task main() { x = \"abc }") ==
        "t.kite:1:19: error: unterminated string literal");
  CHECK(first_error("task main() { }\n/* open") == "t.kite:2:1: error: unterminated comment");
  CHECK(first_error("task main() { x = 12abc; }") ==
        "t.kite:1:19: error: invalid numeric literal '12abc'");
  CHECK(first_error("task main() { x = \"a\\qb\"; }") ==
        "t.kite:1:21: error: unknown escape sequence '\\q'");
  CHECK(first_error("task main() { x = \xc3\xa9; }") ==
        "t.kite:1:19: error: unexpected non-ASCII character");
  CHECK(first_error("task main() { x = 007; }") ==
        "t.kite:1:19: error: integer literal with a leading zero (octal is not supported)");
}

TEST_CASE("literal ranges") {
  CHECK(first_error("task main() { x = 0x10000000000000000; }") ==
        "t.kite:1:19: error: integer literal is too large for long");
  CHECK(first_error("task main() { x = 9223372036854775808; }") ==
        "t.kite:1:19: error: integer literal is too large for long");
  CHECK(first_error("task main() { x = 9223372036854775808L; }") ==
        "t.kite:1:19: error: integer literal is too large for long");
  CHECK(first_error("task main() { x = 99999999999999999999999L; }") ==
        "t.kite:1:19: error: integer literal is too large for long");
  CHECK(first_error("task main() { x = 1e999; }") ==
        "t.kite:1:19: error: floating-point literal is out of range for double");
  CHECK(first_error("task main() { x = 1e39f; }") ==
        "t.kite:1:19: error: floating-point literal is out of range for float");
  CHECK(expr("2147483647") == "2147483647");
  CHECK(expr("3000000000L") == "3000000000L");
}

TEST_CASE("errors point at the source line with a caret") {
  Parsed p = parse_text("task main() {\n\tx = ;\n}");
  CHECK(p.errors == "t.kite:2:6: error: expected expression\n\tx = ;\n\t    ^\n");
}

TEST_CASE("pathological input is rejected, not crashed on") {
  CHECK(first_error("task main() { x = " + std::string(100000, '(')) ==
        "t.kite:1:274: error: program is nested too deeply");
  CHECK(first_error("task main() { x = " + std::string(100000, '-') + "1; }") ==
        "t.kite:1:274: error: program is nested too deeply");
  std::string chain = "task main() { x = 1";
  for (int i = 0; i < 5000; ++i) chain += "+1";
  CHECK(first_error(chain + "; }") == "t.kite:1:19: error: expression is nested too deeply");
  CHECK(first_error(std::string("\0\x01\xff", 3)) ==
        "t.kite:1:1: error: unexpected character '\\x00'");
  CHECK(parse_text("").program);  // an empty program parses; `main` is checked later
}

}  // namespace
}  // namespace kite
