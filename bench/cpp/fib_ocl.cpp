// A hand-written OpenCL fib: the hardware reference for fib(n) that the Kite
// version runs against, making the same calls as fib_seq.cpp's recursion
// with no scheduler. The host expands the top of the call tree down to a
// frontier of subtree roots; one work-item per root then makes every call
// of its subtree, an iterative depth-first walk over a private stack (OpenCL
// C has no recursion); each work-group sums its roots' values in local
// memory and the host adds up the groups' sums. No memoisation, no closed
// form: every one of fib's calls is made once, on the host or on the device.
// Usage: fib_ocl N [cpu|gpu]. The time printed covers everything after the
// kernel is built: the expansion, the device walk, the sums.
#define OCL_NAME "fib_ocl"
#include <algorithm>
#include <cstring>
#include <vector>

#include "common.h"
#include "ocl.h"

// At least this many roots, so that a large GPU fills up at once: an H200
// holds 132 x 2048 = 270336 work-items, issuing on 132 x 128 = 16896 lanes.
// The cutoff rule below gives between 1 and 1.62 times this many.
static const long kMinRoots = 1L << 17;
// The walk of fib(m) holds at most m entries (m >= 2).
#define STACK 64
static const int kMaxCutoff = STACK - 4;

static const char *kSource = R"CL(
#define STACK 64
__kernel void fib_roots(__global const uchar *roots, int count,
                        __global long *group_sums, __local long *sums) {
  int i = get_global_id(0), l = get_local_id(0);
  long s = 0;
  if (i < count) {
    // fib(k) = fib(k-1) + fib(k-2) with the recursion's calls, in its order:
    // a popped k < 2 is a leaf and returns k; any other k calls k-1 first.
    uchar stack[STACK];
    int sp = 0;
    stack[sp++] = roots[i];
    while (sp > 0) {
      uchar k = stack[--sp];
      if (k < 2) {
        s += k;
      } else {
        stack[sp++] = k - 2;
        stack[sp++] = k - 1;
      }
    }
  }
  sums[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = get_local_size(0) / 2; w > 0; w /= 2) {
    if (l < w) sums[l] += sums[l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) group_sums[get_group_id(0)] = sums[0];
}
)CL";

// The number of roots when every call with an argument of at most c is a
// root: 1 for n <= c, else the roots of n-1 plus those of n-2.
static long roots_below(int n, int c) {
  long a = 1, b = 1;  // roots(k - 1), roots(k), from k = c on
  for (int k = c + 1; k <= n; k++) {
    long t = a + b;
    a = b;
    b = t;
  }
  return b;
}

// The calls fib(k) with k > c run here, in the recursion's order; the
// others are the roots. Leaves (k < 2) are always roots (c >= 1), so the
// host adds nothing to the sum itself.
static void expand(int k, int c, std::vector<cl_uchar> &roots) {
  if (k <= c) {
    roots.push_back((cl_uchar)k);
  } else {
    expand(k - 1, c, roots);
    expand(k - 2, c, roots);
  }
}

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 30);
  if (n < 0 || n > 92) {  // fib(93) overflows 64 bits
    std::fprintf(stderr, "fib_ocl: n must be in 0 .. 92\n");
    return 1;
  }
  auto [dev, ctx, q, prog] = ocl_open(argc > 2 ? argv[2] : "", kSource);
  cl_int err;
  cl_kernel kroots = clCreateKernel(prog, "fib_roots", &err);
  CHECK(err);
  // The local-memory sum halves its width each step: a power of two.
  size_t max_group = 0, group = 256;
  CHECK(clGetKernelWorkGroupInfo(kroots, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_group,
                                 &max_group, nullptr));
  while (group > max_group) group /= 2;

  // The cutoff c: the largest that still leaves kMinRoots roots, so the
  // frontier follows n (fib(40): c = 15, 196418 roots). A cutoff on the
  // argument, not on the depth: the roots are then fib(c) and fib(c-1)
  // only, subtrees within 1.62 times each other's size, while the calls at
  // one depth d range from fib(n-2d) to fib(n-d) (fib(40) at depth 17:
  // subtrees of 25 to 92735 calls), and the largest would set the time.
  // Small n: c = 1, every leaf a root, every inner call on the host.
  int c = 1;
  while (c < kMaxCutoff && roots_below(n, c + 1) >= kMinRoots) c++;

  double expand_ms = 0;
  long long fib = timed([&] {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<cl_uchar> roots;
    roots.reserve(roots_below(n, c));
    expand(n, c, roots);
    // Lanes of one warp whose roots differ would part ways at every step of
    // their walks; grouped, equal roots walk in lockstep.
    std::partition(roots.begin(), roots.end(), [&](cl_uchar k) { return k == c; });
    expand_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    int count = (int)roots.size();
    size_t global = (count + group - 1) / group * group, groups = global / group;
    cl_mem roots_b = clCreateBuffer(ctx, CL_MEM_READ_ONLY, count, nullptr, &err);
    CHECK(err);
    cl_mem sums_b = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, groups * sizeof(cl_long), nullptr, &err);
    CHECK(err);
    CHECK(clEnqueueWriteBuffer(q, roots_b, CL_FALSE, 0, count, roots.data(), 0, nullptr, nullptr));
    CHECK(clSetKernelArg(kroots, 0, sizeof(cl_mem), &roots_b));
    CHECK(clSetKernelArg(kroots, 1, sizeof(int), &count));
    CHECK(clSetKernelArg(kroots, 2, sizeof(cl_mem), &sums_b));
    CHECK(clSetKernelArg(kroots, 3, group * sizeof(cl_long), nullptr));
    CHECK(clEnqueueNDRangeKernel(q, kroots, 1, nullptr, &global, &group, 0, nullptr, nullptr));
    std::vector<cl_long> sums(groups);
    CHECK(clEnqueueReadBuffer(q, sums_b, CL_TRUE, 0, groups * sizeof(cl_long), sums.data(), 0,
                              nullptr, nullptr));
    clReleaseMemObject(roots_b);
    clReleaseMemObject(sums_b);
    long long total = 0;
    for (cl_long s : sums) total += s;
    return total;
  });
  // Not parsed by bench/run (it reads the `time:` line): how the time splits.
  std::fprintf(stderr,
               "fib_ocl: cutoff %d, %ld roots, work-groups of %zu, host expansion %.3f ms\n", c,
               roots_below(n, c), group, expand_ms);
  std::printf("%lld\n", fib);
}
