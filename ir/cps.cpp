#include "ir/cps.h"

#include "frontend/check.h"
#include "ir/kernels.h"

#include <map>
#include <ostream>
#include <set>

namespace kite::cps {

namespace {

// Finds the arrays of a task that never leave it (Task::local_arrays).
class LocalArrays {
 public:
  std::vector<const ast::VarDecl *> find(const ast::TaskDecl &t) {
    visit(t.body, false);
    std::vector<const ast::VarDecl *> out;
    for (const ast::VarDecl *v : candidates_)
      if (!escapes_.count(v)) out.push_back(v);
    return out;
  }

 private:
  void visit(const ast::StmtList &list, bool in_loop) {
    for (auto &st : list) visit(*st, in_loop);
  }

  void visit(const ast::Stmt &st, bool in_loop) {
    using ast::StmtKind;
    if (st.kind == StmtKind::Decl && st.vars.size() == 1 && st.expr &&
        st.expr->kind == ast::ExprKind::New && st.expr->children.size() == 1 && !in_loop)
      candidates_.push_back(st.vars[0].get());
    if (st.kind == StmtKind::Assign && st.target->kind == ast::ExprKind::Name)
      escapes_.insert(st.target->var);
    if (st.target) use(*st.target);
    bool loop = st.kind == StmtKind::For || st.kind == StmtKind::Map || st.kind == StmtKind::While;
    if (st.expr) {
      if (loop && st.kind != StmtKind::While && st.expr->kind == ast::ExprKind::Name) {
        // The loop's collection: its elements are used in the body.
      } else {
        use(*st.expr);
      }
    }
    visit(st.body, in_loop || loop);
    visit(st.else_body, in_loop || loop);
    for (auto &b : st.branches) visit(b.body, in_loop);
  }

  // Any use of a name other than those below lets the array escape.
  void use(const ast::Expr &e) {
    using ast::ExprKind;
    if (e.kind == ExprKind::Name) {
      if (e.var) escapes_.insert(e.var);
      return;
    }
    if (e.kind == ExprKind::Index && e.children[0]->kind == ExprKind::Name) {
      use(*e.children[1]);
      return;
    }
    if (e.kind == ExprKind::Call && e.children[0]->kind == ExprKind::Name &&
        (e.children[0]->builtin == int(Builtin::length_) ||
         e.children[0]->builtin == int(Builtin::print_))) {
      for (size_t i = 1; i < e.children.size(); ++i)
        if (e.children[i]->kind != ExprKind::Name) use(*e.children[i]);
      return;
    }
    for (auto &c : e.children)
      if (c) use(*c);
    for (auto &f : e.fields)
      if (f.value) use(*f.value);
    if (e.anon) escape_all(e.anon->body);
  }

  // Inside an anonymous task every mention escapes.
  void escape_all(const ast::StmtList &list) {
    for (auto &st : list) {
      if (st->expr) escape_names(*st->expr);
      if (st->target) escape_names(*st->target);
      escape_all(st->body);
      escape_all(st->else_body);
      for (auto &b : st->branches) escape_all(b.body);
    }
  }
  void escape_names(const ast::Expr &e) {
    if (e.var) escapes_.insert(e.var);
    for (auto &c : e.children)
      if (c) escape_names(*c);
    for (auto &f : e.fields)
      if (f.value) escape_names(*f.value);
    if (e.anon) escape_all(e.anon->body);
  }

  std::vector<const ast::VarDecl *> candidates_;
  std::set<const ast::VarDecl *> escapes_;
};

std::vector<const ast::VarDecl *> local_arrays(const ast::TaskDecl &t) {
  return LocalArrays().find(t);
}

class Lowering {
 public:
  explicit Lowering(Program &p, const ntg::Program &in) : p_(p) {
    p_.graphs.resize(in.num_graphs);
    p_.nodes.resize(in.num_nodes);
  }

  void lower_task(const ntg::TaskGraph &tg) {
    tg_ = &tg;
    task_ = int(p_.tasks.size());
    p_.tasks.emplace_back();
    next_slot_ = kFirstFreeSlot;
    int g = lower_graph(*tg.body);
    p_.graphs[g].end = GraphEnd::Task;
    int entry = p_.graphs[g].entry_block;
    p_.blocks[entry].code = p_.num_codes++;
    Task &t = p_.tasks[task_];
    t.decl = tg.task;
    t.body_graph = g;
    t.entry_block = p_.graphs[g].entry_block;
    for (size_t v = 0; v < tg.vars.size(); ++v) t.var_slot.push_back(next_slot_++);
    t.local_arrays = local_arrays(*tg.task);
    t.record_words = next_slot_;
    p_.record_words = std::max(p_.record_words, next_slot_);
  }

 private:
  // Lowers graph g; the caller sets what happens at its end.
  int lower_graph(const ntg::Graph &g) {
    Graph &cg0 = p_.graphs[g.id];
    cg0.id = g.id;
    cg0.task = task_;
    cg0.outstanding_slot = next_slot_++;

    // The parallel ancestors of each node, through non-parallel nodes.
    size_t n = g.nodes.size();
    std::vector<std::set<int>> ancestors(n);
    std::vector<std::vector<int>> preds(n);
    for (auto [from, to] : g.edges) preds[to].push_back(from);
    for (size_t i = 0; i < n; ++i) {
      for (int p : preds[i]) {
        if (g.nodes[p]->parallel()) ancestors[i].insert(p);
        else ancestors[i].insert(ancestors[p].begin(), ancestors[p].end());
      }
    }

    // One block per distinct ancestor set; the empty set is the entry.
    std::map<std::set<int>, int> block_of_set;
    std::vector<int> block_of_node(n);
    int entry = new_block(g.id);
    p_.blocks[entry].is_entry = true;
    p_.graphs[g.id].entry_block = entry;
    block_of_set[{}] = entry;
    int parallel_nodes = 0;
    for (size_t i = 0; i < n; ++i) {
      auto it = block_of_set.find(ancestors[i]);
      int b;
      if (it == block_of_set.end()) {
        b = new_block(g.id);
        p_.blocks[b].code = p_.num_codes++;
        block_of_set[ancestors[i]] = b;
      } else {
        b = it->second;
      }
      block_of_node[i] = b;
      const ntg::Node &node = *g.nodes[i];
      if (node.parallel()) {
        ++parallel_nodes;
        p_.nodes[node.id].graph = g.id;
      }
      Op op = make_op(node);
      p_.blocks[b].ops.push_back(std::move(op));
    }

    // What each block waits on: the parallel nodes and the other blocks
    // that feed its nodes directly.
    std::map<int, std::set<int>> waits_nodes, waits_blocks;
    for (size_t i = 0; i < n; ++i) {
      int b = block_of_node[i];
      for (int p : preds[i]) {
        if (g.nodes[p]->parallel()) waits_nodes[b].insert(g.nodes[p]->id);
        else if (block_of_node[p] != b) waits_blocks[b].insert(block_of_node[p]);
      }
    }
    Graph &cg = p_.graphs[g.id];
    for (int b : cg.blocks) {
      for (int node : waits_nodes[b]) p_.nodes[node].notify.push_back(b);
      for (int from : waits_blocks[b]) p_.blocks[from].notify.push_back(b);
      p_.blocks[b].counter_init = int(waits_nodes[b].size() + waits_blocks[b].size());
      // A block that waits for one event needs no counter: that event is
      // the last (a long chain of statements keeps records small).
      if (!p_.blocks[b].is_entry && p_.blocks[b].counter_init != 1)
        p_.blocks[b].counter_slot = next_slot_++;
    }
    cg.outstanding_init = parallel_nodes + int(cg.blocks.size());
    return g.id;
  }

  int new_block(int graph, BlockKind kind = BlockKind::Normal) {
    Block b;
    b.id = int(p_.blocks.size());
    b.task = task_;
    b.graph = graph;
    b.kind = kind;
    p_.blocks.push_back(b);
    if (kind == BlockKind::Normal) p_.graphs[graph].blocks.push_back(b.id);
    return b.id;
  }

  // A nested graph that ends by making `node` happen.
  int nested(const ntg::Graph &g, int node) {
    int id = lower_graph(g);
    p_.graphs[id].end = GraphEnd::Node;
    p_.graphs[id].end_node = node;
    return id;
  }

  // Calls in a chained loop's body that no later node of the body waits
  // for and that determine nothing outside the body are detached from the
  // iteration (§3.4: the loop does not wait for the tasks its body starts
  // unless a data dependency says so); the loop node counts them instead.
  void detach_calls(const ntg::Graph &body, const ntg::Node &loop, int slot) {
    std::set<int> has_successor;
    for (auto [from, to] : body.edges) has_successor.insert(from);
    std::set<int> inner = declared_in(body);
    for (size_t i = 0; i < body.nodes.size(); ++i) {
      const ntg::Node &n = *body.nodes[i];
      if (!n.spawns || has_successor.count(int(i))) continue;
      bool escapes = false;
      for (int v : n.dep.y) escapes |= !inner.count(v);
      if (escapes) continue;
      NodeInfo &info = p_.nodes[n.id];
      p_.graphs[info.graph].outstanding_init -= 1;
      info.graph = -1;
      info.detached_from = loop.id;
      info.detached_slot = slot;
    }
  }

  static std::set<int> declared_in(const ntg::Graph &g) {
    std::set<int> out;
    for (auto &n : g.nodes) {
      for (ast::VarDecl *v : ntg::declared_vars(*n->stmt)) out.insert(v->id);
      for (auto &sub : n->graphs) {
        std::set<int> more = declared_in(*sub);
        out.insert(more.begin(), more.end());
      }
    }
    return out;
  }

  // A map body is *direct* when all it does with the results of its calls
  // is to store them in the iteration's element (`c <- f(...)`, which ANF
  // writes `t <- f(...); c <- t`): nothing in the iteration waits for a
  // call, so a record can run many iterations inline, each call's result
  // going from the callee straight to its element, and the record counts
  // only the calls still running (N-queens' and UTS's maps).
  struct DirectScan {
    int elem = -1;
    std::set<int> targets;  // the calls' temporaries, in scope
    std::map<int, int> spawn_of_target;  // temporary -> the node of its call
  };

  static bool mentions(const ast::Expr &e, const DirectScan &scan) {
    bool found = false;
    ast::for_each_expr(e, [&](const ast::Expr &x) {
      found = found || (x.var && (x.var->id == scan.elem || scan.targets.count(x.var->id)));
    });
    return found;
  }

  // Converts graph g of a map body to inline ops; false if it is not direct.
  // `stores` counts the element stores on g's longest path (at most 1 keeps
  // every element written once, by one call).
  bool direct_ops(const ntg::Graph &g, DirectScan &scan, int body, std::vector<Op> &ops,
                  int &stores) {
    stores = 0;
    std::set<int> has_successor;
    for (auto [from, to] : g.edges) has_successor.insert(from);
    auto touches = [&](const ntg::Dep &d, bool elem) {
      for (int v : d.x)
        if (scan.targets.count(v) || (elem && v == scan.elem)) return true;
      for (int v : d.y)
        if (scan.targets.count(v) || (elem && v == scan.elem)) return true;
      return false;
    };
    std::set<int> local_targets;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const ntg::Node &n = *g.nodes[i];
      const ast::Stmt &st = *n.stmt;
      Op op;
      op.stmt = n.stmt;
      if (n.kind == ntg::NodeKind::Stmt && n.spawns) {
        if (n.tail_call) return false;
        NodeInfo &info = p_.nodes[n.id];
        if (st.kind == ast::StmtKind::Assign) {
          if (st.target->kind != ast::ExprKind::Name || !st.target->var) return false;
          int t = st.target->var->id;
          if (scan.targets.count(t) || t == scan.elem) return false;
          // The arguments may not read an earlier call's result.
          for (int v : n.dep.x)
            if (scan.targets.count(v) || v == scan.elem) return false;
          scan.targets.insert(t);
          local_targets.insert(t);
          scan.spawn_of_target[t] = n.id;
        } else if (st.kind != ast::StmtKind::ExprStmt || touches(n.dep, true)) {
          return false;
        }
        op.kind = OpKind::Spawn;
        op.node = n.id;
        op.parallel = true;
        info.graph = body;
        info.direct = true;
        ops.push_back(std::move(op));
        continue;
      }
      if (n.kind == ntg::NodeKind::Stmt && st.kind == ast::StmtKind::Assign &&
          st.target->kind == ast::ExprKind::Name && st.target->var &&
          st.target->var->id == scan.elem && st.expr->kind == ast::ExprKind::Name &&
          st.expr->var && local_targets.count(st.expr->var->id)) {
        // `c <- t`: done by t's call when its result arrives.
        int t = st.expr->var->id;
        NodeInfo &info = p_.nodes[scan.spawn_of_target[t]];
        if (info.store || has_successor.count(int(i))) return false;
        info.store = n.stmt;
        stores += 1;
        continue;
      }
      if (n.kind == ntg::NodeKind::If || n.kind == ntg::NodeKind::Case) {
        // The condition may not read a call's result or the element; the
        // branches are direct themselves.
        if (st.expr && mentions(*st.expr, scan)) return false;
        op.kind = n.kind == ntg::NodeKind::If ? OpKind::If : OpKind::Case;
        int most = 0;
        for (auto &sub : n.graphs) {
          std::vector<Op> part;
          int sub_stores = 0;
          if (!direct_ops(*sub, scan, body, part, sub_stores)) return false;
          most = std::max(most, sub_stores);
          op.inline_ops.push_back(std::move(part));
        }
        stores += most;
        ops.push_back(std::move(op));
        continue;
      }
      // Anything else runs inline and may not touch a result or the element.
      if (n.parallel() || touches(n.dep, true)) return false;
      ops.push_back(make_op(n));
    }
    // Every call's result must be stored (or be dropped by an expression
    // statement), and nothing may wait for a call.
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const ntg::Node &n = *g.nodes[i];
      if (!n.spawns) continue;
      if (has_successor.count(int(i))) {
        for (auto [from, to] : g.edges)
          if (from == int(i) && !(g.nodes[to]->stmt->kind == ast::StmtKind::Assign &&
                                  p_.nodes[n.id].store == g.nodes[to]->stmt))
            return false;
      }
      if (n.stmt->kind == ast::StmtKind::Assign && !p_.nodes[n.id].store) return false;
    }
    for (int t : local_targets) scan.targets.erase(t);
    return true;
  }

  static bool assigns(const ntg::Graph &g, int var) {
    for (auto &n : g.nodes) {
      const ast::Stmt &st = *n->stmt;
      if (st.kind == ast::StmtKind::Assign && st.target->kind == ast::ExprKind::Name &&
          st.target->var && st.target->var->id == var)
        return true;
      for (auto &sub : n->graphs)
        if (assigns(*sub, var)) return true;
    }
    return false;
  }

  bool lower_direct_map(const ntg::Node &node, Op &op) {
    const ntg::Graph &g = *node.graphs[0];
    const ast::Stmt &st = *node.stmt;
    if (g.dep.arrow == ntg::Arrow::Seq) return false;  // no calls: a chunked map
    // A call's link holds its node and its iteration's place in the chunk.
    if (p_.nodes.size() >= (size_t(1) << 24)) return false;
    TypeKind coll = st.coll_var->type->kind;
    if (coll != TypeKind::Array && coll != TypeKind::Range) return false;
    DirectScan scan;
    // A body that never assigns its element may read it anywhere: no
    // call's result is on its way there.
    if (coll == TypeKind::Array && assigns(g, st.elem_var->id)) scan.elem = st.elem_var->id;
    std::vector<Op> ops;
    int stores = 0;
    std::vector<NodeInfo> saved = p_.nodes;
    if (!direct_ops(g, scan, g.id, ops, stores) || stores > 1) {
      p_.nodes = std::move(saved);
      return false;
    }
    Graph &bg = p_.graphs[g.id];
    bg.id = g.id;
    bg.task = task_;
    bg.outstanding_slot = next_slot_++;
    bg.outstanding_init = 0;
    for (const NodeInfo &info : p_.nodes) bg.outstanding_init += info.graph == g.id;
    bg.end = GraphEnd::Chunk;
    bg.end_node = node.id;
    bg.end_slot = op.counter_slot;
    bg.lo_slot = op.lo_slot;
    bg.hi_slot = op.hi_slot;
    bg.index_var = st.index_var->id;
    op.direct = true;
    op.graphs = {g.id};
    op.inline_ops.push_back(std::move(ops));
    int split = new_block(g.id, BlockKind::Split);
    p_.blocks[split].code = p_.num_codes++;
    op.split_block = split;
    op.copy_vars = iteration_copies(st, g.dep.x);
    p_.blocks[split].loop = op;
    return true;
  }

  std::vector<Op> inline_ops(const ntg::Graph &g) {
    std::vector<Op> ops;
    for (auto &n : g.nodes) ops.push_back(make_op(*n));
    return ops;
  }

  Op make_op(const ntg::Node &node) {
    Op op;
    op.stmt = node.stmt;
    op.parallel = node.parallel();
    if (op.parallel) op.node = node.id;
    switch (node.kind) {
      case ntg::NodeKind::Stmt:
        if (node.spawns) {
          op.kind = OpKind::Spawn;
          op.tail = node.tail_call;
          if (node.stmt->kind == ast::StmtKind::Assign)
            p_.nodes[node.id].target = node.stmt->target->var;
        }
        return op;
      case ntg::NodeKind::If:
      case ntg::NodeKind::Case:
        op.kind = node.kind == ntg::NodeKind::If ? OpKind::If : OpKind::Case;
        for (auto &g : node.graphs) {
          if (op.parallel) op.graphs.push_back(nested(*g, node.id));
          else op.inline_ops.push_back(inline_ops(*g));
        }
        return op;
      case ntg::NodeKind::Then:
        op.kind = OpKind::Then;
        if (!op.parallel) {
          for (auto &g : node.graphs) op.inline_ops.push_back(inline_ops(*g));
          return op;
        }
        {
          int first = lower_graph(*node.graphs[0]);
          int second = nested(*node.graphs[1], node.id);
          int start = p_.graphs[second].entry_block;
          p_.blocks[start].code = p_.num_codes++;
          p_.blocks[start].starts_graph = true;
          p_.graphs[first].end = GraphEnd::StartNext;
          p_.graphs[first].end_block = start;
          op.graphs = {first, second};
        }
        return op;
      case ntg::NodeKind::For:
        op.kind = OpKind::For;
        if (!node.reduction.empty()) {
          op.reduction = node.reduction;
          lower_chunks(node, op);
          return op;
        }
        if (!op.parallel) {
          op.inline_ops.push_back(inline_ops(*node.graphs[0]));
          return op;
        }
        {
          // Chained: one iteration's graph at a time, in the task's record.
          int body = lower_graph(*node.graphs[0]);
          op.counter_slot = next_slot_++;
          // A while's condition may read what any call of the iteration
          // wrote, so its iterations wait for all their calls.
          if (node.stmt->kind != ast::StmtKind::While)
            detach_calls(*node.graphs[0], node, op.counter_slot);
          int step = new_block(body, BlockKind::Step);
          p_.blocks[step].code = p_.num_codes++;
          p_.graphs[body].end = GraphEnd::LoopStep;
          p_.graphs[body].end_block = step;
          op.graphs = {body};
          op.step_block = step;
          p_.blocks[step].loop = op;
        }
        return op;
      case ntg::NodeKind::Map: {
        op.kind = OpKind::Map;
        lower_chunks(node, op);
        return op;
      }
    }
    return op;
  }

  // A map, or a reduction: split blocks spread its iterations over records.
  void lower_chunks(const ntg::Node &node, Op &op) {
    op.parallel = true;
    op.node = node.id;
    op.counter_slot = next_slot_++;
    op.lo_slot = next_slot_++;
    op.hi_slot = next_slot_++;
    if (op.kind == OpKind::Map && lower_direct_map(node, op)) return;
    int body = lower_graph(*node.graphs[0]);
    int split = new_block(body, BlockKind::Split);
    p_.blocks[split].code = p_.num_codes++;
    int next = new_block(body, BlockKind::Next);
    p_.blocks[next].code = p_.num_codes++;
    Graph &bg = p_.graphs[body];
    bg.end = GraphEnd::Iteration;
    bg.end_node = node.id;
    bg.end_slot = op.counter_slot;
    bg.end_block = next;
    bg.lo_slot = op.lo_slot;
    bg.hi_slot = op.hi_slot;
    bg.index_var = node.stmt->index_var->id;
    op.graphs = {body};
    op.split_block = split;
    // An iteration's record needs what its body reads from outside, and
    // the collection; the rest of the parent's record is not copied.
    op.copy_vars = iteration_copies(*node.stmt, node.graphs[0]->dep.x);
    // A body that calls no task needs no counters of its own: a record
    // can run a chunk of iterations one after another.
    op.chunked = node.graphs[0]->dep.arrow == ntg::Arrow::Seq;
    if (op.chunked && !op.reduction.scan) op.step_slot = next_slot_++;
    op.kernel = op.chunked && !op.reduction.scan && !kernels::allocates_or_prints(*node.stmt);
    if (op.reduction.scan) {
      op.totals_slot = next_slot_++;
      op.phase_slot = next_slot_++;
    }
    p_.blocks[split].loop = op;
    p_.blocks[next].loop = op;
  }

  // The variables whose slots a map iteration's record copies from the
  // record that starts the map: what its body reads from outside, and the
  // collection. The element of an enclosing loop has no slot of its own (it
  // is that loop's collection at that loop's index), so reading it copies
  // those two.
  std::vector<int> iteration_copies(const ast::Stmt &map, const std::set<int> &reads) {
    std::set<int> vars;
    for (int v : reads) {
      if (v == map.elem_var->id || v == map.index_var->id) continue;
      if (const ast::Stmt *loop = tg_->vars[v]->alias_of) {
        vars.insert(loop->coll_var->id);
        vars.insert(loop->index_var->id);
      } else {
        vars.insert(v);
      }
    }
    vars.insert(map.coll_var->id);
    return {vars.begin(), vars.end()};
  }

  Program &p_;
  const ntg::TaskGraph *tg_ = nullptr;
  int task_ = -1;
  int next_slot_ = 0;
};

void dump_ops(const std::vector<Op> &ops, int indent, std::ostream &out) {
  std::string pad(indent, ' ');
  for (const Op &op : ops) {
    switch (op.kind) {
      case OpKind::Exec: out << pad << ntg::to_kite(*op.stmt) << "\n"; break;
      case OpKind::Spawn:
        if (op.tail) {
          out << pad << "tail call " << ntg::to_kite(*op.stmt) << "  => finishes the task\n";
          break;
        }
        out << pad << "spawn " << ntg::to_kite(*op.stmt) << "  => signals n" << op.node << "\n";
        break;
      case OpKind::If:
      case OpKind::Case:
      case OpKind::Then:
      case OpKind::For:
      case OpKind::Map:
        if (op.parallel) {
          out << pad << ntg::to_kite(*op.stmt)
              << (op.reduction.empty() ? ""
                  : std::string(op.reduction.scan ? " as a parallel scan (" : " as a parallel reduction (") +
                        reductions::describe(op.reduction) + ")")
              << " starts";
          for (int g : op.graphs) out << " g" << g;
          out << "  => signals n" << op.node << "\n";
        } else {
          out << pad << ntg::to_kite(*op.stmt) << " inline {\n";
          for (size_t i = 0; i < op.inline_ops.size(); ++i) {
            if (i) out << pad << "} {\n";
            dump_ops(op.inline_ops[i], indent + 2, out);
          }
          out << pad << "}\n";
        }
        break;
    }
  }
}

// Whether detached node n is spawned by a block of task t.
bool detached_in_task(const Program &p, int n, int t) {
  for (const Block &b : p.blocks)
    if (b.task == t)
      for (const Op &op : b.ops)
        if (op.kind == OpKind::Spawn && op.node == n) return true;
  return false;
}

}  // namespace

Program lower(const ntg::Program &graphs) {
  Program p;
  Lowering l(p, graphs);
  for (auto &tg : graphs.tasks) l.lower_task(tg);
  return p;
}

void dump(const Program &p, std::ostream &out) {
  for (const Task &t : p.tasks) {
    out << "task " << t.decl->name << ": entry code " << p.blocks[t.entry_block].code << ", "
        << t.record_words << " record slots";
    if (!t.local_arrays.empty()) {
      out << ", frees";
      for (const ast::VarDecl *v : t.local_arrays) out << " " << v->name;
      out << " at its end";
    }
    out << "\n";
    for (const Graph &g : p.graphs) {
      if (g.task != int(&t - p.tasks.data())) continue;
      out << "  graph g" << g.id << ": waits for " << g.outstanding_init << " events (slot "
          << g.outstanding_slot << ")";
      switch (g.end) {
        case GraphEnd::Task: out << ", finishes the task"; break;
        case GraphEnd::Node: out << ", finishes n" << g.end_node; break;
        case GraphEnd::StartNext: out << ", then starts b" << g.end_block; break;
        case GraphEnd::LoopStep: out << ", then steps its loop (b" << g.end_block << ")"; break;
        case GraphEnd::Iteration: out << ", finishes one iteration of n" << g.end_node; break;
        case GraphEnd::Chunk: out << ", the calls of a chunk of iterations of n" << g.end_node; break;
      }
      out << "\n";
      for (const Block &loop_block : p.blocks) {
        if (loop_block.graph != g.id || loop_block.kind == BlockKind::Normal) continue;
        out << "    block b" << loop_block.id << " (code " << loop_block.code << ") "
            << (loop_block.kind == BlockKind::Split ? "splits iterations" : "next iteration")
            << " of n" << loop_block.loop.node
            << (loop_block.loop.chunked ? ", runs them in chunks" : "")
            << (loop_block.loop.kernel ? " or as a kernel of its own" : "")
            << (loop_block.loop.reduction.empty()
                    ? ""
                : loop_block.loop.reduction.scan
                    ? ", a scan: the chunks' totals of " + reductions::describe(loop_block.loop.reduction) +
                          ", their prefixes in order, then the chunks again from their prefixes"
                    : ", a reduction: each chunk folds " +
                          reductions::describe(loop_block.loop.reduction) + " into the task's record")
            << (loop_block.loop.direct ? ", runs them in chunks, results straight to elements" : "")
            << "\n";
        if (loop_block.loop.direct) dump_ops(loop_block.loop.inline_ops[0], 6, out);
      }
      for (int b : g.blocks) {
        const Block &blk = p.blocks[b];
        out << "    block b" << blk.id;
        if (blk.code >= 0) out << " (code " << blk.code << ")";
        if (blk.is_entry) out << " entry";
        else if (blk.counter_slot < 0) out << " waits for " << blk.counter_init;
        else out << " waits for " << blk.counter_init << " (slot " << blk.counter_slot << ")";
        if (blk.starts_graph) out << ", starts the graph";
        if (!blk.notify.empty()) {
          out << ", then signals";
          for (int n : blk.notify) out << " b" << n;
        }
        out << "\n";
        dump_ops(blk.ops, 6, out);
      }
    }
    for (size_t n = 0; n < p.nodes.size(); ++n) {
      const NodeInfo &info = p.nodes[n];
      if (info.detached_from >= 0 && p.blocks[t.entry_block].task == int(&t - p.tasks.data()) &&
          detached_in_task(p, int(n), int(&t - p.tasks.data()))) {
        out << "  n" << n << " detached: signals its loop n" << info.detached_from << "\n";
        continue;
      }
      if (info.graph < 0 || p.graphs[info.graph].task != int(&t - p.tasks.data())) continue;
      out << "  n" << n << " signals";
      for (int b : info.notify) out << " b" << b;
      out << " g" << info.graph << "\n";
    }
  }
}

}  // namespace kite::cps
