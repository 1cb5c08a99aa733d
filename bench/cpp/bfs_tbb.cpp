#include <tbb/parallel_for.h>

#include <atomic>

#include "bfs.h"

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 1000000), d = arg(argc, argv, 2, 4);
  std::printf("%s\n", timed([&] {
                        std::vector<int> deg(n + 1), off(n + 1);
                        tbb::parallel_for(0, n, [&](int u) { deg[u] = degree(u, d); });
                        for (int u = 0, s = 0; u <= n; u++) off[u] = s, s += deg[u];
                        std::vector<int> targets(off[n]);
                        tbb::parallel_for(0, off[n], [&](int e) { targets[e] = target(e, n); });

                        // Level-synchronous, as Kite's map over the frontier: a node joins the
                        // next frontier through the one compare-and-swap that claims it.
                        std::vector<std::atomic<int>> dist(n);
                        for (auto &x : dist) x.store(-1, std::memory_order_relaxed);
                        std::vector<int> cur(n), next(n);
                        dist[0] = 0;
                        cur[0] = 0;
                        int len = 1, levels = 0;
                        while (len > 0) {
                          std::atomic<int> count{0};
                          tbb::parallel_for(0, len, [&](int k) {
                            int u = cur[k];
                            for (int e = off[u]; e < off[u + 1]; e++) {
                              int v = targets[e], unseen = -1;
                              if (dist[v].compare_exchange_strong(unseen, levels + 1,
                                                                  std::memory_order_relaxed))
                                next[count.fetch_add(1, std::memory_order_relaxed)] = v;
                            }
                          });
                          std::swap(cur, next);
                          len = count;
                          levels++;
                        }
                        std::vector<int> plain(dist.begin(), dist.end());
                        return result(plain, levels);
                      }).c_str());
}
