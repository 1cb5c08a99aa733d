// kite-interp --races (races.h): the rules' order of a list's statements,
// the tree of statement instances, and each element's history.
#include "interp/races.h"

#include <algorithm>
#include <map>

namespace kite::interp {

// What a statement reads and determines (docs/reference.md), by slot.
struct Uses {
  std::set<int> reads, determines;
};

// A list of statements, with the rules' order of its statements.
struct RaceDetector::Block {
  const List *list = nullptr;
  // waits_for[j]: a bit for each i < j that statement j waits for,
  // directly or through others.
  std::vector<std::vector<uint64_t>> waits_for;
  // A for loop's body: its calls that the next iteration does not wait for.
  std::vector<bool> detached;
  bool reaches(int i, int j) const {
    return (waits_for[size_t(j)][size_t(i) / 64] >> (i % 64)) & 1;
  }
};

namespace {

// The variable through which `n` reaches an array or struct (`a` in
// a[i].f), -1 for none: writing through it determines that variable.
int root(const Node *n) {
  while (n && (n->op == Op::Index || n->op == Op::Field)) n = n->a;
  if (n && (n->op == Op::Local || n->op == Op::AliasElem)) return n->slot;
  return -1;
}

void add(Uses &to, const Uses &from) {
  to.reads.insert(from.reads.begin(), from.reads.end());
  to.determines.insert(from.determines.begin(), from.determines.end());
}

// One task's statements at a time (slots are the task's).
class Analysis {
 public:
  // A loop's element stands for an element of its collection: using the
  // loop's hidden collection variable uses the variable the collection is
  // reached through (`a` in `for (x = a)`), in the body as after it.
  void start_task(const TaskCode &t) {
    collection_of_.clear();
    std::vector<const List *> lists{&t.body};
    while (!lists.empty()) {
      const List *list = lists.back();
      lists.pop_back();
      for (const Code *c : *list) {
        if (c->op == CodeOp::For || c->op == CodeOp::Map)
          if (int r = root(c->e); r >= 0) collection_of_[c->slot] = r;
        lists.push_back(&c->body);
        lists.push_back(&c->other);
        for (const Arm &arm : c->arms) lists.push_back(&arm.body);
      }
    }
  }

  const Uses &of(const Code *c) {
    auto it = memo_.find(c);
    if (it != memo_.end()) return it->second;
    Uses u;
    uses(c->e, u);
    uses(c->a, u);
    uses(c->b, u);
    for (const Node *n : c->args) uses(n, u);
    switch (c->op) {
      case CodeOp::Decl:
        u.determines.insert(c->slots.begin(), c->slots.end());
        break;
      case CodeOp::Set:
      case CodeOp::Call:
        if (c->slot >= 0) {
          u.reads.insert(c->slot);
          u.determines.insert(c->slot);
        }
        break;
      case CodeOp::SetAlias:
        u.reads.insert(c->slot);
        u.reads.insert(c->slot2);
        u.determines.insert(c->slot);
        break;
      case CodeOp::SetIndex:
      case CodeOp::SetField:
        if (int r = root(c->a); r >= 0) u.determines.insert(r);
        break;
      case CodeOp::For:
      case CodeOp::Map: {
        // Assigning the element assigns the collection: the loop
        // determines the variable its collection is reached through.
        add(u, of(c->body));
        break;
      }
      case CodeOp::Case:
        for (const Arm &arm : c->arms) add(u, of(arm.body));
        if (c->slot >= 0) u.determines.insert(c->slot);
        break;
      default:
        add(u, of(c->body));
        add(u, of(c->other));
        break;
    }
    // Each loop's collection variable brings in what it stands for.
    for (std::set<int> *vars : {&u.reads, &u.determines}) {
      std::vector<int> direct(vars->begin(), vars->end());
      for (int v : direct)
        for (auto r = collection_of_.find(v); r != collection_of_.end();
             r = collection_of_.find(r->second))
          vars->insert(r->second);
    }
    return memo_[c] = std::move(u);
  }

  Uses of(const List &list) {
    Uses u;
    for (const Code *c : list) add(u, of(c));
    return u;
  }

 private:
  void uses(const Node *n, Uses &u) {
    if (!n) return;
    switch (n->op) {
      case Op::Local:
        u.reads.insert(n->slot);
        break;
      case Op::AliasElem:
      case Op::AliasRange:
        u.reads.insert(n->slot);
        u.reads.insert(n->slot2);
        break;
      case Op::AtomicAdd:
      case Op::AtomicMin:
      case Op::AtomicMax:
      case Op::AtomicCas:
        // An atomic determines its array as a[i] <- ... does.
        if (int r = root(n->a); r >= 0) u.determines.insert(r);
        break;
      default:
        break;
    }
    for (const Node *c : {n->a, n->b, n->c, n->d}) uses(c, u);
    for (const Node *c : n->list) uses(c, u);
  }

  std::unordered_map<const Code *, Uses> memo_;
  std::unordered_map<int, int> collection_of_;  // a loop's collection slot -> its root
};

// Statement j waits for the nearest earlier statement that determines a
// variable j reads or determines, and for every earlier statement that
// reads a variable j determines; then for what those wait for.
void order(const List &list, Analysis &analysis, bool for_body, RaceDetector::Block &b) {
  size_t n = list.size(), words = (n + 63) / 64;
  b.list = &list;
  b.waits_for.assign(n, std::vector<uint64_t>(words, 0));
  std::vector<bool> has_successor(n, false);
  std::map<int, size_t> last_determiner;
  for (size_t j = 0; j < n; ++j) {
    const Uses &u = analysis.of(list[j]);
    std::set<size_t> from;
    for (const std::set<int> *vars : {&u.reads, &u.determines})
      for (int v : *vars)
        if (auto w = last_determiner.find(v); w != last_determiner.end()) from.insert(w->second);
    for (size_t i = 0; i < j; ++i) {
      const Uses &earlier = analysis.of(list[i]);
      for (int v : u.determines)
        if (earlier.reads.count(v)) from.insert(i);
    }
    for (size_t i : from) {
      has_successor[i] = true;
      b.waits_for[j][i / 64] |= uint64_t(1) << (i % 64);
      for (size_t w = 0; w < words; ++w) b.waits_for[j][w] |= b.waits_for[i][w];
    }
    for (int v : u.determines) last_determiner[v] = j;
  }
  if (!for_body) return;
  // A call that no later statement of the body waits for and that
  // determines nothing outside the body is detached from its iteration.
  std::set<int> declared;
  for (const Code *c : list)
    if (c->op == CodeOp::Decl) declared.insert(c->slots.begin(), c->slots.end());
  b.detached.assign(n, false);
  for (size_t i = 0; i < n; ++i) {
    const Code *c = list[i];
    b.detached[i] = c->op == CodeOp::Call && !has_successor[i] &&
                    (c->slot < 0 || c->to_temp || declared.count(c->slot));
  }
}

}  // namespace

RaceDetector::RaceDetector(const ProgramCode &code, std::function<void(const Race &)> report)
    : report_(std::move(report)) {
  Analysis analysis;
  for (const auto &t : code.tasks) {
    analysis.start_task(*t);
    std::vector<std::pair<const List *, bool>> lists{{&t->body, false}};
    while (!lists.empty()) {
      auto [list, for_body] = lists.back();
      lists.pop_back();
      auto &b = blocks_[list];
      b = std::make_unique<Block>();
      order(*list, analysis, for_body, *b);
      for (const Code *c : *list) {
        lists.push_back({&c->body, c->op == CodeOp::For});
        lists.push_back({&c->other, false});
        for (const Arm &arm : c->arms) lists.push_back({&arm.body, false});
      }
    }
  }
  root_ = make(nullptr, Frame{nullptr, 0, 0, nullptr, nullptr});
  root_->depth = 0;
}

RaceDetector::~RaceDetector() = default;

RaceDetector::Node *RaceDetector::make(Node *parent, const Frame &f) {
  if (free_.empty()) {
    constexpr size_t kChunk = 4096;
    chunks_.emplace_back(new Node[kChunk]);
    for (size_t i = 0; i < kChunk; ++i) free_.push_back(&chunks_.back()[i]);
  }
  Node *n = free_.back();
  free_.pop_back();
  *n = Node{parent, f.block, f.part, f.index, parent ? parent->depth + 1 : 0, 1};
  if (parent) ++parent->refs;
  return n;
}

void RaceDetector::release(Node *n) {
  while (n && --n->refs == 0) {
    free_.push_back(n);
    n = n->parent;
  }
}

RaceDetector::Node *RaceDetector::materialize(size_t k) {
  if (stack_[k].node) return stack_[k].node;
  // The lowest frame of the unmaterialised run below k, then up from it.
  size_t j = k;
  while (!stack_[j].parent_node && !stack_[j - 1].node) --j;
  for (; j <= k; ++j) {
    Frame &f = stack_[j];
    f.node = make(f.parent_node ? f.parent_node : stack_[j - 1].node, f);
  }
  return stack_[k].node;
}

void RaceDetector::enter(const List &list, int64_t part) {
  Frame f{blocks_.at(&list).get(), part, -1, nullptr, nullptr};
  if (pending_tail_) {
    f.parent_node = pending_tail_;  // the reference moves to the frame
    pending_tail_ = nullptr;
  } else if (stack_.empty()) {
    f.parent_node = root_;
    ++root_->refs;
  }
  stack_.push_back(f);
}

void RaceDetector::leave() {
  Frame &f = stack_.back();
  release(f.node);
  release(f.parent_node);
  stack_.pop_back();
}

void RaceDetector::tail_call() {
  pending_tail_ = materialize(stack_.size() - 1);
  ++pending_tail_->refs;
}

RaceDetector::Relation RaceDetector::relate(Node *a, Node *b) const {
  if (a == b) return {true, a, nullptr, nullptr};
  Node *x = a, *y = b, *xc = nullptr, *yc = nullptr;
  while (x->depth > y->depth) xc = x, x = x->parent;
  while (y->depth > x->depth) yc = y, y = y->parent;
  while (x != y) xc = x, x = x->parent, yc = y, y = y->parent;
  // One inside the other: a statement's own accesses (a call's arguments,
  // a loop's collection, a condition) come before those of its lists.
  if (!xc || !yc) return {true, x, xc, yc};
  bool ordered = true;
  if (xc->part == yc->part) {
    ordered = xc->index < 0 || xc->block->reaches(xc->index, yc->index);
  } else {
    CodeOp op = x->block ? (*x->block->list)[size_t(x->index)]->op : CodeOp::Call;
    if (op == CodeOp::Map) ordered = false;
    if (op == CodeOp::For) ordered = !xc->block->detached[size_t(xc->index)];
  }
  return {ordered, x, xc, yc};
}

// Entry i, unordered with an access of its kind in a later part of `loop`,
// joins the loop's fold of that kind.
void RaceDetector::fold(std::vector<Entry> &history, size_t i, Node *loop, int64_t from_part) {
  Entry &e = history[i];
  for (size_t j = 0; j < history.size(); ++j) {
    Entry &f = history[j];
    if (j == i || f.node != loop || f.from_part < 0 || f.access != e.access) continue;
    f.from_part = std::max(f.from_part, from_part);
    auto add = [&f](const Site *s) {
      if (s != f.site && std::find(f.more.begin(), f.more.end(), s) == f.more.end())
        f.more.push_back(s);
    };
    add(e.site);
    for (const Site *s : e.more) add(s);
    release(e.node);
    if (i + 1 != history.size()) e = std::move(history.back());
    history.pop_back();
    return;
  }
  ++loop->refs;
  release(e.node);
  e.node = loop;
  e.from_part = from_part;
}

void RaceDetector::report(const Entry &e, const Site *site) {
  // Once per pair of sites, whichever came first.
  if (reported_.insert(std::minmax(e.site, site)).second) report_(Race{e.site, site});
  for (const Site *s : e.more)
    if (reported_.insert(std::minmax(s, site)).second) report_(Race{s, site});
}

void RaceDetector::access(const void *address, const Site *site) {
  Node *b = materialize(stack_.size() - 1);
  std::vector<Entry> &history = history_[reinterpret_cast<uintptr_t>(address)];
  Access k = site->access;
  for (size_t i = 0; i < history.size();) {
    Entry &e = history[i];
    Relation r = relate(e.node, b);
    // A fold stands for accesses in its loop's earlier parts: unordered
    // with everything in the loop's later parts.
    bool inside_fold = e.from_part >= 0 && !r.from;
    if (r.ordered && !inside_fold) {
      bool superseded = k == Access::Write || k == e.access;
      if (superseded) {
        release(e.node);
        if (i + 1 != history.size()) e = std::move(history.back());
        history.pop_back();
        continue;
      }
      ++i;
      continue;
    }
    bool conflict = k != e.access || k == Access::Write;
    if (conflict) report(e, site);
    if (e.access == k) {
      if (inside_fold) {
        e.from_part = std::max(e.from_part, r.to->part);
      } else if (r.from && r.to && r.from->part != r.to->part) {
        size_t before = history.size();
        fold(history, i, r.lca, r.to->part);
        if (history.size() < before) continue;  // entry i is now another
      }
    }
    ++i;
  }
  ++b->refs;
  history.push_back(Entry{b, -1, k, site, {}});
}

}  // namespace kite::interp
