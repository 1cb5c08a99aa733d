// Block-end rules: events that later events imply, left uncounted.
#include "ir/block_ends.h"

#include <algorithm>

namespace kite::cps {

// A graph ends when all its events have: its parallel nodes and its
// blocks. A parallel node that some block of the graph waits for ends
// before that block does, so it need not count: fib's continuation waits
// for both calls, and the calls no longer count down the branch's counter
// as well (one atomic fewer per call). Only in graphs that end a task or a
// node: the others (loops' bodies, maps' iterations and chunks) count
// every event, and so does a node that notifies a block making a tail call
// (which must find the graph's count already down, see the backend's
// tail_blocks). Blocks that notify another keep counting: leaving them out
// as well made UTS 3.5% faster but N-queens 12% slower on an H200
// (docs/design.md, section 4); a block whose last op starts an event of
// its graph does not (imply_block_ends).
void imply_waited_nodes(Program &p) {
  for (NodeInfo &n : p.nodes) {
    if (n.graph < 0 || n.direct || n.notify.empty()) continue;
    const Graph &g = p.graphs[n.graph];
    if (g.id < 0 || (g.end != GraphEnd::Task && g.end != GraphEnd::Node)) continue;
    bool implied = true;
    for (int b : n.notify) implied &= p.blocks[b].graph == n.graph && !takes_over(p.blocks[b].ops);
    if (!implied) continue;
    n.implied = true;
    p.graphs[n.graph].outstanding_init -= 1;
  }
}

// A block that does nothing after its last op, when that op starts an
// event of the block's own graph, ends before that event happens: the
// graph's counter need not count the block's end, since it cannot reach
// zero before that event, which comes after everything the block did; nor
// need the blocks it notifies, when they wait for that event as well.
// The event is a call's or a parallel if's or case's node, counted in the
// graph, or implied by the blocks that wait for it (which run after it),
// so that some counted event comes later still. A branch whose completion
// happens inline (a call-free branch taken) may then finish the task inside
// the op: nothing of the block runs after it. As for implied nodes, only
// graphs that end a task or a node, and none with a block that makes a tail
// call (its callee takes the counters over).
void imply_block_ends(Program &p) {
  std::vector<bool> tail(p.graphs.size(), false);  // a block of the graph makes a tail call
  for (const Block &b : p.blocks)
    if (b.kind == BlockKind::Normal && takes_over(b.ops)) tail[size_t(b.graph)] = true;
  for (Block &b : p.blocks) {
    if (b.kind != BlockKind::Normal || b.ops.empty()) continue;
    Graph &g = p.graphs[b.graph];
    if (g.end != GraphEnd::Task && g.end != GraphEnd::Node) continue;
    if (tail[size_t(b.graph)]) continue;
    const Op &last = b.ops.back();
    const bool starts = (last.kind == OpKind::Spawn && !last.tail) ||
                        ((last.kind == OpKind::If || last.kind == OpKind::Case) && last.parallel) ||
                        last.kind == OpKind::Map;
    if (!starts || last.node < 0) continue;
    const NodeInfo &n = p.nodes[last.node];
    if (n.graph != b.graph || n.direct) continue;
    // The blocks it notifies must wait for that event too, which then tells
    // them of the block's end: UTS's `children` continuation waits for its
    // map alone, not for the entry block as well.
    bool waited = true;
    for (int w : b.notify)
      waited &= std::find(n.notify.begin(), n.notify.end(), w) != n.notify.end();
    if (!waited) continue;
    for (int w : b.notify)
      if (--p.blocks[w].counter_init == 1) p.blocks[w].counter_slot = -1;
    b.notify.clear();
    b.end_implied = true;
    g.outstanding_init -= 1;
  }
}

}  // namespace kite::cps
