#include "host/device.h"

#include <fmt/format.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <regex>
#include <thread>

namespace kite::host {
namespace {

std::string device_string(cl_device_id id, cl_device_info what) {
  size_t size = 0;
  check_cl(clGetDeviceInfo(id, what, 0, nullptr, &size), "cannot query an OpenCL device");
  std::string s(size, '\0');
  check_cl(clGetDeviceInfo(id, what, size, s.data(), nullptr), "cannot query an OpenCL device");
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

template <typename T>
T device_value(cl_device_id id, cl_device_info what) {
  T value{};
  check_cl(clGetDeviceInfo(id, what, sizeof value, &value, nullptr),
           "cannot query an OpenCL device");
  return value;
}

std::string platform_name(cl_platform_id id) {
  size_t size = 0;
  check_cl(clGetPlatformInfo(id, CL_PLATFORM_NAME, 0, nullptr, &size),
           "cannot query an OpenCL platform");
  std::string s(size, '\0');
  check_cl(clGetPlatformInfo(id, CL_PLATFORM_NAME, size, s.data(), nullptr),
           "cannot query an OpenCL platform");
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
      CL_SUCCESS) {
    return "(no build log)";
  }
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// The program binary for the one device it was built for.
std::string program_binary(cl_program program) {
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) !=
          CL_SUCCESS ||
      size == 0) {
    return {};
  }
  std::string binary(size, '\0');
  unsigned char *data = reinterpret_cast<unsigned char *>(binary.data());
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr) != CL_SUCCESS) {
    return {};
  }
  return binary;
}

// A program from a cached binary, or nothing if the driver refuses it.
Program program_from_binary(cl_context context, const Device &device, const std::string &binary,
                            const std::string &options) {
  const unsigned char *data = reinterpret_cast<const unsigned char *>(binary.data());
  size_t size = binary.size();
  cl_int binary_status = CL_SUCCESS, err = CL_SUCCESS;
  Program program(
      clCreateProgramWithBinary(context, 1, &device.id, &size, &data, &binary_status, &err));
  if (err != CL_SUCCESS || binary_status != CL_SUCCESS) return {};
  if (clBuildProgram(program.get(), 1, &device.id, options.c_str(), nullptr, nullptr) !=
      CL_SUCCESS) {
    return {};
  }
  return program;
}

// The vendors' own queries for the lanes that run in lockstep.
uint32_t simd_width(cl_device_id id) {
  constexpr cl_device_info kWarpSizeNv = 0x4003;         // CL_DEVICE_WARP_SIZE_NV
  constexpr cl_device_info kWavefrontWidthAmd = 0x4043;  // CL_DEVICE_WAVEFRONT_WIDTH_AMD
  cl_uint width = 0;
  if (clGetDeviceInfo(id, kWarpSizeNv, sizeof width, &width, nullptr) == CL_SUCCESS && width > 0)
    return width;
  if (clGetDeviceInfo(id, kWavefrontWidthAmd, sizeof width, &width, nullptr) == CL_SUCCESS &&
      width > 0)
    return width;
  return 0;
}

}  // namespace

const char *Device::type_name() const {
  if (is_gpu()) return "gpu";
  if (is_cpu()) return "cpu";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

std::vector<Device> list_devices() {
  cl_uint num_platforms = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &num_platforms);
  if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found none */ ||
      num_platforms == 0) {
    return {};
  }
  check_cl(err, "cannot list the OpenCL platforms");
  std::vector<cl_platform_id> platforms(num_platforms);
  check_cl(clGetPlatformIDs(num_platforms, platforms.data(), nullptr),
           "cannot list the OpenCL platforms");

  std::vector<Device> devices;
  for (cl_platform_id platform : platforms) {
    cl_uint num_devices = 0;
    err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &num_devices);
    if (err == CL_DEVICE_NOT_FOUND || num_devices == 0) continue;
    check_cl(err, "cannot list the OpenCL devices");
    std::vector<cl_device_id> ids(num_devices);
    check_cl(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, num_devices, ids.data(), nullptr),
             "cannot list the OpenCL devices");
    std::string pname = platform_name(platform);
    for (cl_device_id id : ids) {
      Device d;
      d.index = static_cast<int>(devices.size());
      d.platform = platform;
      d.id = id;
      d.platform_name = pname;
      d.name = device_string(id, CL_DEVICE_NAME);
      d.version = device_string(id, CL_DEVICE_VERSION);
      d.driver_version = device_string(id, CL_DRIVER_VERSION);
      d.type = device_value<cl_device_type>(id, CL_DEVICE_TYPE);
      d.compute_units = device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS);
      d.global_mem = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
      d.max_alloc = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
      d.local_mem = device_value<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
      d.max_group = device_value<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
      d.simd_width = simd_width(id);
      d.cache_line = device_value<cl_uint>(id, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE);
      devices.push_back(std::move(d));
    }
  }
  return devices;
}

void print_devices(const std::vector<Device> &devices, std::FILE *out) {
  for (const Device &d : devices) {
    fmt::print(out, "{}  {} ({}), {}, {} compute units, {:.1f} GiB global memory\n", d.index,
               d.name, d.platform_name, d.type_name(), d.compute_units,
               static_cast<double>(d.global_mem) / (1 << 30));
  }
}

const Device &select_device(const std::vector<Device> &devices, const std::string &spec) {
  if (devices.empty()) throw RunError("no OpenCL devices found (is an OpenCL driver installed?)");
  if (spec.empty()) {
    for (const Device &d : devices) {
      if (d.is_cpu()) return d;
    }
    return devices.front();
  }
  if (spec == "cpu" || spec == "gpu") {
    for (const Device &d : devices) {
      if (spec == d.type_name()) return d;
    }
    throw RunError(fmt::format("no {} OpenCL device found (see kite-run --list-devices)", spec));
  }
  size_t index = 0;
  auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), index);
  if (ec != std::errc() || end != spec.data() + spec.size()) {
    throw RunError(fmt::format("--device takes cpu, gpu or a device number, not '{}'", spec));
  }
  if (index >= devices.size()) {
    throw RunError(
        fmt::format("there is no OpenCL device {} (see kite-run --list-devices)", index));
  }
  return devices[index];
}

namespace {

// One program built from source with `options`, its binary (and on NVIDIA
// its kernel's registers) stored in the cache under `key`. Throws RunError,
// with the build log on stderr, when it does not build.
Program build_part(cl_context context, const Device &device, const std::string &opencl,
                   const std::string &options, uint64_t key, const Cache &cache) {
  cl_int err = CL_SUCCESS;
  const char *text = opencl.c_str();
  size_t size = opencl.size();
  Program program(clCreateProgramWithSource(context, 1, &text, &size, &err));
  check_cl(err, "cannot create the OpenCL program");
  err = clBuildProgram(program.get(), 1, &device.id, options.c_str(), nullptr, nullptr);
  if (err == CL_BUILD_PROGRAM_FAILURE) {
    fmt::print(stderr, "kite-run: OpenCL build log:\n{}\n", build_log(program.get(), device.id));
    throw RunError("the OpenCL program did not build");
  }
  check_cl(err, "cannot build the OpenCL program");
  std::string binary = program_binary(program.get());
  if (!binary.empty()) cache.store(key, ".bin", binary);
  if (device.platform_name.find("NVIDIA") != std::string::npos) {
    std::string log = build_log(program.get(), device.id);
    // The program's map kernels have their own lines: kite_uber's follow
    // its name.
    static const std::regex used("Used ([0-9]+) registers");
    size_t at = log.find("'kite_uber'");
    std::string rest = log.substr(at == std::string::npos ? 0 : at);
    std::smatch m;
    if (std::regex_search(rest, m, used)) cache.store(key, ".registers", m[1].str());
  }
  return program;
}

}  // namespace

DeviceProgram build_program(const Device &device, const std::string &opencl,
                            const WorkerShape &shape, const Cache &cache, bool notice, int parts,
                            int main_part) {
  DeviceProgram p;
  p.shape = shape;
  p.options = device.is_cpu() ? "-cl-std=CL1.2 -w -DKITE_CPU=1" : "-cl-std=CL1.2 -w -DKITE_GPU=1";
  // NVIDIA's mem_fence orders memory only within a work-group; the scheduler
  // needs a device-wide fence there (runtime-cl/device/config.cl, KITE_FENCE).
  const bool nvidia = device.platform_name.find("NVIDIA") != std::string::npos;
  // -cl-nv-verbose: the build log names the registers per work-item.
  if (nvidia) p.options += " -DKITE_NVIDIA=1 -cl-nv-verbose";
  if (shape.max_registers > 0)
    p.options += fmt::format(" -cl-nv-maxrregcount={}", shape.max_registers);
  p.options += fmt::format(" -DKITE_RECORD_STRIDE={}", shape.record_stride);
  if (shape.map_kernels_min > 0)
    p.options += fmt::format(" -DKITE_OFFLOAD_MIN={}", shape.map_kernels_min);
  if (shape.fast != 1) p.options += fmt::format(" -DKITE_FAST={}", shape.fast);
  if (shape.lanes > 1) {
    p.options +=
        fmt::format(" -DKITE_LANES={} -DKITE_LOCAL_QUEUE={}", shape.lanes, shape.local_queue);
    if (shape.lane_blocks > 1)
      p.options += fmt::format(" -DKITE_LANE_BLOCKS={}", shape.lane_blocks);
    if (shape.hand_blocks > 1)
      p.options += fmt::format(" -DKITE_HAND_BLOCKS={}", shape.hand_blocks);
  }
  p.cache_key = fnv1a({"kite-run program cache 1", opencl, p.options, device.name, device.version,
                       device.driver_version});
  p.main_part = parts > 1 ? main_part : 0;

  cl_int err = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   reinterpret_cast<cl_context_properties>(device.platform), 0};
  p.context = Context(clCreateContext(props, 1, &device.id, nullptr, nullptr, &err));
  check_cl(err, "cannot create an OpenCL context");
  p.queue = Queue(clCreateCommandQueue(p.context.get(), device.id, 0, &err));
  check_cl(err, "cannot create an OpenCL command queue");

  // Each part: from the cache, else built (below, several at a time).
  const size_t count = static_cast<size_t>(std::max(parts, 1));
  p.programs.resize(count);
  p.kernels.resize(count);
  std::vector<std::string> options(count, p.options);
  std::vector<uint64_t> keys(count, p.cache_key);
  std::vector<size_t> missing;
  for (size_t k = 0; k < count; ++k) {
    if (count > 1) {
      options[k] += fmt::format(" -DKITE_PART={}", k);
      keys[k] = fnv1a({"kite-run program cache 1", opencl, options[k], device.name,
                       device.version, device.driver_version});
    }
    if (auto binary = cache.load(keys[k], ".bin"))
      p.programs[k] = program_from_binary(p.context.get(), device, *binary, options[k]);
    if (!p.programs[k]) missing.push_back(k);
  }
  p.from_cache = missing.empty();
  if (!missing.empty()) {
    if (notice) {
      std::string what = count > 1 ? fmt::format("{} of the program's {} kernels", missing.size(),
                                                 count)
                                   : "the kernel";
      fmt::print(stderr, "kite-run: building {} for {} ({})\n", what, device.name,
                 cache.enabled() ? "first run of this program; later runs use the cache"
                                 : "--no-cache: the kernel is built on every run");
      std::fflush(stderr);
    }
    auto start = std::chrono::steady_clock::now();
    // One build per thread, as many at once as the host has cores: device
    // compilers build separate programs side by side.
    std::vector<std::string> failures(count);
    std::atomic<size_t> next{0};
    auto builder = [&] {
      for (size_t i; (i = next.fetch_add(1)) < missing.size();) {
        size_t k = missing[i];
        try {
          p.programs[k] = build_part(p.context.get(), device, opencl, options[k], keys[k], cache);
        } catch (const RunError &e) {
          failures[k] = e.what();
        }
      }
    };
    const size_t threads =
        std::min<size_t>(missing.size(), std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(builder);
    builder();
    for (std::thread &t : pool) t.join();
    for (const std::string &failure : failures)
      if (!failure.empty()) throw RunError(failure);
    p.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count();
  }
  for (size_t k = 0; k < count; ++k) {
    if (auto text = cache.load(keys[k], ".registers")) {
      uint32_t registers = 0;
      std::from_chars(text->data(), text->data() + text->size(), registers);
      p.size.registers = std::max(p.size.registers, registers);
    }
    p.kernels[k] = Kernel(clCreateKernel(p.programs[k].get(), "kite_uber", &err));
    check_cl(err, "cannot create the kernel kite_uber");
    cl_ulong bytes = 0;
    if (clGetKernelWorkGroupInfo(p.kernels[k].get(), device.id, CL_KERNEL_PRIVATE_MEM_SIZE,
                                 sizeof bytes, &bytes, nullptr) == CL_SUCCESS)
      p.size.private_bytes = std::max<uint64_t>(p.size.private_bytes, bytes);
    if (clGetKernelWorkGroupInfo(p.kernels[k].get(), device.id, CL_KERNEL_LOCAL_MEM_SIZE,
                                 sizeof bytes, &bytes, nullptr) == CL_SUCCESS)
      p.size.local_bytes = std::max<uint64_t>(p.size.local_bytes, bytes);
  }
  return p;
}

}  // namespace kite::host
