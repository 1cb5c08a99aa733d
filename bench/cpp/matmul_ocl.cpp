// A hand-written OpenCL matrix product: the peer of bench/kite/matmul.kite
// that a GPU programmer would write, one work-item per element of C, in
// work-groups of 16 x 16 that stage 16 x 16 tiles of A and B in local
// memory (the textbook tiled kernel, nothing tuned further). The inputs are
// generated on the device; the checksum is summed per work-group in local
// memory and the groups' sums on the host.
// Usage: matmul_ocl N [cpu|gpu]. The time printed covers everything after
// the kernels are built: the inputs, the product, the checksum.
#define OCL_NAME "matmul_ocl"
#include "matmul.h"
#include "ocl.h"

#define TILE 16
static const char *kSource = R"CL(
#define TILE 16
long kite_hash(long x) {
  ulong z = (ulong)x + 0x9e3779b97f4a7c15ul;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
  return (long)(z ^ (z >> 31));
}
__kernel void inputs(__global int *a, __global int *b, int n) {
  long k = get_global_id(0), nn = (long)n * n;
  if (k < nn) {
    a[k] = (int)(kite_hash(k) % 100);
    b[k] = (int)(kite_hash(nn + k) % 100);
  }
}
// C[i][j] for i = global id 1, j = global id 0 (adjacent work-items read
// adjacent elements of B's rows).
__kernel void matmul(__global const int *a, __global const int *b, __global long *c, int n) {
  __local int ta[TILE][TILE], tb[TILE][TILE];
  int j = get_global_id(0), i = get_global_id(1);
  int lj = get_local_id(0), li = get_local_id(1);
  long s = 0;
  for (int t = 0; t < n; t += TILE) {
    ta[li][lj] = i < n && t + lj < n ? a[i * n + t + lj] : 0;
    tb[li][lj] = t + li < n && j < n ? b[(t + li) * n + j] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; k++) s += (long)ta[li][k] * (long)tb[k][lj];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < n && j < n) c[i * n + j] = s;
}
// Each group's part of the sum of c[k] * (k + 1), wrapping.
__kernel void checksum(__global const long *c, long nn, __global ulong *group_sums,
                       __local ulong *sums) {
  long k = get_global_id(0);
  int l = get_local_id(0);
  sums[l] = k < nn ? (ulong)c[k] * (ulong)(k + 1) : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = get_local_size(0) / 2; w > 0; w /= 2) {
    if (l < w) sums[l] += sums[l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) group_sums[get_group_id(0)] = sums[0];
}
)CL";

int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 512);
  auto [dev, ctx, q, prog] = ocl_open(argc > 2 ? argv[2] : "", kSource);
  cl_int err;
  cl_kernel kinputs = clCreateKernel(prog, "inputs", &err);
  CHECK(err);
  cl_kernel kmatmul = clCreateKernel(prog, "matmul", &err);
  CHECK(err);
  cl_kernel ksum = clCreateKernel(prog, "checksum", &err);
  CHECK(err);
  // The checksum's local-memory sum halves its width each step: a power of two.
  size_t max_group = 0, group = 256;
  CHECK(clGetKernelWorkGroupInfo(ksum, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_group, &max_group,
                                 nullptr));
  while (group > max_group) group /= 2;
  auto buffer = [&](size_t bytes) {
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, nullptr, &err);
    CHECK(err);
    return m;
  };

  std::printf(
      "%lld\n", timed([&] {
        cl_long nn = (cl_long)n * n;
        cl_mem a_b = buffer(nn * sizeof(int)), b_b = buffer(nn * sizeof(int)),
               c_b = buffer(nn * sizeof(cl_long));
        size_t g1 = (nn + group - 1) / group * group, groups = g1 / group;
        cl_mem sums_b = buffer(groups * sizeof(cl_ulong));
        std::vector<cl_ulong> sums(groups);
        if (nn > 0) {
          CHECK(clSetKernelArg(kinputs, 0, sizeof(cl_mem), &a_b));
          CHECK(clSetKernelArg(kinputs, 1, sizeof(cl_mem), &b_b));
          CHECK(clSetKernelArg(kinputs, 2, sizeof(int), &n));
          CHECK(clEnqueueNDRangeKernel(q, kinputs, 1, nullptr, &g1, &group, 0, nullptr, nullptr));
          size_t side = (n + TILE - 1) / TILE * TILE, g2[2] = {side, side}, l2[2] = {TILE, TILE};
          CHECK(clSetKernelArg(kmatmul, 0, sizeof(cl_mem), &a_b));
          CHECK(clSetKernelArg(kmatmul, 1, sizeof(cl_mem), &b_b));
          CHECK(clSetKernelArg(kmatmul, 2, sizeof(cl_mem), &c_b));
          CHECK(clSetKernelArg(kmatmul, 3, sizeof(int), &n));
          CHECK(clEnqueueNDRangeKernel(q, kmatmul, 2, nullptr, g2, l2, 0, nullptr, nullptr));
          CHECK(clSetKernelArg(ksum, 0, sizeof(cl_mem), &c_b));
          CHECK(clSetKernelArg(ksum, 1, sizeof(cl_long), &nn));
          CHECK(clSetKernelArg(ksum, 2, sizeof(cl_mem), &sums_b));
          CHECK(clSetKernelArg(ksum, 3, group * sizeof(cl_ulong), nullptr));
          CHECK(clEnqueueNDRangeKernel(q, ksum, 1, nullptr, &g1, &group, 0, nullptr, nullptr));
          CHECK(clEnqueueReadBuffer(q, sums_b, CL_TRUE, 0, groups * sizeof(cl_ulong), sums.data(),
                                    0, nullptr, nullptr));
        }
        for (cl_mem m : {a_b, b_b, c_b, sums_b}) clReleaseMemObject(m);
        uint64_t s = 0;
        for (cl_ulong g : sums) s += g;
        return (long long)s;
      }));
}
