// What the hand-written OpenCL peers (bfs_ocl.cpp, fib_ocl.cpp) share: the
// error check and the set-up of one device, context, queue and program.
#pragma once
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// OCL_NAME is the peer's name in its error messages.
#define CHECK(call)                                                       \
  do {                                                                    \
    cl_int err_ = (call);                                                 \
    if (err_ != CL_SUCCESS) {                                             \
      std::fprintf(stderr, "%s: %s failed: %d\n", OCL_NAME, #call, err_); \
      std::exit(1);                                                       \
    }                                                                     \
  } while (0)

struct Ocl {
  cl_device_id dev = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
  cl_program prog = nullptr;
};

// `device` "gpu" picks the first GPU, anything else the first CPU device;
// `source` is built with no options.
inline Ocl ocl_open(const char *device, const char *source) {
  cl_device_type type =
      device && !std::strcmp(device, "gpu") ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
  // As kite-run does (runtime-cl/host/device.cpp, pin_pocl_threads): PoCL's
  // threads pinned one to a core, or the two of a 2-core machine often share
  // one for milliseconds. Without it fib(32) took 3.5 or 6.4 ms from run to
  // run on the 2-core EPYC, with it 3.5 every time.
  setenv("POCL_AFFINITY", "1", 0);
  cl_platform_id platforms[8];
  cl_uint np = 0;
  CHECK(clGetPlatformIDs(8, platforms, &np));
  Ocl o;
  for (cl_uint i = 0; i < np && !o.dev; i++)
    if (clGetDeviceIDs(platforms[i], type, 1, &o.dev, nullptr) != CL_SUCCESS) o.dev = nullptr;
  if (!o.dev) {
    std::fprintf(stderr, "%s: no such OpenCL device\n", OCL_NAME);
    std::exit(1);
  }
  cl_int err;
  o.ctx = clCreateContext(nullptr, 1, &o.dev, nullptr, nullptr, &err);
  CHECK(err);
  o.q = clCreateCommandQueue(o.ctx, o.dev, 0, &err);
  CHECK(err);
  o.prog = clCreateProgramWithSource(o.ctx, 1, &source, nullptr, &err);
  CHECK(err);
  CHECK(clBuildProgram(o.prog, 1, &o.dev, "", nullptr, nullptr));
  return o;
}
