// A hand-written OpenCL worklist BFS: the peer of bench/kite/bfs.kite that a
// GPU programmer would write (one kernel launch per level, one work-item per
// frontier node, atomic_cmpxchg to claim a node, atomic_inc to append it).
// The graph is generated on the device; its row offsets are a sequential
// prefix sum on the host, as in every other version.
// Usage: bfs_ocl N D [cpu|gpu]. The time printed covers everything after the
// kernels are built: generation, the search, reading back the distances.
#define OCL_NAME "bfs_ocl"
#include <cstring>

#include "bfs.h"
#include "ocl.h"

static const char *kSource = R"CL(
long kite_hash(long x) {
  ulong z = (ulong)x + 0x9e3779b97f4a7c15ul;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
  return (long)(z ^ (z >> 31));
}
__kernel void gen_degrees(__global int *deg, int n, int d) {
  int u = get_global_id(0);
  if (u < n) deg[u] = 1 + (int)((kite_hash(u) & 0x7fffffffL) % (2 * d - 1));
}
__kernel void gen_edges(__global int *targets, int m, int n) {
  int e = get_global_id(0);
  if (e < m) targets[e] = (int)((kite_hash(4294967296L + e) & 0x7fffffffL) % n);
}
__kernel void bfs_level(__global const int *off, __global const int *targets,
                    __global int *dist, __global const int *cur,
                    __global int *next, __global int *count, int len, int depth) {
  int k = get_global_id(0);
  if (k >= len) return;
  int u = cur[k];
  for (int e = off[u]; e < off[u + 1]; e++) {
    int v = targets[e];
    if (atomic_cmpxchg(&dist[v], -1, depth + 1) == -1) next[atomic_inc(count)] = v;
  }
}
)CL";

static size_t round_up(size_t x) { return (x + 255) / 256 * 256; }

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 1000000), d = arg(argc, argv, 2, 4);
  auto [dev, ctx, q, prog] = ocl_open(argc > 3 ? argv[3] : "", kSource);
  (void)dev;
  cl_int err;
  cl_kernel kdeg = clCreateKernel(prog, "gen_degrees", &err);
  CHECK(err);
  cl_kernel kedges = clCreateKernel(prog, "gen_edges", &err);
  CHECK(err);
  cl_kernel klevel = clCreateKernel(prog, "bfs_level", &err);
  CHECK(err);
  auto buffer = [&](size_t ints) {
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, ints * sizeof(int), nullptr, &err);
    CHECK(err);
    return b;
  };

  std::printf(
      "%s\n",
      timed([&] {
        // The graph: degrees on the device, offsets on the host, edges on the device.
        std::vector<int> off(n + 1);
        cl_mem deg_b = buffer(n);
        CHECK(clSetKernelArg(kdeg, 0, sizeof(cl_mem), &deg_b));
        CHECK(clSetKernelArg(kdeg, 1, sizeof(int), &n));
        CHECK(clSetKernelArg(kdeg, 2, sizeof(int), &d));
        size_t g = round_up(n);
        CHECK(clEnqueueNDRangeKernel(q, kdeg, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
        CHECK(clEnqueueReadBuffer(q, deg_b, CL_TRUE, 0, n * sizeof(int), off.data(), 0, nullptr,
                                  nullptr));
        for (int u = 0, s = 0; u <= n; u++) {
          int k = u < n ? off[u] : 0;
          off[u] = s;
          s += k;
        }
        int m = off[n];
        cl_mem off_b = buffer(n + 1), targets_b = buffer(m), dist_b = buffer(n), cur_b = buffer(n),
               next_b = buffer(n), count_b = buffer(1);
        CHECK(clEnqueueWriteBuffer(q, off_b, CL_FALSE, 0, (n + 1) * sizeof(int), off.data(), 0,
                                   nullptr, nullptr));
        CHECK(clSetKernelArg(kedges, 0, sizeof(cl_mem), &targets_b));
        CHECK(clSetKernelArg(kedges, 1, sizeof(int), &m));
        CHECK(clSetKernelArg(kedges, 2, sizeof(int), &n));
        g = round_up(m);
        CHECK(clEnqueueNDRangeKernel(q, kedges, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));

        // The search: one launch per level; cur and next swap.
        int minus1 = -1, zero = 0, len = 1, levels = 0;
        CHECK(clEnqueueFillBuffer(q, dist_b, &minus1, sizeof(int), 0, n * sizeof(int), 0, nullptr,
                                  nullptr));
        CHECK(
            clEnqueueWriteBuffer(q, dist_b, CL_FALSE, 0, sizeof(int), &zero, 0, nullptr, nullptr));
        CHECK(clEnqueueWriteBuffer(q, cur_b, CL_FALSE, 0, sizeof(int), &zero, 0, nullptr, nullptr));
        while (len > 0) {
          CHECK(clEnqueueWriteBuffer(q, count_b, CL_FALSE, 0, sizeof(int), &zero, 0, nullptr,
                                     nullptr));
          cl_mem args[] = {off_b, targets_b, dist_b, cur_b, next_b, count_b};
          for (int i = 0; i < 6; i++) CHECK(clSetKernelArg(klevel, i, sizeof(cl_mem), &args[i]));
          CHECK(clSetKernelArg(klevel, 6, sizeof(int), &len));
          CHECK(clSetKernelArg(klevel, 7, sizeof(int), &levels));
          g = round_up(len);
          CHECK(clEnqueueNDRangeKernel(q, klevel, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
          CHECK(
              clEnqueueReadBuffer(q, count_b, CL_TRUE, 0, sizeof(int), &len, 0, nullptr, nullptr));
          std::swap(cur_b, next_b);
          levels++;
        }
        std::vector<int> dist(n);
        CHECK(clEnqueueReadBuffer(q, dist_b, CL_TRUE, 0, n * sizeof(int), dist.data(), 0, nullptr,
                                  nullptr));
        for (cl_mem b : {deg_b, off_b, targets_b, dist_b, cur_b, next_b, count_b})
          clReleaseMemObject(b);
        return result(dist, levels);
      }).c_str());
}
