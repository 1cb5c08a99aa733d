// Signals: what a finished node or graph does to its record (kite_signal, or in
// a large program a signal function per task), and a block's notifications.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "backend-opencl/printer.h"

namespace kite::print {

// Whether graph g's counter counts (plan::GraphPlan).
bool Printer::counted(const cps::Graph &g) const {
  return plan_.graphs[size_t(&g - p_.graphs.data())].counted;
}

// Decrements the tail-call blocks' counters into t<id> flags; if one is
// ready, counts this event off graph g, then queues them and returns.
void Printer::ready_tail_blocks(const std::vector<int> &tails, const cps::Graph &g, const char *own,
                                const char *ret, std::ostream &s, int ind) {
  line(s, ind, "{");
  ind += 2;
  std::string any;
  for (int t : tails) {
    const cps::Block *w = &p_.blocks[t];
    line(s, ind,
         w->counter_init == 1 ? fmt::format("int t{} = 1;", w->id)
                              : fmt::format("int t{} = kite_dec({}, KITE_COUNTER(f, {})) == 1;",
                                            w->id, own, w->counter_slot));
    any += fmt::format("{}t{}", any.empty() ? "" : " || ", w->id);
  }
  line(s, ind, "if (" + any + ") {");
  line(s, ind + 2, fmt::format("kite_dec({}, KITE_COUNTER(f, {}));", own, g.outstanding_slot));
  line(s, ind + 2, "KITE_FENCE();");
  for (int t : tails)
    line(s, ind + 2, fmt::format("if (t{}) kite_ready(c, rec, {});", t, p_.blocks[t].code));
  line(s, ind + 2, ret);
  line(s, ind, "}");
  line(s, ind - 2, "}");
}

// Block w of this record has one event fewer to wait for.
std::string Printer::ready_when_last(const cps::Block &w) {
  if (w.counter_init == 1) return fmt::format("kite_ready(c, rec, {});", w.code);
  return fmt::format("if (kite_dec(0, KITE_COUNTER(f, {})) == 1) kite_ready(c, rec, {});",
                     w.counter_slot, w.code);
}

// The same inside kite_signal, where `*own` may hold: once the block is
// queued it may run anywhere, and the caller's `own` holds after it only
// while the record is private (KITE_OWN: the block went on this lane's
// stack).
// `last`: the signal touches nothing of the record after it (an implied
// node's last notification: the block it queues may end the task and free
// the record at once), so the record is not read again; `own` ends. A
// block whose call was answered in place signals from inside it and goes
// on with the record, which another worker may now reach: its updates
// must be atomic (sums.kite: a lost update of the graph's counter left a
// run waiting for ever in about one run in twenty).
std::string Printer::ready_when_last_in_signal(const cps::Block &w, bool last) {
  const char *again = last ? " *own = 0;" : " *own = KITE_OWN(c, rec);";
  if (w.counter_init == 1)
    return fmt::format("if (*own) KITE_READY_FENCE(); kite_ready(c, rec, {});{}", w.code, again);
  return fmt::format(
      "if (kite_dec(*own, KITE_COUNTER(f, {})) == 1) {{ if (*own) KITE_READY_FENCE(); "
      "kite_ready(c, rec, {});{} }}",
      w.counter_slot, w.code, again);
}

// A signal made inline in a block finished task record d.
std::string Printer::finish_d() const {
  return block_->finish_ahead ? "KITE_BLOCK_FINISH_AHEAD(d, own, link0, has_ret, ret);"
                              : "KITE_BLOCK_FINISH(d, own);";
}

// Node `node` of this record has happened, inline in a block.
void Printer::emit_signal_node(int node, std::ostream &s, int ind) {
  line(s, ind,
       fmt::format("{{ int d = {}(c, rec, {}, 0, -1, {}); if (d >= 0) {} }}",
                   signal_function(node, -1), node, "&own", finish_d()));
}

// The function a block calls to signal node `node` (or, with node -1,
// graph `graph`): in a large program its task's own, which kite_signal
// would pick at run time (one dispatch less, and each block's call reaches
// one task's signal, not the whole program's).
std::string Printer::signal_function(int node, int graph) const {
  if (!large()) return "kite_signal";
  int t = plan_.signal_task(p_, node, graph);
  return t >= 0 ? fmt::format("kite_signal_t{}", t) : "kite_signal";
}

// kite_signal: one function over every node and graph of the program, or,
// in a large program, one function per task (kite_signal_t<id>, each
// compiled on its own) and a kite_signal that picks the task's. A signal
// never leaves its task: a node's graph, a graph's end node and a
// detached call's loop are all the same task's.
void Printer::emit_signal(std::ostream &s) {
  s << "/* Node `node` (or, with node -1, graph `graph`) of record `rec` has\n"
       " * happened. Returns the record whose task this finished, or -1. */\n";
  if (!large()) {
    emit_signal_function("kite_signal", -1, s);
    return;
  }
  std::ostringstream by_node, by_graph;
  for (size_t t = 0; t < plan_.signals.size(); ++t) {
    const plan::TaskSignals &ts = plan_.signals[t];
    if (ts.empty()) continue;
    std::string name = fmt::format("kite_signal_t{}", t);
    std::ostringstream function;
    emit_signal_function(name, int(t), function);
    s << in_part(int(t), function.str());
    const std::string call = fmt::format(" return {}(c, rec, node, bits, graph, own);\n", name);
    std::string nodes, graphs;
    for (size_t n : ts.nodes) nodes += fmt::format("  case {}:", n);
    if (!ts.nodes.empty()) by_node << in_part(int(t), nodes + call);
    for (int g : ts.graphs) graphs += fmt::format("  case {}:", g);
    if (!ts.graphs.empty()) by_graph << in_part(int(t), graphs + call);
  }
  s << "KITE_OUT_OF_LINE int kite_signal(kite_ctx *c, int rec, int node, long bits, int graph, "
       "int *own) {\n";
  s << "  switch (node < 0 ? -1 : node & ((1 << KITE_NODE_SHIFT) - 1)) {\n"
    << by_node.str() << "  default: break;\n  }\n";
  s << "  switch (graph) {\n" << by_graph.str() << "  default: return -1;\n  }\n}\n\n";
}

// The signal of one task's nodes and graphs (`only`), or of all (-1).
void Printer::emit_signal_function(const std::string &name, int only, std::ostream &s) {
  s << "KITE_OUT_OF_LINE int " << name
    << "(kite_ctx *c, int rec, int node, long bits, int graph, int *own) {\n";
  s << "  kite_rec f = KITE_REC(c, rec);\n";
  s << "  (void)bits;\n";
  s << "  int j = kite_node_place(&node); /* a direct map's call: its iteration in the chunk */\n";
  s << "  (void)j;\n";
  s << "  for (;;) {\n    switch (node) {\n";
  for (size_t n = 0; n < p_.nodes.size(); ++n) {
    const cps::NodeInfo &info = p_.nodes[n];
    if (only >= 0 && plan_.node_task[n] != only) continue;
    if (info.detached_from >= 0) {
      s << fmt::format("    case {}: /* detached from loop n{} */\n", n, info.detached_from);
      line(s, 6,
           fmt::format("if (kite_dec(*own, KITE_COUNTER(f, {})) != 1) return -1;",
                       info.detached_slot));
      line(s, 6, "KITE_DEC_FENCE(*own);");
      line(s, 6, fmt::format("node = {}; graph = -1; continue;", info.detached_from));
    }
    if (info.graph < 0) continue;
    task_ = p_.graphs[info.graph].task;
    s << fmt::format("    case {}:\n", n);
    if (info.direct) {
      // A call of a direct map's chunk: j is its iteration's place there.
      const cps::Graph &g = p_.graphs[info.graph];
      if (info.store) {
        const Stmt &loop = *element_of(info.store->target->var);
        const Type *elem = info.store->target->var->type;
        line(s, 6,
             fmt::format("{} = {};",
                         element(elem, slot(loop.coll_var),
                                 fmt::format("KITE_I(f, {}) + j", g.lo_slot), loop.loc, false),
                         from_bits(elem, "bits")));
      }
      line(s, 6, counted(g) ? "KITE_DEC_FENCE(*own);" : "KITE_FENCE();");
      line(s, 6, fmt::format("graph = {};", info.graph));
      line(s, 6, "break;");
      continue;
    }
    if (info.target) {
      line(s, 6, slot(info.target) + " = " + from_bits(info.target->type, "bits") + ";");
    }
    const plan::Notify &notify = plan_.nodes[n];
    const std::vector<int> &tails = notify.tails;
    // The result stored, before whoever runs the waiting block reads it.
    if (info.target)
      line(s, 6, notify.dec_first ? "KITE_DEC_FENCE(*own);" : "if (!*own) KITE_FENCE();");
    for (size_t k = 0; k < info.notify.size(); ++k) {
      const cps::Block &w = p_.blocks[info.notify[k]];
      if (std::find(tails.begin(), tails.end(), w.id) == tails.end())
        line(s, 6, ready_when_last_in_signal(w, info.implied && k + 1 == info.notify.size()));
    }
    if (!tails.empty())
      ready_tail_blocks(tails, p_.graphs[info.graph], "*own", "*own = 0; return -1;", s, 6);
    if (info.implied) {
      line(s, 6, "return -1; /* the blocks it notified count for it */");
      continue;
    }
    line(s, 6, fmt::format("graph = {};", info.graph));
    line(s, 6, "break;");
  }
  s << "    default: break;\n    }\n";
  s << "    switch (graph) {\n";
  for (const cps::Graph &g : p_.graphs) {
    if (g.id < 0) continue;  // a part of an inline statement: no counters
    if (only >= 0 && g.task != only) continue;
    s << fmt::format("    case {}:\n", g.id);
    // A chunk's end of range is set before any of its calls is queued and
    // stays until its graph ends: read with what the signal read before,
    // not a trip to memory after the decrement.
    const bool chunk = g.end == cps::GraphEnd::Chunk;
    if (chunk) line(s, 6, fmt::format("{{ const int hi = KITE_I(f, {});", g.hi_slot));
    if (counted(g))
      line(s, 6,
           fmt::format("if (kite_dec(*own, KITE_COUNTER(f, {})) != 1) return -1;",
                       g.outstanding_slot));
    // While *own holds, no other lane signalled here: nothing to see. A
    // graph end that queues a block of this record fences for it. One
    // that waits for a single event ends in the lane that made it, which
    // has seen what the graph's other, implied events wrote (they came
    // before it, through the acquires that ordered it after them); the
    // node or the task that it ends hands on through a kite_dec or a
    // fenced kite_ready, or kite_finish_at's, which release for it.
    // After a kite_dec, KITE_DEC_FENCE is its acquire (on NVIDIA the
    // atomic's own); a queue publishes its entries with a release of its
    // own (kite_push's fence on a narrow worker, kite_written's or the
    // round's barriers on a wide one), and kite_record_done's relaxed
    // atomic gets a fence before it.
    const bool fenced = plan_.graphs[size_t(&g - p_.graphs.data())].fenced;
    if (fenced)
      line(s, 6, "KITE_FENCE();");
    else if (counted(g))
      line(s, 6, "KITE_DEC_FENCE(*own);");
    switch (g.end) {
      case cps::GraphEnd::Task:
        task_ = g.task;
        emit_free_arrays(s, 6);
        line(s, 6, "return rec; /* the task's body is done */");
        break;
      case cps::GraphEnd::Node:
        line(s, 6, fmt::format("node = {}; graph = -1; continue;", g.end_node));
        break;
      case cps::GraphEnd::StartNext:
      case cps::GraphEnd::LoopStep:
        line(s, 6, fmt::format("kite_ready(c, rec, {}); return -1;", p_.blocks[g.end_block].code));
        break;
      case cps::GraphEnd::Chunk:
        // The whole map ran in the task's record, or a chunk in its own.
        line(s, 6, fmt::format("if (hi < 0) {{ node = {}; graph = -1; continue; }}", g.end_node));
        emit_record_done(g, fenced, "hi", s);
        line(s, 6, "}");
        break;
      case cps::GraphEnd::Iteration: {
        std::string index = fmt::format("KITE_I(f, {})", p_.tasks[g.task].var_slot[g.index_var]);
        line(s, 6,
             fmt::format("if ({} + 1 < KITE_I(f, {})) {{ kite_ready(c, rec, {}); return -1; }}",
                         index, g.hi_slot, p_.blocks[g.end_block].code));
        emit_record_done(g, fenced, fmt::format("KITE_I(f, {})", g.hi_slot), s);
        break;
      }
    }
  }
  s << "    default: return -1;\n    }\n  }\n}\n\n";
}

// A map's record has run its iterations: free it and count them off the
// parent's; the last makes the map node happen there.
void Printer::emit_record_done(const cps::Graph &g, bool fenced, const std::string &hi,
                               std::ostream &s) {
  if (!fenced) line(s, 6, "KITE_FENCE(); /* what the chunk's calls wrote, before its count */");
  line(s, 6,
       fmt::format("rec = kite_record_done(c, rec, {} - KITE_I(f, {}), {});", hi, g.lo_slot,
                   g.end_slot));
  line(s, 6, "if (rec < 0) return -1;");
  line(
      s, 6,
      fmt::format("f = KITE_REC(c, rec); *own = KITE_OWN(c, rec); node = {}; graph = -1; continue;",
                  g.end_node));
}

}  // namespace kite::print
