#include "bfs.h"

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 1000000), d = arg(argc, argv, 2, 4);
  std::printf("%s\n", timed([&] {
                        std::vector<int> deg(n + 1), off(n + 1);
#pragma omp parallel for
                        for (int u = 0; u < n; u++) deg[u] = degree(u, d);
                        for (int u = 0, s = 0; u <= n; u++) off[u] = s, s += deg[u];
                        std::vector<int> targets(off[n]);
#pragma omp parallel for
                        for (int e = 0; e < off[n]; e++) targets[e] = target(e, n);

                        // Level-synchronous, as Kite's map over the frontier: a node joins the
                        // next frontier through the one compare-and-swap that claims it.
                        std::vector<int> dist(n, -1), cur(n), next(n);
                        dist[0] = 0;
                        cur[0] = 0;
                        int len = 1, levels = 0;
                        while (len > 0) {
                          int count = 0;
#pragma omp parallel for schedule(dynamic, 64)
                          for (int k = 0; k < len; k++) {
                            int u = cur[k];
                            for (int e = off[u]; e < off[u + 1]; e++) {
                              int v = targets[e], unseen = -1;
                              if (__atomic_compare_exchange_n(&dist[v], &unseen, levels + 1, false,
                                                              __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                                next[__atomic_fetch_add(&count, 1, __ATOMIC_RELAXED)] = v;
                            }
                          }
                          std::swap(cur, next);
                          len = count;
                          levels++;
                        }
                        return result(dist, levels);
                      }).c_str());
}
