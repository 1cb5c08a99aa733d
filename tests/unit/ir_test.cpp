// Unit tests of the middle of the pipeline: ANF, nested task graphs and CPS.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "driver/pipeline.h"
#include "ir/anf.h"
#include "ir/cps.h"
#include "ir/ntg.h"

namespace {

using namespace kite;

// A program through kitec's own pipeline (driver/pipeline.h), every stage's
// output kept.
struct Compiled {
  SourceFile file;
  std::ostringstream errors;
  Compilation c;
  std::unique_ptr<ast::Program> &program = c.program;
  ntg::Program &graphs = c.graphs;
  explicit Compiled(const std::string &text) : file("t.kite", text) {
    REQUIRE(compile(file, CompileOptions{}, errors, c) == 0);
  }
  const ntg::Graph &body(const std::string &task) {
    for (auto &t : graphs.tasks)
      if (t.task->decl->name == task) return *t.body;
    FAIL("no task " << task);
    throw 0;
  }
};

const char *kFib = R"(
task fib(n: int): int {
  if (n < 2) { return n; } else { return fib(n - 1) + fib(n - 2); }
}
task main(n: int): int { return fib(n); }
)";

TEST_CASE("ANF gives every task call a statement of its own") {
  Compiled c(kFib);
  const ntg::Graph &g = c.body("fib");
  REQUIRE(g.nodes.size() == 1);
  const ntg::Node &iff = *g.nodes[0];
  CHECK(iff.kind == ntg::NodeKind::If);
  CHECK(iff.parallel());
  const ntg::Graph &e = iff.else_graph();
  // _t1: int; _t1 <- fib(n-1); _t2: int; _t2 <- fib(n-2); return _t1 + _t2
  REQUIRE(e.nodes.size() == 5);
  CHECK(e.nodes[1]->spawns);
  CHECK(e.nodes[3]->spawns);
  CHECK(anf::to_kite(*e.nodes[4]->stmt) == "return _t1 + _t2");
}

TEST_CASE("the two recursive calls of fib are independent; the sum waits for both") {
  Compiled c(kFib);
  const ntg::Graph &e = c.body("fib").nodes[0]->else_graph();
  std::vector<std::pair<int, int>> edges(e.edges.begin(), e.edges.end());
  CHECK(std::count(edges.begin(), edges.end(), std::make_pair(1, 3)) == 0);
  CHECK(std::count(edges.begin(), edges.end(), std::make_pair(1, 4)) == 1);
  CHECK(std::count(edges.begin(), edges.end(), std::make_pair(3, 4)) == 1);
  CHECK(e.nodes[1]->dep.arrow == ntg::Arrow::Par);
  CHECK(e.nodes[4]->dep.arrow == ntg::Arrow::Seq);
}

TEST_CASE("an assignment waits for earlier readers and the nearest earlier writer") {
  Compiled c(R"(
task f(x: int): int { return x; }
task main(): int {
  x: int = 1;
  y = x + 1;
  x <- f(2);
  return x + y;
}
)");
  const ntg::Graph &g = c.body("main");
  auto has = [&](int a, int b) {
    return std::count(g.edges.begin(), g.edges.end(), std::make_pair(a, b)) == 1;
  };
  CHECK(has(0, 1));  // y reads x
  CHECK(has(0, 2));  // x <- f(2) overwrites x (nearest writer)
  CHECK(has(1, 2));  // ... after y has read it
  CHECK(has(2, 3));
  CHECK(has(1, 3));
}

TEST_CASE("print(1); print(2) gives two unconnected nodes") {
  Compiled c("task main() { print(1); print(2); }");
  const ntg::Graph &g = c.body("main");
  CHECK(g.nodes.size() == 2);
  CHECK(g.edges.empty());
}

TEST_CASE("CPS: fib's sum is one continuation waiting for two results") {
  Compiled c(kFib);
  cps::Program p = cps::lower(c.graphs);
  int joins = 0;
  for (const cps::Block &b : p.blocks) {
    if (b.is_entry || p.tasks[b.task].source->decl->name != "fib") continue;
    ++joins;
    CHECK(b.counter_init == 2);
    CHECK(b.code >= 0);
  }
  CHECK(joins == 1);
  // Every task has an entry code, and codes are distinct.
  std::set<int> codes;
  for (const cps::Block &b : p.blocks)
    if (b.code >= 0) CHECK(codes.insert(b.code).second);
}

// A program whose main calls f, then runs `second` (which declares y),
// through every stage of the CPS blocks; main's body graph has two blocks.
struct CallThen {
  Compiled c;
  const cps::Program &p = c.c.blocks;
  const cps::Graph *g = nullptr;
  explicit CallThen(const std::string &second)
      : c("task f(): int { return 1; }\n"
          "task main(): int {\n  x = f();\n  " +
          second + "\n  return x + y;\n}\n") {
    g = &p.graphs[p.tasks[1].body_graph];
    REQUIRE(g->blocks.size() == 2);
  }
  const cps::Block &block(int i) const { return p.blocks[g->blocks[size_t(i)]]; }
};

TEST_CASE("CPS: a continuation also waits for the block that computed its other inputs") {
  CallThen t("y = length(new<int>(2));");
  CHECK(t.block(1).counter_init == 2);  // f's result and the entry block's end
  // The two blocks: the call ends before the continuation that waits for
  // it, so it does not count towards the graph as well.
  CHECK(t.g->outstanding_init == 2);
  bool call_implied = false;
  for (const cps::NodeInfo &n : t.p.nodes)
    if (n.graph == t.g->id && !n.notify.empty()) call_implied = n.implied;
  CHECK(call_implied);
}

TEST_CASE(
    "CPS: an assignment that only computes moves before the call, which then ends its block") {
  CallThen t("y: int = 2;");
  // y's declaration first, then the call, the block's last op: the
  // continuation waits for the call alone, and the entry block signals
  // nothing.
  const cps::Block &entry = t.block(0);
  REQUIRE(entry.ops.size() >= 2);
  CHECK(entry.ops.back().kind == cps::OpKind::Spawn);
  CHECK(entry.end_implied);
  CHECK(entry.notify.empty());
  CHECK(t.block(1).counter_init == 1);
  CHECK(t.g->outstanding_init == 1);
}

TEST_CASE("ANF: a call is a statement of its own kind, and each task's table knows its variables") {
  Compiled c(R"(
task f(x: int): int { return x; }
task main(n: int): int {
  a = new<int>(n);
  s = 0;
  for (x = a[i]) {
    for (y = [0, i]) { s <- s + y; }
    x <- i;
  }
  return f(s) + 1;
}
)");
  const anf::Task &main = c.c.anf.tasks[size_t(c.c.anf.main)];
  CHECK(main.decl->name == "main");
  // let a; let s; for; let _t1; call _t1 <- f(s); return _t1 + 1
  REQUIRE(main.body.size() == 6);
  CHECK(main.body[2]->kind == anf::StmtKind::For);
  const anf::Stmt &call = *main.body[4];
  CHECK(call.kind == anf::StmtKind::Call);
  CHECK(anf::to_kite(call) == "_t1 <- f(s)");
  // Every variable sits in the table under its id: n, a, s, the outer
  // loop's collection, index and element, the inner loop's, and _t1.
  CHECK(main.vars.size() == 10);
  for (size_t id = 0; id < main.vars.size(); ++id) CHECK(main.vars[id]->id == int(id));
  // The table says which loop's element a variable is.
  const anf::Stmt &outer = *main.body[2];
  const anf::Stmt &inner = *outer.body[0];
  REQUIRE(inner.kind == anf::StmtKind::For);
  CHECK(main.element_of(outer.elem_var) == &outer);
  CHECK(main.element_of(inner.elem_var) == &inner);
  CHECK(main.element_of(outer.index_var) == nullptr);
  CHECK(main.element_of(call.target->var) == nullptr);
}

TEST_CASE("early returns: the rest of the task moves into the branch that continues") {
  Compiled c(R"(
task main(n: int): int {
  if (n < 2) { return n; }
  print(n);
  return 0;
}
)");
  const ntg::Graph &g = c.body("main");
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0]->else_graph().nodes.size() == 2);
}
}  // namespace
