#include "host/device.h"

#include <fmt/format.h>

#include <charconv>
#include <regex>

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

DeviceProgram build_program(const Device &device, const std::string &opencl,
                            const WorkerShape &shape, const Cache &cache, bool notice) {
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

  cl_int err = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   reinterpret_cast<cl_context_properties>(device.platform), 0};
  p.context = Context(clCreateContext(props, 1, &device.id, nullptr, nullptr, &err));
  check_cl(err, "cannot create an OpenCL context");
  p.queue = Queue(clCreateCommandQueue(p.context.get(), device.id, 0, &err));
  check_cl(err, "cannot create an OpenCL command queue");

  if (auto binary = cache.load(p.cache_key, ".bin")) {
    p.program = program_from_binary(p.context.get(), device, *binary, p.options);
    p.from_cache = static_cast<bool>(p.program);
  }
  if (!p.program) {
    if (notice) {
      fmt::print(stderr, "kite-run: building the kernel for {} ({})\n", device.name,
                 cache.enabled() ? "first run of this program; later runs use the cache"
                                 : "--no-cache: the kernel is built on every run");
      std::fflush(stderr);
    }
    const char *text = opencl.c_str();
    size_t size = opencl.size();
    p.program = Program(clCreateProgramWithSource(p.context.get(), 1, &text, &size, &err));
    check_cl(err, "cannot create the OpenCL program");
    err = clBuildProgram(p.program.get(), 1, &device.id, p.options.c_str(), nullptr, nullptr);
    if (err == CL_BUILD_PROGRAM_FAILURE) {
      fmt::print(stderr, "kite-run: OpenCL build log:\n{}\n",
                 build_log(p.program.get(), device.id));
      throw RunError("the OpenCL program did not build");
    }
    check_cl(err, "cannot build the OpenCL program");
    std::string binary = program_binary(p.program.get());
    if (!binary.empty()) cache.store(p.cache_key, ".bin", binary);
    if (nvidia) {
      std::string log = build_log(p.program.get(), device.id);
      // The program's map kernels have their own lines: kite_uber's follow
      // its name.
      static const std::regex used("Used ([0-9]+) registers");
      size_t at = log.find("'kite_uber'");
      std::string rest = log.substr(at == std::string::npos ? 0 : at);
      std::smatch m;
      if (std::regex_search(rest, m, used)) cache.store(p.cache_key, ".registers", m[1].str());
    }
  }
  if (auto text = cache.load(p.cache_key, ".registers")) {
    std::from_chars(text->data(), text->data() + text->size(), p.size.registers);
  }
  p.kernel = Kernel(clCreateKernel(p.program.get(), "kite_uber", &err));
  check_cl(err, "cannot create the kernel kite_uber");
  cl_ulong bytes = 0;
  if (clGetKernelWorkGroupInfo(p.kernel.get(), device.id, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof bytes,
                               &bytes, nullptr) == CL_SUCCESS)
    p.size.private_bytes = bytes;
  if (clGetKernelWorkGroupInfo(p.kernel.get(), device.id, CL_KERNEL_LOCAL_MEM_SIZE, sizeof bytes,
                               &bytes, nullptr) == CL_SUCCESS)
    p.size.local_bytes = bytes;
  return p;
}

}  // namespace kite::host
