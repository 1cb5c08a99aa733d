// --dump-cps: the CPS program as text.
#include <ostream>

#include "ir/cps.h"
#include "ir/ntg.h"
#include "ir/reductions.h"

namespace kite::cps {

namespace {

void dump_ops(const Program &p, const std::vector<Op> &ops, int indent, std::ostream &out) {
  std::string pad(indent, ' ');
  for (const Op &op : ops) {
    switch (op.kind) {
      case OpKind::Exec:
        out << pad << anf::to_kite(*op.stmt) << "\n";
        break;
      case OpKind::Spawn:
        if (op.tail) {
          out << pad << "tail call " << anf::to_kite(*op.stmt) << "  => finishes the task\n";
          break;
        }
        out << pad << "spawn " << anf::to_kite(*op.stmt) << "  => signals n" << op.node
            << (answered_at_call(p, op) ? ", or answered here" : "") << "\n";
        break;
      case OpKind::If:
      case OpKind::Case:
      case OpKind::Then:
      case OpKind::For:
      case OpKind::Map:
        if (op.parallel) {
          out << pad << anf::to_kite(*op.stmt)
              << (op.reduction.empty()
                      ? ""
                      : std::string(op.reduction.scan ? " as a parallel scan ("
                                                      : " as a parallel reduction (") +
                            reductions::describe(op.reduction) + ")")
              << " starts";
          for (int g : op.graphs) out << " g" << g;
          out << "  => signals n" << op.node << "\n";
        } else {
          out << pad << anf::to_kite(*op.stmt) << " inline {\n";
          for (size_t i = 0; i < op.inline_ops.size(); ++i) {
            if (i) out << pad << "} {\n";
            dump_ops(p, op.inline_ops[i], indent + 2, out);
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

void dump(const Program &p, std::ostream &out) {
  for (const Task &t : p.tasks) {
    out << "task " << t.source->decl->name << ": entry code " << p.blocks[t.entry_block].code
        << ", " << t.record_words << " record slots";
    if (!t.local_arrays.empty()) {
      out << ", frees";
      for (const ast::VarDecl *v : t.local_arrays) out << " " << v->name;
      out << " at its end";
    }
    if (t.leaf.guard)
      out << ", answers a call at its site where " << (t.leaf.on_false ? "!(" : "")
          << ast::to_kite(*t.leaf.guard) << (t.leaf.on_false ? ")" : "") << ": "
          << ast::to_kite(*t.leaf.value);
    if (t.leaf.scrutinee) {
      std::string field;
      for (const anf::CaseBranch &b : t.source->body[0]->branches)
        if (b.field_index == t.leaf.field) field = b.field;
      out << ", answers a call at its site where " << ast::to_kite(*t.leaf.scrutinee) << " is "
          << field << (t.leaf.binder ? " " + t.leaf.binder->name : "") << ": "
          << ast::to_kite(*t.leaf.value);
    }
    if (t.fast)
      out << ", has a sequential form"
          << (t.fast_writes      ? " that writes memory"
              : t.fast_reads     ? " that reads memory"
              : t.fast_allocates ? " that allocates"
              : t.fast_loops     ? " that loops over a range"
                                 : "");
    else if (!t.no_fast.empty())
      out << ", no sequential form (" << t.no_fast << ")";
    out << "\n";
    for (const Graph &g : p.graphs) {
      if (g.task != int(&t - p.tasks.data())) continue;
      out << "  graph g" << g.id << ": waits for " << g.outstanding_init << " events (slot "
          << g.outstanding_slot << ")";
      switch (g.end) {
        case GraphEnd::Task:
          out << ", finishes the task";
          break;
        case GraphEnd::Node:
          out << ", finishes n" << g.end_node;
          break;
        case GraphEnd::StartNext:
          out << ", then starts b" << g.end_block;
          break;
        case GraphEnd::LoopStep:
          out << ", then steps its loop (b" << g.end_block << ")";
          break;
        case GraphEnd::Iteration:
          out << ", finishes one iteration of n" << g.end_node;
          break;
        case GraphEnd::Chunk:
          out << ", the calls of a chunk of iterations of n" << g.end_node;
          break;
      }
      out << "\n";
      for (const Block &loop_block : p.blocks) {
        if (loop_block.graph != g.id || loop_block.kind == BlockKind::Normal) continue;
        out << "    block b" << loop_block.id << " (code " << loop_block.code << ") "
            << (loop_block.kind == BlockKind::Split ? "splits iterations" : "next iteration")
            << " of n" << loop_block.loop.node
            << (loop_block.loop.chunked ? ", runs them in chunks" : "")
            << (loop_block.loop.kernel ? " or as a kernel of its own" : "")
            << (loop_block.loop.reduction.empty() ? ""
                : loop_block.loop.reduction.scan
                    ? ", a scan: the chunks' totals of " +
                          reductions::describe(loop_block.loop.reduction) +
                          ", their prefixes in order, then the chunks again from their prefixes"
                    : ", a reduction: each chunk folds " +
                          reductions::describe(loop_block.loop.reduction) +
                          " into the task's record")
            << (loop_block.loop.direct ? ", runs them in chunks, results straight to elements" : "")
            << "\n";
        if (loop_block.loop.direct) dump_ops(p, loop_block.loop.inline_ops[0], 6, out);
      }
      for (int b : g.blocks) {
        const Block &blk = p.blocks[b];
        out << "    block b" << blk.id;
        if (blk.code >= 0) out << " (code " << blk.code << ")";
        if (blk.is_entry)
          out << " entry";
        else if (blk.counter_slot < 0)
          out << " waits for " << blk.counter_init;
        else
          out << " waits for " << blk.counter_init << " (slot " << blk.counter_slot << ")";
        if (blk.starts_graph) out << ", starts the graph";
        if (!blk.notify.empty()) {
          out << ", then signals";
          for (int n : blk.notify) out << " b" << n;
        }
        if (blk.end_implied) out << ", its end implied by its last op's";
        out << "\n";
        dump_ops(p, blk.ops, 6, out);
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
      if (info.implied)
        out << " (which count for it in g" << info.graph << ")\n";
      else
        out << " g" << info.graph << "\n";
    }
  }
}

}  // namespace kite::cps
