#include "host/device.h"

#include <fmt/format.h>
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "host/launch.h"

extern char **environ;

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

// Persistent workers want a core each, for the whole run. PoCL's CPU
// device runs each work-group on a thread of its own but leaves the threads
// where Linux puts them, and Linux often starts two of them on one core and
// moves one only milliseconds later: on the 2-core EPYC, two workers ran
// N-queens(12) in 15 to 26 ms from run to run (sequential C++: 27), one in
// 30. Pinned (PoCL's POCL_AFFINITY: thread i on CPU i), every run takes
// 14.7 ms. Set before PoCL starts its threads (its first platform query),
// and only where the process may run on every online CPU, since PoCL pins
// by number; a user's own POCL_AFFINITY, 0 included, wins.
void pin_pocl_threads() {
  if (std::getenv("POCL_AFFINITY")) return;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online <= 0 || online > CPU_SETSIZE) return;
  for (long cpu = 0; cpu < online; cpu++)
    if (!CPU_ISSET(cpu, &allowed)) return;
  setenv("POCL_AFFINITY", "1", 0);
}

}  // namespace

const char *Device::type_name() const {
  if (is_gpu()) return "gpu";
  if (is_cpu()) return "cpu";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

std::vector<Device> list_devices() {
  pin_pocl_threads();
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

std::string part_source(const std::string &opencl, int part) {
  static const std::string guard = "#if KITE_PART < 0";
  std::string out;
  out.reserve(opencl.size());
  int skip = 0;  // inside another part's code: the #if lines open
  for (size_t at = 0; at < opencl.size();) {
    size_t end = opencl.find('\n', at);
    end = end == std::string::npos ? opencl.size() : end + 1;
    std::string_view line(opencl.data() + at, end - at);
    at = end;
    const bool opens = line.rfind("#if", 0) == 0, closes = line.rfind("#endif", 0) == 0;
    if (skip > 0) {
      skip += opens ? 1 : closes ? -1 : 0;
      continue;
    }
    if (line.rfind(guard, 0) == 0) {
      // "#if KITE_PART < 0 || KITE_PART == a || KITE_PART == b ...": kept
      // (with its #if) when `part` is among a, b, ... (none: in no part)
      bool ours = false;
      for (size_t p = line.find("KITE_PART == "); p != std::string_view::npos;
           p = line.find("KITE_PART == ", p + 1)) {
        int n = -1;
        std::from_chars(line.data() + p + 13, line.data() + line.size(), n);
        ours = ours || n == part;
      }
      if (!ours) {
        skip = 1;
        continue;
      }
    }
    out += line;
  }
  return out;
}

std::vector<std::string> &start_environment() {
  static std::vector<std::string> env;
  return env;
}

void keep_start_environment() {
  for (char **e = environ; *e; ++e) start_environment().push_back(*e);
}

namespace {

// The registers of kite_uber that NVIDIA's build log (-cl-nv-verbose)
// names; empty when it names none. The program's map kernels have their
// own lines: kite_uber's follow its name.
std::string registers_in(const std::string &log) {
  static const std::regex used("Used ([0-9]+) registers");
  size_t at = log.find("'kite_uber'");
  std::string rest = log.substr(at == std::string::npos ? 0 : at);
  std::smatch m;
  return std::regex_search(rest, m, used) ? m[1].str() : "";
}

// A built part: the program (in this process), its binary and build log.
struct Built {
  Program program;
  std::string binary, log;
};

// A context on the device alone.
Context context_for(const Device &device) {
  cl_int err = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   reinterpret_cast<cl_context_properties>(device.platform), 0};
  Context context(clCreateContext(props, 1, &device.id, nullptr, nullptr, &err));
  check_cl(err, "cannot create an OpenCL context");
  return context;
}

// Whether the device's driver keeps built kernels in a cache of its own,
// which kite-run's then need not: PoCL's kernel cache (on unless
// POCL_KERNEL_CACHE=0) finds a program built again from the same source in
// a few tens of ms, and keeps the compile of each kernel for its launches'
// work-group sizes. Asking PoCL for a program's binary, for kite-run's
// cache, costs as much as building it (the 10-task synthetic program:
// 0.66 s to build, 0.98 s more for the binary), so there kite-run caches
// only a marker (kPoclMarker) and builds from source again.
bool driver_caches_kernels(const Device &device) {
  if (!device.is_pocl()) return false;
  const char *cache = std::getenv("POCL_KERNEL_CACHE");
  return !(cache && std::string(cache) == "0");
}

// What kite-run's cache entry (`<key>.bin`) and a build process's result
// hold, instead of a binary, for a program that PoCL's cache keeps.
constexpr std::string_view kPoclMarker = "built by PoCL, kept in its kernel cache\n";

// One program built from source with `options`: with its binary when it
// built (none where the driver caches kernels itself), else with no program
// (its log says why).
Built compile(cl_context context, const Device &device, const std::string &opencl,
              const std::string &options) {
  cl_int err = CL_SUCCESS;
  const char *text = opencl.c_str();
  size_t size = opencl.size();
  Built b;
  b.program = Program(clCreateProgramWithSource(context, 1, &text, &size, &err));
  check_cl(err, "cannot create the OpenCL program");
  err = clBuildProgram(b.program.get(), 1, &device.id, options.c_str(), nullptr, nullptr);
  b.log = build_log(b.program.get(), device.id);
  if (err == CL_BUILD_PROGRAM_FAILURE) {
    b.program = Program();
    return b;
  }
  check_cl(err, "cannot build the OpenCL program");
  if (!driver_caches_kernels(device)) b.binary = program_binary(b.program.get());
  return b;
}

// A program from a cache entry or a build process's result: a binary, or
// the marker of a part that PoCL's cache keeps (built again from `source`,
// which finds it there). Empty where neither loads.
Program from_entry(cl_context context, const Device &device, const std::string &entry,
                   const std::string &source, const std::string &options) {
  if (entry != kPoclMarker) return program_from_binary(context, device, entry, options);
  if (!driver_caches_kernels(device)) return {};  // its cache is off now: build it anew
  return compile(context, device, source, options).program;
}

// The build log of a program that did not build, on stderr, and the error.
RunError did_not_build(const std::string &log) {
  fmt::print(stderr, "kite-run: OpenCL build log:\n{}\n", log);
  return RunError("the OpenCL program did not build");
}

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw RunError(fmt::format("cannot write {}", path));
}

// Builds the parts `missing` (their `options`) in child processes, this
// program again with --build-part, `jobs` at a time: device compilers
// build side by side in separate processes (NVIDIA's, in threads of one
// process, one at a time). Their binaries and logs go to `built`.
// A part whose child failed otherwise than in its build is left out of
// `built` (the caller builds it here), and said so on stderr. `load(k)` is
// called as soon as the process that built part k ends, while the others
// still build: loading a binary is a build of its own for some drivers
// (NVIDIA's, from its cache).
void build_in_children(const Device &device, const std::vector<std::string> &sources,
                       const std::vector<std::string> &options, const std::vector<size_t> &missing,
                       size_t jobs, uint32_t lanes, std::vector<Built> &built,
                       const std::function<void(size_t)> &load) {
  char pattern[] = "/tmp/kite-build-XXXXXX";
  const char *tmp = std::getenv("TMPDIR");
  std::string dir_pattern = tmp && *tmp ? std::string(tmp) + "/kite-build-XXXXXX" : pattern;
  std::vector<char> dir_name(dir_pattern.begin(), dir_pattern.end());
  dir_name.push_back('\0');
  if (!mkdtemp(dir_name.data())) return;
  const std::string dir = dir_name.data();
  struct Cleanup {
    std::string dir;
    ~Cleanup() { std::filesystem::remove_all(dir); }
  } cleanup{dir};
  for (size_t k : missing) write_file(fmt::format("{}/source.{}", dir, k), sources[k]);
  // The device by its platform's and its own name (another process may list
  // the platforms in another order, or not all of them).
  write_file(dir + "/device", device.platform_name + "\n" + device.name);
  for (size_t k : missing) write_file(fmt::format("{}/options.{}", dir, k), options[k]);
  write_file(dir + "/lanes", std::to_string(lanes));

  // What each process builds: on a CPU as many processes as jobs, each
  // given parts to build one after the other, the largest first to the
  // least loaded (PoCL loads its built-in library once a process); on a
  // GPU a process a part, since the driver loads what a process built as
  // soon as it ends, while the others still build.
  std::vector<std::vector<size_t>> groups;
  if (device.is_cpu()) {
    std::vector<size_t> order = missing;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return sources[a].size() > sources[b].size(); });
    groups.resize(std::min(jobs, order.size()));
    std::vector<size_t> bytes(groups.size(), 0);
    for (size_t k : order) {
      size_t g = std::min_element(bytes.begin(), bytes.end()) - bytes.begin();
      groups[g].push_back(k);
      bytes[g] += sources[k].size();
    }
  } else {
    for (size_t k : missing) groups.push_back({k});
  }

  std::map<pid_t, size_t> running;  // a process's group
  size_t next = 0;
  auto start = [&](size_t g) {
    std::vector<std::string> args = {"kite-run", "--build-part", dir};
    for (size_t k : groups[g]) args.push_back(std::to_string(k));
    std::vector<char *> argv;
    for (std::string &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    // Without this process's open files: a driver's handles on the device,
    // inherited, keep NVIDIA's platform from starting in the child.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    std::vector<char *> env;
    for (std::string &e : start_environment()) env.push_back(e.data());
    env.push_back(nullptr);
    int err = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    if (err != 0) return false;
    running[pid] = g;
    return true;
  };
  while (next < groups.size() || !running.empty()) {
    while (next < groups.size() && running.size() < jobs) {
      if (!start(next)) {
        if (running.empty()) return;  // no process starts: all are built here
        jobs = running.size();        // as many as could be started
        break;
      }
      ++next;
    }
    int wstatus = 0;
    pid_t pid = waitpid(-1, &wstatus, 0);
    if (pid < 0) break;
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const size_t g = it->second;
    running.erase(it);
    // What the child wrote decides (a sanitizer's leak report at its exit
    // changes its status, not its binary).
    for (size_t k : groups[g]) {
      built[k].log = read_file(fmt::format("{}/{}.log", dir, k));
      built[k].binary = read_file(fmt::format("{}/{}.bin", dir, k));
      if (!built[k].binary.empty()) load(k);
    }
  }
  for (size_t k : missing) {
    Built &b = built[k];
    if (!b.binary.empty()) continue;
    if (std::filesystem::exists(fmt::format("{}/{}.failed", dir, k))) throw did_not_build(b.log);
    std::string why = read_file(fmt::format("{}/{}.error", dir, k));  // built here instead
    fmt::print(stderr, "kite-run: note: building part {} in this process: {}\n", k,
               why.empty() ? "its build process failed" : why);
  }
}

// Bytes of memory the system has available (MemAvailable), 0 if unknown.
uint64_t memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  uint64_t kib = 0;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

// How many of `parts` parts to build at once, each in a process of its own
// (build_in_children); 1: one after the other in this process. Processes
// are faster wherever the device compiler runs on several cores: PoCL
// (2 cores: the 40-task synthetic program's 3 parts in 4.7 s, 6.2 s in
// threads of one process) and NVIDIA's (H100, 16 cores: the 160-task
// program's 12 parts in 8.6 s, 54.5 s one after the other; docs/design.md,
// "Build time"). NVIDIA's binary is PTX, which the driver compiles again
// when this process loads it, unless its cache (CUDA_CACHE_*) keeps what
// the child compiled: with that cache off, one after the other. A build
// process of NVIDIA's takes about 400 MB: no more of them than the free
// memory holds twice over.
size_t build_jobs(const Device &device, size_t parts) {
  size_t jobs = std::min<size_t>(parts, std::max(1u, std::thread::hardware_concurrency()));
  if (device.is_cpu() || jobs <= 1) return jobs;
  const char *no_cache = std::getenv("CUDA_CACHE_DISABLE");
  if (device.is_nvidia() && no_cache && std::string(no_cache) == "1") return 1;
  constexpr uint64_t kBuildProcessBytes = 400ull << 20;
  if (uint64_t available = memory_available(); available > 0)
    jobs = std::min<size_t>(jobs, std::max<uint64_t>(1, available / (2 * kBuildProcessBytes)));
  return jobs;
}

}  // namespace

int build_part_child(const std::string &dir, const std::vector<std::string> &parts) {
  // PoCL compiles a kernel at its first launch on a thread of its own, and
  // pinned (pin_pocl_threads) that is CPU 0's in every build process, so
  // that the processes took turns on one core (2-core EPYC: two parts side
  // by side in 4.5 s each, 2.6 s alone). A build runs no workers.
  setenv("POCL_AFFINITY", "0", 1);
  // One context for the process's parts: PoCL loads its library of
  // built-in functions once a process (0.44 s on the 2-core EPYC).
  std::vector<Device> devices;
  const Device *found = nullptr;
  Context context;
  try {
    devices = list_devices();
    const std::string wanted = read_file(dir + "/device");
    std::string seen;
    for (const Device &d : devices) {
      if (d.platform_name + "\n" + d.name == wanted && !found) found = &d;
      seen += fmt::format("{}{} ({})", seen.empty() ? "" : ", ", d.name, d.platform_name);
    }
    if (!found)
      throw RunError(fmt::format("a build process does not find the device (it finds {})",
                                 seen.empty() ? "none" : seen));
    context = context_for(*found);
  } catch (const std::exception &e) {
    for (const std::string &part : parts) std::ofstream(dir + "/" + part + ".error") << e.what();
    return 2;
  }
  int status = 0;
  for (const std::string &part : parts) {
    try {
      const std::string options = read_file(dir + "/options." + part);
      const std::string opencl = read_file(dir + "/source." + part);
      Built b = compile(context.get(), *found, opencl, options);
      write_file(dir + "/" + part + ".log", b.log);
      if (!b.program) {
        write_file(dir + "/" + part + ".failed", "");
        status = std::max(status, 1);
        continue;
      }
      write_file(dir + "/" + part + ".bin", b.binary.empty() ? std::string(kPoclMarker) : b.binary);
      if (driver_caches_kernels(*found)) {
        // PoCL compiles a kernel again at its first launch, for the launch's
        // work-group size, and keeps that in its kernel cache, where
        // kite-run's build of the same source finds it: launched here once,
        // the part's first launch in kite-run need not compile it
        // (docs/design.md, "Build time"). Without that cache the compile
        // would only be done twice.
        DeviceProgram p;
        clRetainContext(context.get());
        p.context = Context(context.get());
        p.programs.push_back(std::move(b.program));
        p.shape.lanes = static_cast<uint32_t>(std::stoul(read_file(dir + "/lanes")));
        warm_up(*found, p);
      }
    } catch (const std::exception &e) {
      std::ofstream(dir + "/" + part + ".error") << e.what();
      status = 2;
    }
  }
  return status;
}

DeviceProgram build_program(const Device &device, const std::string &opencl,
                            const WorkerShape &shape, const Cache &cache, bool notice, int parts,
                            int main_part) {
  DeviceProgram p;
  p.shape = shape;
  p.options = device.is_cpu() ? "-cl-std=CL1.2 -w -DKITE_CPU=1" : "-cl-std=CL1.2 -w -DKITE_GPU=1";
  // NVIDIA's mem_fence orders memory only within a work-group; the scheduler
  // needs a device-wide fence there (runtime-cl/device/config.cl, KITE_FENCE).
  // -cl-nv-verbose: the build log names the registers per work-item.
  if (device.is_nvidia()) p.options += " -DKITE_NVIDIA=1 -cl-nv-verbose";
  if (shape.max_registers > 0)
    p.options += fmt::format(" -cl-nv-maxrregcount={}", shape.max_registers);
  p.options += fmt::format(" -DKITE_RECORD_STRIDE={}", shape.record_stride);
  if (shape.map_kernels_min > 0)
    p.options += fmt::format(" -DKITE_OFFLOAD_MIN={}", shape.map_kernels_min);
  if (shape.fast != 1) p.options += fmt::format(" -DKITE_FAST={}", shape.fast);
  if (shape.keep_rule) p.options += " -DKITE_KEEP_RULE=1";
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
  p.context = context_for(device);
  p.queue = Queue(clCreateCommandQueue(p.context.get(), device.id, 0, &err));
  check_cl(err, "cannot create an OpenCL command queue");

  // Each part: from the cache, else built (below, several at a time).
  const size_t count = static_cast<size_t>(std::max(parts, 1));
  p.programs.resize(count);
  p.kernels.resize(count);
  // A part's source is the program's without the other parts' code, and
  // keys its cache entry: an edit that leaves the program's blocks, sites
  // and strings where they were rebuilds only the part it touched.
  std::vector<std::string> sources(count), options(count, p.options);
  std::vector<uint64_t> keys(count, p.cache_key);
  std::vector<size_t> missing;
  for (size_t k = 0; k < count; ++k) {
    if (count > 1) {
      sources[k] = part_source(opencl, static_cast<int>(k));
      options[k] += fmt::format(" -DKITE_PART={}", k);
      keys[k] = fnv1a({"kite-run program cache 1", sources[k], options[k], device.name,
                       device.version, device.driver_version});
    } else {
      sources[k] = opencl;
    }
    if (auto entry = cache.load(keys[k], ".bin"))
      p.programs[k] = from_entry(p.context.get(), device, *entry, sources[k], options[k]);
    if (!p.programs[k]) missing.push_back(k);
  }
  p.from_cache = missing.empty();
  p.parts_built = missing.size();
  if (!missing.empty()) {
    if (notice) {
      std::string what = count > 1
                             ? fmt::format("{} of the program's {} kernels", missing.size(), count)
                             : "the kernel";
      fmt::print(stderr, "kite-run: building {} for {} ({})\n", what, device.name,
                 cache.enabled() ? "first run of this program; later runs use the cache"
                                 : "--no-cache: the kernel is built on every run");
      std::fflush(stderr);
    }
    std::vector<Built> built(count);
    const size_t jobs = build_jobs(device, missing.size());
    auto load = [&](size_t k) {
      built[k].program =
          from_entry(p.context.get(), device, built[k].binary, sources[k], options[k]);
    };
    if (jobs > 1)
      build_in_children(device, sources, options, missing, jobs, shape.lanes, built, load);
    for (size_t k : missing) {                 // in this process: one part, or what no child built
      if (!built[k].binary.empty()) continue;  // a child's
      built[k] = compile(p.context.get(), device, sources[k], options[k]);
      if (!built[k].program) throw did_not_build(built[k].log);
    }
    for (size_t k : missing) {
      Built &b = built[k];
      if (!b.program) {
        b.program = from_entry(p.context.get(), device, b.binary, sources[k], options[k]);
        if (!b.program) throw RunError("internal: a part's binary does not load");
      }
      p.programs[k] = std::move(b.program);
      if (b.binary.empty() && driver_caches_kernels(device)) b.binary = kPoclMarker;
      if (!b.binary.empty()) cache.store(keys[k], ".bin", b.binary);
      if (std::string registers = registers_in(b.log); !registers.empty())
        cache.store(keys[k], ".registers", registers);
    }
  }
  p.part_sizes.resize(count);
  for (size_t k = 0; k < count; ++k) {
    KernelSize &size = p.part_sizes[k];
    if (auto text = cache.load(keys[k], ".registers"))
      std::from_chars(text->data(), text->data() + text->size(), size.registers);
    p.kernels[k] = Kernel(clCreateKernel(p.programs[k].get(), "kite_uber", &err));
    check_cl(err, "cannot create the kernel kite_uber");
    cl_ulong bytes = 0;
    if (clGetKernelWorkGroupInfo(p.kernels[k].get(), device.id, CL_KERNEL_PRIVATE_MEM_SIZE,
                                 sizeof bytes, &bytes, nullptr) == CL_SUCCESS)
      size.private_bytes = bytes;
    if (clGetKernelWorkGroupInfo(p.kernels[k].get(), device.id, CL_KERNEL_LOCAL_MEM_SIZE,
                                 sizeof bytes, &bytes, nullptr) == CL_SUCCESS)
      size.local_bytes = bytes;
    p.size.registers = std::max(p.size.registers, size.registers);
    p.size.private_bytes = std::max(p.size.private_bytes, size.private_bytes);
    p.size.local_bytes = std::max(p.size.local_bytes, size.local_bytes);
  }
  return p;
}

}  // namespace kite::host
