// A hand-written OpenCL Mandelbrot: the peer of bench/kite/mandelbrot.kite
// that a GPU programmer would write, one work-item per pixel. Each
// work-item iterates its pixel, as mandelbrot.h does, and stores the count
// in the image; each work-group sums its counts in local memory and the
// host adds up the groups' sums. FP_CONTRACT OFF, as in kitec's kernels:
// no fused multiply-add, so the counts are those of the C++ peers.
// Usage: mandelbrot_ocl W H LIMIT [cpu|gpu]. The time printed covers
// everything after the kernel is built: the image, the sums.
#define OCL_NAME "mandelbrot_ocl"
#include "mandelbrot.h"
#include "ocl.h"

static const char *kSource = R"CL(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
__kernel void mandelbrot(__global int *counts, int w, int h, int limit,
                         __global long *group_sums, __local long *sums) {
  int p = get_global_id(0), l = get_local_id(0);
  int n = 0;
  if (p < w * h) {
    double cx = -2.0 + 3.0 * (double)(p % w) / (double)w;
    double cy = -1.5 + 3.0 * (double)(p / w) / (double)h;
    double x = 0.0, y = 0.0;
    while (n < limit && x * x + y * y <= 4.0) {
      double t = x * x - y * y + cx;
      y = 2.0 * x * y + cy;
      x = t;
      n = n + 1;
    }
    counts[p] = n;
  }
  sums[l] = n;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s /= 2) {
    if (l < s) sums[l] += sums[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) group_sums[get_group_id(0)] = sums[0];
}
)CL";

int main(int argc, char **argv) {
  int w = arg(argc, argv, 1, 1024), h = arg(argc, argv, 2, 1024), limit = arg(argc, argv, 3, 1000);
  auto [dev, ctx, q, prog] = ocl_open(argc > 4 ? argv[4] : "", kSource);
  cl_int err;
  cl_kernel kernel = clCreateKernel(prog, "mandelbrot", &err);
  CHECK(err);
  // The local-memory sum halves its width each step: a power of two.
  size_t max_group = 0, group = 256;
  CHECK(clGetKernelWorkGroupInfo(kernel, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_group,
                                 &max_group, nullptr));
  while (group > max_group) group /= 2;

  std::printf(
      "%lld\n", timed([&] {
        size_t pixels = (size_t)w * h, global = (pixels + group - 1) / group * group,
               groups = global / group;
        cl_mem counts_b =
            clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, pixels * sizeof(int), nullptr, &err);
        CHECK(err);
        cl_mem sums_b =
            clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, groups * sizeof(cl_long), nullptr, &err);
        CHECK(err);
        CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &counts_b));
        CHECK(clSetKernelArg(kernel, 1, sizeof(int), &w));
        CHECK(clSetKernelArg(kernel, 2, sizeof(int), &h));
        CHECK(clSetKernelArg(kernel, 3, sizeof(int), &limit));
        CHECK(clSetKernelArg(kernel, 4, sizeof(cl_mem), &sums_b));
        CHECK(clSetKernelArg(kernel, 5, group * sizeof(cl_long), nullptr));
        CHECK(clEnqueueNDRangeKernel(q, kernel, 1, nullptr, &global, &group, 0, nullptr, nullptr));
        std::vector<cl_long> sums(groups);
        CHECK(clEnqueueReadBuffer(q, sums_b, CL_TRUE, 0, groups * sizeof(cl_long), sums.data(), 0,
                                  nullptr, nullptr));
        clReleaseMemObject(counts_b);
        clReleaseMemObject(sums_b);
        long long s = 0;
        for (cl_long g : sums) s += g;
        return s;
      }));
}
