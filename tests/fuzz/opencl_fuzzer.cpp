// libFuzzer target: every program kitec accepts must give OpenCL C that the
// OpenCL CPU device (PoCL) builds. Inputs are compiled as kitec compiles them
// (driver/pipeline.h); the OpenCL C of accepted ones goes to clBuildProgram
// with kite-run's CPU build options (runtime-cl/host/device.cpp). A build
// failure prints the build log and aborts. Each new program takes a second or
// two to build, so this target is run on a corpus of valid programs.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "driver/pipeline.h"

namespace {

cl_device_id g_device = nullptr;
cl_context g_context = nullptr;

void fail(const char *what, cl_int err) {
  std::fprintf(stderr, "opencl_fuzzer: %s (OpenCL error %d)\n", what, err);
  std::abort();
}

// The first CPU device of any platform.
void open_cpu_device() {
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) fail("no OpenCL platform", 0);
  std::vector<cl_platform_id> platforms(n);
  clGetPlatformIDs(n, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, &g_device, nullptr) == CL_SUCCESS) break;
    g_device = nullptr;
  }
  if (!g_device) fail("no OpenCL CPU device", 0);
  cl_int err = CL_SUCCESS;
  g_context = clCreateContext(nullptr, 1, &g_device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) fail("cannot create an OpenCL context", err);
}

std::string build_log(cl_program program) {
  size_t size = 0;
  clGetProgramBuildInfo(program, g_device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, g_device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  return log;
}

void build(const std::string &opencl) {
  const char *text = opencl.c_str();
  size_t size = opencl.size();
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(g_context, 1, &text, &size, &err);
  if (err != CL_SUCCESS) fail("cannot create the OpenCL program", err);
  err = clBuildProgram(program, 1, &g_device, "-cl-std=CL1.2 -w -DKITE_CPU=1", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "opencl_fuzzer: the generated OpenCL C does not build:\n%s\n",
                 build_log(program).c_str());
    fail("clBuildProgram failed", err);
  }
  cl_kernel kernel = clCreateKernel(program, "kite_uber", &err);
  if (err != CL_SUCCESS) fail("cannot create the kernel kite_uber", err);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // Every input is a new program: PoCL's on-disk kernel cache would only grow.
  setenv("POCL_KERNEL_CACHE", "0", 0);
  open_cpu_device();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kite::SourceFile file("fuzz.kite", std::string(reinterpret_cast<const char *>(data), size));
  for (bool optimize : {true, false}) {
    kite::CompileOptions options;
    options.optimize = optimize;
    std::ostringstream diagnostics;
    kite::Artifact artifact;
    if (kite::compile(file, options, diagnostics, artifact) != 0) return 0;
    // Many mutations (comments, spacing, names) give OpenCL C already built.
    static std::unordered_set<size_t> built;
    if (built.insert(std::hash<std::string>()(artifact.opencl)).second) build(artifact.opencl);
  }
  return 0;
}
