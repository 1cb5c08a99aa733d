#include "bfs.h"

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 1000000), d = arg(argc, argv, 2, 4);
  std::printf("%s\n", timed([&] {
                        std::vector<int> deg(n + 1), off(n + 1);
                        for (int u = 0; u < n; u++) deg[u] = degree(u, d);
                        for (int u = 0, s = 0; u <= n; u++) off[u] = s, s += deg[u];
                        std::vector<int> targets(off[n]);
                        for (int e = 0; e < off[n]; e++) targets[e] = target(e, n);

                        // Level by level; the frontiers follow each other in one queue.
                        std::vector<int> dist(n, -1), queue(n);
                        dist[0] = 0;
                        queue[0] = 0;
                        int head = 0, tail = 1, levels = 0;
                        while (head < tail) {
                          int end = tail;
                          levels++;
                          for (; head < end; head++) {
                            int u = queue[head];
                            for (int e = off[u]; e < off[u + 1]; e++) {
                              int v = targets[e];
                              if (dist[v] == -1) dist[v] = levels, queue[tail++] = v;
                            }
                          }
                        }
                        return result(dist, levels);
                      }).c_str());
}
