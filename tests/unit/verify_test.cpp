// Negative tests of the verifiers (ir/verify.h): an IR of each kind broken
// by hand, and the problem its verifier reports.
#include "ir/verify.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

#include "driver/pipeline.h"
#include "frontend/parse.h"

namespace {

using namespace kite;

const char *kFib = R"(
task fib(n: int): int {
  if (n < 2) { return n; } else { return fib(n - 1) + fib(n - 2); }
}
task main(n: int): int { return fib(n); }
)";

// fib through kitec's pipeline, every stage's output kept.
struct Compiled {
  SourceFile file{"t.kite", kFib};
  std::ostringstream errors;
  Compilation c;
  explicit Compiled(const CompileOptions &options = {}) {
    REQUIRE(compile(file, options, errors, c) == 0);
  }
};

bool has(const Problems &problems, const std::string &problem) {
  return std::find(problems.begin(), problems.end(), problem) != problems.end();
}

// The first name `n` in fib's body: the condition's.
ast::Expr &first_n(ast::Program &program) {
  ast::Expr *found = nullptr;
  ast::rewrite_exprs(program.tasks[0]->body, [&](ast::ExprPtr &e) {
    if (!found && e->kind == ast::ExprKind::Name && e->text == "n") found = e.get();
  });
  REQUIRE(found);
  return *found;
}

}  // namespace

TEST_CASE(
    "the checked AST's verifier reports an expression without a type and an unresolved name") {
  SourceFile file("t.kite", kFib);
  std::ostringstream errors;
  Diagnostics diags(file, errors);
  CHECK(has(verify_checked(*parse(file, diags)),
            "checked AST: an expression without a type at task fib, line 3:7"));
  CompileOptions options;
  options.check_only = true;
  Compiled c(options);
  ast::Program &program = *c.c.program;
  CHECK(verify_checked(program).empty());
  ast::Expr &n = first_n(program);
  Type *type = n.type;
  n.type = nullptr;
  CHECK(verify_checked(program) ==
        Problems{"checked AST: an expression without a type at task fib, line 3:7"});
  n.type = type;
  ast::VarDecl *var = n.var;
  n.var = nullptr;
  CHECK(verify_checked(program) ==
        Problems{"checked AST: the name 'n' is unresolved at task fib, line 3:7"});
  n.var = var;
  CHECK(verify_checked(program).empty());
}

TEST_CASE(
    "the ANF verifier reports a call inside an expression, a variable outside its table, "
    "a call's result going elsewhere and a declaration of nothing") {
  Compiled c;
  anf::Program &anf = c.c.anf;
  CHECK(verify(anf).empty());
  // fib's else branch: let _t1; call _t1 <- fib(n - 1); ...
  anf::Stmt &branch = *anf.tasks[0].body[0];
  REQUIRE(branch.kind == anf::StmtKind::If);
  anf::Stmt &let = *branch.else_body[0];
  anf::Stmt &call = *branch.else_body[1];
  REQUIRE(let.kind == anf::StmtKind::Let);
  REQUIRE(call.kind == anf::StmtKind::Call);
  call.kind = anf::StmtKind::Set;
  CHECK(verify(anf) == Problems{"ANF: a task call inside an expression at task fib, line 3:42"});
  call.kind = anf::StmtKind::Call;
  ast::VarDecl &t1 = *call.target->var;
  int id = t1.id;
  t1.id = 99;
  CHECK(has(verify(anf),
            "ANF: the variable '_t1' is not in its task's table at task fib, line 3:42"));
  t1.id = id;
  call.target->var = nullptr;
  CHECK(verify(anf) ==
        Problems{"ANF: a call's result goes to something other than a variable at task fib, "
                 "line 3:42"});
  call.target->var = &t1;
  std::vector<ast::VarDecl *> vars = std::move(let.vars);
  let.vars.clear();
  CHECK(has(verify(anf), "ANF: a declaration of nothing at task fib, line 3:42"));
  let.vars = vars;
  CHECK(verify(anf).empty());
}

TEST_CASE(
    "the task graphs' verifier reports an edge that goes back, a node twice and stale "
    "ancestors") {
  Compiled c;
  ntg::Program &graphs = c.c.graphs;
  CHECK(verify(graphs).empty());
  // fib's else branch: _t1: int; _t1 <- fib(n - 1); _t2: int; _t2 <- fib(n - 2); return _t1 + _t2
  ntg::Graph &g = *graphs.tasks[0].body->nodes[0]->graphs[1];
  REQUIRE(g.nodes.size() == 5);
  REQUIRE(!g.edges.empty());
  auto edge = g.edges[0];
  std::swap(g.edges[0].first, g.edges[0].second);
  // (Its ancestors, found through the edges, are stale too.)
  CHECK(has(verify(graphs), fmt::format("task graph g{}: edge {} -> {} is not forward", g.id,
                                        edge.second, edge.first)));
  g.edges[0] = edge;
  int id = g.nodes[1]->id;
  g.nodes[1]->id = g.nodes[0]->id;
  CHECK(verify(graphs) == Problems{fmt::format("node n{} appears twice", g.nodes[0]->id)});
  g.nodes[1]->id = id;
  std::vector<int> ancestors = g.ancestors;
  g.ancestors.back() += 1;
  CHECK(verify(graphs) ==
        Problems{fmt::format("task graph g{}: its nodes' parallel ancestors are stale", g.id)});
  g.ancestors = ancestors;
  CHECK(verify(graphs).empty());
}

TEST_CASE(
    "the CPS verifier reports a continuation signalled too often, a graph that counts "
    "wrong and an entry without a code") {
  Compiled c;
  cps::Program &blocks = c.c.blocks;
  CHECK(verify(blocks).empty());
  // fib's continuation, which waits for both calls.
  auto continuation = std::find_if(blocks.blocks.begin(), blocks.blocks.end(), [](auto &b) {
    return b.task == 0 && !b.is_entry && b.kind == cps::BlockKind::Normal;
  });
  REQUIRE(continuation != blocks.blocks.end());
  cps::Block &b = *continuation;
  b.counter_init += 1;
  CHECK(has(verify(blocks), fmt::format("continuation b{} waits for {} events but {} signal it",
                                        b.id, b.counter_init, b.counter_init - 1)));
  b.counter_init -= 1;
  cps::Graph &g = blocks.graphs[size_t(b.graph)];
  g.outstanding_init += 1;
  CHECK(verify(blocks) == Problems{fmt::format("graph g{} waits for {} events, not {}", g.id,
                                               g.outstanding_init, g.outstanding_init - 1)});
  g.outstanding_init -= 1;
  cps::Block &entry = blocks.blocks[size_t(blocks.tasks[0].entry_block)];
  int code = entry.code;
  entry.code = -1;
  CHECK(has(verify(blocks), "a task entry without a code"));
  entry.code = code;
  CHECK(verify(blocks).empty());
}
