// OpenCL devices: enumeration, choice, and building the artifact's program
// (through the binary cache) into a ready `kite_uber` kernel.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "host/cache.h"
#include "host/cl.h"
#include "runtime-cl/kite_abi.h"

namespace kite::host {

struct Device {
  int index = 0;  // position in list_devices(), as --device N names it
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  std::string platform_name;
  std::string name;
  std::string version;         // CL_DEVICE_VERSION
  std::string driver_version;  // CL_DRIVER_VERSION
  cl_device_type type = 0;
  cl_uint compute_units = 0;
  cl_ulong global_mem = 0;
  cl_ulong max_alloc = 0;  // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  cl_ulong local_mem = 0;  // CL_DEVICE_LOCAL_MEM_SIZE
  size_t max_group = 1;    // CL_DEVICE_MAX_WORK_GROUP_SIZE
  uint32_t simd_width =
      0;  // lanes that run in lockstep (NVIDIA's warp, AMD's wavefront); 0: unknown
  uint32_t cache_line = 0;  // CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE in bytes; 0: unknown

  bool is_cpu() const { return (type & CL_DEVICE_TYPE_CPU) != 0; }
  // NVIDIA's OpenCL, and PoCL (the Portable Computing Language).
  bool is_nvidia() const { return platform_name.find("NVIDIA") != std::string::npos; }
  bool is_pocl() const {
    return platform_name.find("Portable Computing Language") != std::string::npos;
  }
  bool is_gpu() const { return (type & CL_DEVICE_TYPE_GPU) != 0; }
  const char *type_name() const;  // "cpu", "gpu", "accelerator" or "other"
};

// Every device of every platform, in platform order. Empty if there is no
// OpenCL platform at all.
std::vector<Device> list_devices();

// One line per device: index, name, platform, type, compute units, memory.
void print_devices(const std::vector<Device> &devices, std::FILE *out);

// `spec` is "cpu", "gpu", a device index, or "" for the default (the first
// CPU device, else the first device). Throws RunError if there is none.
const Device &select_device(const std::vector<Device> &devices, const std::string &spec);

// The shape of a worker, fixed when the program is built.
struct WorkerShape {
  uint32_t lanes = 1;        // work-items per worker (KITE_LANES)
  uint32_t local_queue = 0;  // entries in a wide worker's local queue (KITE_LOCAL_QUEUE)
  uint32_t lane_blocks = 1;  // blocks a wide worker's lane may run per round (KITE_LANE_BLOCKS)
  uint32_t hand_blocks =
      1;              // blocks a wide worker's lane may go on to per round (KITE_HAND_BLOCKS)
  uint32_t fast = 1;  // --fast-calls: 0 never, 1 the rule, 2 always, 3 stop (KITE_FAST, fast.cl)
  bool keep_rule = false;        // narrow workers keep forms under the rule too (KITE_KEEP_RULE)
  uint32_t max_registers = 0;    // NVIDIA's register limit per work-item; 0: the compiler's
  uint32_t record_stride = 0;    // longs from one record to the next (KITE_RECORD_STRIDE)
  uint32_t map_kernels_min = 0;  // maps this long may run as kernels (KITE_OFFLOAD_MIN); 0: none
  uint32_t map_width = KITE_MAP_GROUP;  // launches only: a map kernel's work-items per map and row
};

// What the kernel needs per work-item and work-group (for --stats):
// registers (NVIDIA's build log, kept in the cache beside the binary; 0:
// unknown), private (spilled) and local memory (OpenCL's kernel queries).
struct KernelSize {
  uint32_t registers = 0;
  uint64_t private_bytes = 0, local_bytes = 0;
};

// A context and in-order queue on one device, and the built kite_uber kernel.
struct DeviceProgram {
  Context context;
  Queue queue;
  // By part (one, unless kitec split the program: runtime-cl/device/parts.cl):
  // the program built with -DKITE_PART=k and its kite_uber.
  std::vector<Program> programs;
  std::vector<Kernel> kernels;
  int main_part = 0;                   // the part whose launch starts the run
  WorkerShape shape;                   // every launch's work-groups are shape.lanes work-items
  std::string options;                 // the build options used (but for the part's)
  uint64_t cache_key = 0;              // hash of source, options and device; keys the caches
  bool from_cache = false;             // every part's binary came from the cache
  size_t parts_built = 0;              // parts built, not loaded from the cache
  KernelSize size;                     // the largest of the parts'
  std::vector<KernelSize> part_sizes;  // each part's; registers 0 where the build log had none

  size_t parts() const { return kernels.size(); }
};

// A program in parts' source for part `part` alone: without the code that
// kitec put inside `#if KITE_PART < 0 || KITE_PART == ...` for other parts
// (backend-opencl/parts.h), which the preprocessor would drop anyway.
std::string part_source(const std::string &opencl, int part);

// The environment as the program started, before any OpenCL driver ran
// (kept by keep_start_environment, first thing in main): the build
// processes get it, since NVIDIA's platform does not start in a process
// that inherits what its driver left in the environment.
void keep_start_environment();
std::vector<std::string> &start_environment();

// kite-run --build-part DIR K..., which build_program runs to build parts
// K of a program in a process of their own, one after the other:
// DIR holds each part's source (source.K), the device's platform and name
// (device) and the part's options (options.K); it writes K.bin and K.log,
// K.log and K.failed where the build failed, or K.error. Returns the exit
// status: 0 all built, 1 a build failed, 2 another error.
int build_part_child(const std::string &dir, const std::vector<std::string> &parts);

// Builds `opencl` for `device` with -cl-std=CL1.2 -w (the generated code's warnings
// are not the user's business; PoCL prints their count on stderr), -DKITE_GPU=1 or
// -DKITE_CPU=1 and, for wide workers, -DKITE_LANES and -DKITE_LOCAL_QUEUE, loading or
// storing the binary through `cache` (on PoCL with its kernel cache on, a
// marker, and a build that PoCL's cache answers): once, or, where kitec split the
// program into `parts` (more than 1: runtime-cl/device/parts.cl), once per
// part from part_source's text with -DKITE_PART=k (several at a time, in
// processes of their own: build_part_child; on NVIDIA's only while its
// driver's cache is on, which hands what a process built to the others). On a build
// failure prints the build log to stderr and throws RunError.
// `notice`: say on stderr, before a build (the cache had no binary), that
// one is under way, since it takes seconds.
DeviceProgram build_program(const Device &device, const std::string &opencl,
                            const WorkerShape &shape, const Cache &cache, bool notice = false,
                            int parts = 1, int main_part = 0);

}  // namespace kite::host
