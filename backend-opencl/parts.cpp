// Splitting a large program into parts (parts.h).
#include "backend-opencl/parts.h"

#include <algorithm>
#include <functional>
#include <set>

#include "ir/anf.h"

namespace kite::plan {

namespace {

// The strongly connected components of the call graph, callees' before
// their callers' (Tarjan's algorithm, whose order that is).
std::vector<std::vector<int>> cycles(const std::vector<std::vector<int>> &calls) {
  const int n = int(calls.size());
  std::vector<int> index(size_t(n), -1), low(size_t(n), 0), stack;
  std::vector<bool> on(size_t(n), false);
  std::vector<std::vector<int>> out;
  int next = 0;
  std::function<void(int)> visit = [&](int v) {
    index[size_t(v)] = low[size_t(v)] = next++;
    stack.push_back(v);
    on[size_t(v)] = true;
    for (int w : calls[size_t(v)]) {
      if (index[size_t(w)] < 0) {
        visit(w);
        low[size_t(v)] = std::min(low[size_t(v)], low[size_t(w)]);
      } else if (on[size_t(w)]) {
        low[size_t(v)] = std::min(low[size_t(v)], index[size_t(w)]);
      }
    }
    if (low[size_t(v)] != index[size_t(v)]) return;
    std::vector<int> c;
    int w;
    do {
      w = stack.back();
      stack.pop_back();
      on[size_t(w)] = false;
      c.push_back(w);
    } while (w != v);
    std::sort(c.begin(), c.end());
    out.push_back(std::move(c));
  };
  for (int v = 0; v < n; ++v)
    if (index[size_t(v)] < 0) visit(v);
  return out;
}

}  // namespace

Parts split(const cps::Program &p, int part_blocks) {
  if (part_blocks <= 0) part_blocks = kPartBlocks;
  const size_t n = p.tasks.size();
  Parts parts;
  parts.limit = part_blocks;
  parts.task_part.assign(n, 0);
  parts.fast_parts.assign(n, {});
  std::vector<int> blocks(n, 0);
  for (const cps::Block &b : p.blocks)
    if (b.code >= 0) blocks[size_t(b.task)] += 1;
  std::vector<std::vector<int>> calls(n);
  for (size_t t = 0; t < n; ++t) calls[t] = anf::called_tasks(p.tasks[t].source->body);
  if (p.num_codes > part_blocks) {
    int part = 0, held = 0;
    for (const std::vector<int> &c : cycles(calls)) {
      int size = 0;
      for (int t : c) size += blocks[size_t(t)];
      if (held > 0 && held + size > part_blocks) {
        part += 1;
        held = 0;
      }
      held += size;
      for (int t : c) parts.task_part[size_t(t)] = part;
    }
    parts.count = part + 1;
  }
  parts.main_part = parts.task_part[size_t(p.anf->main)];
  // A form is held where it is called, and where the forms that call it
  // are (by name, or by value: every task of the value's type).
  for (size_t t = 0; t < n; ++t)
    if (p.tasks[t].fast) calls[t] = anf::reachable_calls(*p.anf, p.tasks[t].source->body);
  std::vector<std::set<int>> where(n);
  for (size_t t = 0; t < n; ++t)
    for (int callee : calls[t])
      if (p.tasks[size_t(callee)].fast) where[size_t(callee)].insert(parts.task_part[t]);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t t = 0; t < n; ++t) {
      if (!p.tasks[t].fast) continue;
      for (int callee : calls[t]) {
        if (!p.tasks[size_t(callee)].fast) continue;
        for (int part : where[t]) changed = where[size_t(callee)].insert(part).second || changed;
      }
    }
  }
  for (size_t t = 0; t < n; ++t) parts.fast_parts[t].assign(where[t].begin(), where[t].end());
  return parts;
}

}  // namespace kite::plan
