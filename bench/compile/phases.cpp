// Times the phases of one OpenCL build on the first GPU: the platform query,
// the context, a trivial kernel's build, the program's build from source,
// and its build again from the binary that came out (for NVIDIA, PTX: the
// driver's assembler alone). The OpenCL C is a kite artifact's (the text
// after its `opencl N` line), built with kite-run's options:
//
//   g++ -O2 -o phases bench/compile/phases.cpp -lOpenCL
//   ./phases prog.cl -cl-std=CL1.2 -w -DKITE_GPU=1 -DKITE_NVIDIA=1 ...
//
// With OUTPTX=file in the environment the binary is written there.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
using C = std::chrono::steady_clock;
static double ms(C::time_point a) {
  return std::chrono::duration<double, std::milli>(C::now() - a).count();
}
int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: phases FILE.cl [build options...]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string src = ss.str();
  std::string opt;
  for (int i = 2; i < argc; i++) {
    opt += argv[i];
    opt += " ";
  }
  auto t = C::now();
  cl_platform_id plats[8];
  cl_uint np;
  clGetPlatformIDs(8, plats, &np);
  cl_device_id dev = 0;
  for (cl_uint i = 0; i < np && !dev; i++)
    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, nullptr) != CL_SUCCESS) dev = 0;
  printf("platforms %.0f ms\n", ms(t));
  t = C::now();
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
  printf("context %.0f ms\n", ms(t));
  t = C::now();
  const char *triv = "kernel void k(global int *a) { a[get_global_id(0)] = 1; }";
  cl_program tp = clCreateProgramWithSource(ctx, 1, &triv, nullptr, &err);
  clBuildProgram(tp, 1, &dev, "-cl-std=CL1.2", nullptr, nullptr);
  printf("trivial build %.0f ms\n", ms(t));
  t = C::now();
  const char *s = src.c_str();
  size_t n = src.size();
  cl_program p = clCreateProgramWithSource(ctx, 1, &s, &n, &err);
  err = clBuildProgram(p, 1, &dev, opt.c_str(), nullptr, nullptr);
  printf("source build %.0f ms (err %d)\n", ms(t), err);
  t = C::now();
  size_t bs;
  clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bs, &bs, nullptr);
  std::vector<unsigned char> bin(bs);
  unsigned char *bp = bin.data();
  clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bp, &bp, nullptr);
  printf("binary %zu bytes %.0f ms\n", bs, ms(t));
  t = C::now();
  const unsigned char *cb = bin.data();
  cl_int st;
  cl_program q = clCreateProgramWithBinary(ctx, 1, &dev, &bs, &cb, &st, &err);
  err = clBuildProgram(q, 1, &dev, opt.c_str(), nullptr, nullptr);
  printf("binary build %.0f ms (err %d)\n", ms(t), err);
  t = C::now();
  clCreateKernel(q, "kite_uber", &err);
  printf("kernel %.0f ms (err %d)\n", ms(t), err);
  if (getenv("OUTPTX")) {
    std::ofstream o(getenv("OUTPTX"));
    o.write((char *)bin.data(), bs);
  }
  return 0;
}
