// kite-interp --races: finds the pairs of accesses to one array element or
// struct field, at least one of them a write, that Kite's rules leave
// unordered (docs/reference.md, "What waits for what"), on the run's input.
//
// The interpreter runs the program in its serial elision, a topological
// order of the program's dependency graph, so each access need only be
// compared with the earlier accesses of its element. The graph is kept as
// the tree of the statements that ran: a statement instance's children are
// the statements of the lists it runs (a called task's body, a branch, each
// iteration of a loop, each side of a `then`), each list numbered as a
// *part* of its statement. Two accesses in the subtrees of different
// statements A and B of one list instance are ordered exactly when B waits
// for A, directly or not, by the rules (a static property of the list,
// computed once as a transitive closure); in different parts of one
// statement, when that statement orders its parts: a map never does, a for
// loop does unless A is a detached call, `then` and while always do. A
// query walks both accesses up to their lowest common ancestor: O(depth).
//
// Each element keeps the accesses no later access of its kind has shown
// ordered before it (a write supersedes everything before it, a read the
// reads, an atomic the atomics); unordered accesses of one kind in
// different iterations of one loop fold into one entry for the loop, which
// stands for all of them (each is unordered with everything in the loop's
// later iterations), so a map whose iterations all read one element keeps
// two entries for it, not one per iteration.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "interp/code.h"

namespace kite::interp {

// Two accesses of one element or field that nothing orders; `earlier` ran
// first in the interpreter's order.
struct Race {
  const Site *earlier;
  const Site *later;
};

class RaceDetector {
 public:
  // Each race is reported once per pair of sites, as it is found.
  RaceDetector(const ProgramCode &code, std::function<void(const Race &)> report);
  ~RaceDetector();
  RaceDetector(const RaceDetector &) = delete;
  RaceDetector &operator=(const RaceDetector &) = delete;

  // Where the interpreter is. enter: `list` starts running as part `part`
  // of the statement running now (a task's body: part 0 of its call; the
  // first call's is main's). at: its statement `index` runs (-1: a while's
  // condition, which comes before the iteration's statements). leave: the
  // list is done. tail_call: the statement running now is a tail call, so
  // the next list entered is its callee's body.
  void enter(const List &list, int64_t part);
  void at(int index) {
    Frame &f = stack_.back();
    release(f.node);
    f.node = nullptr;
    f.index = index;
  }
  void leave();
  void tail_call();

  // The statement running now reads or writes the element or field at
  // `address` (Site says which, and how to name it).
  void access(const void *address, const Site *site);

  // The distinct pairs of sites reported.
  int64_t races() const { return int64_t(reported_.size()); }

  struct Block;  // a list and the rules' order of its statements (races.cpp)

 private:
  // A statement instance that ran (materialised only once an access needs
  // it), reference-counted by its children, the history and the stack.
  struct Node {
    Node *parent;
    const Block *block;  // the list it belongs to; null for the root
    int64_t part;        // which of its parent's lists
    int index;           // its place in that list (-1: a while's condition)
    uint32_t depth;
    uint32_t refs;
  };
  struct Frame {
    const Block *block;
    int64_t part;
    int index;
    Node *parent_node;  // the parent, when it is not the frame below (root, tail callee)
    Node *node;         // this statement instance, once materialised
  };
  struct Entry {
    Node *node;         // the access's statement; or the loop, for a fold
    int64_t from_part;  // a fold: stands for accesses in the loop's parts before it; -1: none
    Access access;
    const Site *site;
    std::vector<const Site *> more;  // a fold's other sites
  };
  struct Relation {
    bool ordered;
    Node *lca;
    Node *from, *to;  // the lca's children on the earlier and the later side
  };

  Node *materialize(size_t frame);
  Node *make(Node *parent, const Frame &f);
  void release(Node *n);
  Relation relate(Node *earlier, Node *later) const;
  void fold(std::vector<Entry> &history, size_t i, Node *loop, int64_t from_part);
  void report(const Entry &e, const Site *site);

  std::unordered_map<const List *, std::unique_ptr<Block>> blocks_;
  std::vector<Frame> stack_;
  Node *root_;
  Node *pending_tail_ = nullptr;
  std::unordered_map<uintptr_t, std::vector<Entry>> history_;
  std::set<std::pair<const Site *, const Site *>> reported_;
  std::function<void(const Race &)> report_;
  std::vector<std::unique_ptr<Node[]>> chunks_;
  std::vector<Node *> free_;
};

}  // namespace kite::interp
