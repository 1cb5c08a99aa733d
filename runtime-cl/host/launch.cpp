#include "host/launch.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <charconv>
#include <chrono>

#include "host/residency.h"

namespace kite::host {
namespace {

bool is_out_of_memory(cl_int err) {
  return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
         err == CL_INVALID_BUFFER_SIZE || err == CL_OUT_OF_HOST_MEMORY;
}

double mib(size_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

RunError out_of_memory(size_t bytes, const char *what, const char *option) {
  return RunError(fmt::format("cannot allocate {:.0f} MiB of device memory for {} (try {})",
                              mib(bytes), what, option));
}

void set_arg(cl_kernel kernel, cl_uint index, const Buffer &buffer) {
  cl_mem mem = buffer.get();
  check_cl(clSetKernelArg(kernel, index, sizeof mem, &mem),
           fmt::format("cannot set argument {} of kite_uber", index));
}

template <size_t N>
void bind(cl_kernel kernel, const std::array<const Buffer *, N> &buffers) {
  for (cl_uint i = 0; i < buffers.size(); ++i) set_arg(kernel, i, *buffers[i]);
}

void enqueue_grid(cl_command_queue queue, cl_kernel kernel, size_t workers, size_t lanes) {
  size_t global = workers * lanes, local = lanes;
  check_cl(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr),
           "cannot launch kite_uber");
  check_cl(clFinish(queue), "kite_uber failed");
}

}  // namespace

struct DeviceRun::LazyZeroMemory {
  void *data = nullptr;
  size_t bytes = 0;
  explicit LazyZeroMemory(size_t n) : bytes(n) {
    void *p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    data = p == MAP_FAILED ? nullptr : p;
  }
  ~LazyZeroMemory() {
    if (data) munmap(data, bytes);
  }
};

DeviceRun::DeviceRun(const Device &device, DeviceProgram &program, const RunShape &shape,
                     const MainArgs &args)
    : device_(device), program_(program), shape_(shape) {
  if (args.heap.size() > shape.heap_longs) {
    throw RunError(fmt::format(
        "main's array arguments need {} bytes of device heap, which holds {} (try --heap)",
        args.heap.size() * sizeof(int64_t), shape.heap_longs * sizeof(int64_t)));
  }
  size_t pool_bytes = size_t(shape.num_records) * shape.record_words * sizeof(int64_t);
  pool_ = create_zeroed(pool_bytes, "the record pool", "--records");
  deques_ = create_zeroed(size_t(shape.workers) * shape.deque_cap * sizeof(int64_t),
                          "the task deques", "--deque or --workers");
  deque_ctl_ = create(size_t(shape.workers) * KITE_DEQUE_CTL_STRIDE * sizeof(int32_t),
                      "the deque control words", "--workers");
  printbuf_ = create_zeroed(size_t(shape.print_cap) * sizeof(int64_t), "the print buffer",
                            "--print-buffer");
  ctl_ = create_control_block();
  ctl64_ = create(KITE_CTL64_LONGS * sizeof(int64_t), "the control block", "--records");
  stats_ = create_zeroed(size_t(shape.workers) * shape.stats_stride() * sizeof(int64_t),
                         "the statistics", "--workers");
  params_ = create(KITE_PARAM_COUNT * sizeof(int32_t), "the parameters", "--records");
  const size_t heap_bytes = shape.heap_longs * sizeof(int64_t);
  heap_ = create_zeroed(heap_bytes, "the device heap", "--heap");
  // A program in parts parks work for other parts (device/parts.cl): at
  // most an entry per ready block, two per record at most, or a finished
  // task's record.
  parked_cap_ = program.parts() > 1 ? 2 * size_t(shape.num_records) + 1024 : 1;
  parked_ = create(parked_cap_ * 2 * sizeof(int64_t), "the parked entries", "--records");

  cl_command_queue q = program_.queue.get();
  std::vector<int32_t> deque_ctl(size_t(shape.workers) * KITE_DEQUE_CTL_STRIDE, 0);
  for (size_t v = 0; v < shape.workers; ++v) {
    int32_t *ctl_words = &deque_ctl[v * KITE_DEQUE_CTL_STRIDE];
    const auto start = static_cast<int32_t>(shape.deque_start);
    ctl_words[KITE_DEQUE_TOP] = ctl_words[KITE_DEQUE_BOTTOM] = start;
  }
  Ctl ctl{};
  ctl[KITE_CTL_PRINT_LIMIT] = static_cast<int32_t>(shape.print_limit);
  ctl[KITE_CTL_ERROR_SITE] = -1;
  Ctl64 ctl64{};
  std::copy(args.bits.begin(), args.bits.end(), ctl64.begin() + KITE_CTL64_ARGS);
  ctl64[KITE_CTL64_HEAP_SIZE] = static_cast<int64_t>(shape.heap_longs);
  ctl64[KITE_CTL64_HEAP_BUMP] = static_cast<int64_t>(args.heap.size());
  std::array<int32_t, KITE_PARAM_COUNT> params{};
  params[KITE_PARAM_NUM_WORKERS] = static_cast<int32_t>(shape.workers);
  params[KITE_PARAM_NUM_RECORDS] = static_cast<int32_t>(shape.num_records);
  params[KITE_PARAM_DEQUE_CAP] = static_cast<int32_t>(shape.deque_cap);
  params[KITE_PARAM_PRINT_CAP] = static_cast<int32_t>(shape.print_cap);
  params[KITE_PARAM_MODE] = KITE_MODE_RUN;
  params[KITE_PARAM_TRACE_CAP] = static_cast<int32_t>(shape.trace_cap);
  params[KITE_PARAM_SIMD_STATS] = shape.simd_stats ? 1 : 0;
  params[KITE_PARAM_DEQUE_START] = static_cast<int32_t>(shape.deque_start);
  params[KITE_PARAM_PARKED_CAP] = static_cast<int32_t>(parked_cap_);
  auto write = [q](const Buffer &b, size_t bytes, const void *data) {
    check_cl(clEnqueueWriteBuffer(q, b.get(), CL_TRUE, 0, bytes, data, 0, nullptr, nullptr),
             "cannot write device memory");
  };
  write(deque_ctl_, deque_ctl.size() * sizeof(int32_t), deque_ctl.data());
  write(ctl_, sizeof ctl, ctl.data());
  write(ctl64_, sizeof ctl64, ctl64.data());
  write(params_, sizeof params, params.data());
  write(heap_, args.heap.size() * sizeof(int64_t), args.heap.data());  // zeros, then the arrays
  // Drivers may allocate lazily: an allocation failure can surface here.
  cl_int err = clFinish(q);
  if (is_out_of_memory(err)) {
    throw RunError(fmt::format(
        "cannot allocate {:.0f} MiB of device memory for the record pool, deques and heap (try "
        "--records, --deque, --workers or --heap)",
        mib(pool_bytes + size_t(shape.workers) * shape.deque_cap * sizeof(int64_t) + heap_bytes)));
  }
  check_cl(err, "cannot initialise device memory");
  for (Kernel &kernel : program_.kernels)
    bind<10>(kernel.get(), {&pool_, &deques_, &deque_ctl_, &printbuf_, &ctl_, &ctl64_, &stats_,
                            &params_, &heap_, &parked_});
  part_ = static_cast<size_t>(program_.main_part);
}

DeviceRun::~DeviceRun() = default;

// ctl: on a CPU device in host memory that the device uses in place, so that
// request_stop can write it during a launch; elsewhere a device buffer, with a
// second queue for that write.
// A buffer the device uses in place in lazily mapped, zero-filled host
// memory (*data); a null buffer if either cannot be had.
Buffer DeviceRun::create_in_host_memory(size_t bytes, void **data) {
  auto memory = std::make_unique<LazyZeroMemory>(bytes);
  if (!memory->data) return Buffer();
  cl_int err = CL_SUCCESS;
  Buffer b(clCreateBuffer(program_.context.get(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes,
                          memory->data, &err));
  if (err != CL_SUCCESS) return Buffer();
  *data = memory->data;
  host_memory_.push_back(std::move(memory));
  return b;
}

Buffer DeviceRun::create_control_block() {
  const size_t bytes = KITE_CTL_INTS * sizeof(int32_t);
  if (device_.is_cpu()) {
    void *data = nullptr;
    Buffer b = create_in_host_memory(bytes, &data);
    if (b.get()) {
      host_ctl_ = static_cast<volatile int32_t *>(data);
      return b;
    }
  }
  cl_int err = CL_SUCCESS;
  stop_queue_ = Queue(clCreateCommandQueue(program_.context.get(), device_.id, 0, &err));
  check_cl(err, "cannot create a second command queue");
  return create(bytes, "the control block", "--records");
}

void DeviceRun::request_stop() {
  if (host_ctl_) {
    __atomic_store_n(&host_ctl_[KITE_CTL_STOP], 1, __ATOMIC_SEQ_CST);
    return;
  }
  // Not waited for: if the driver holds the write back until the launch
  // ends, the caller's own deadline still runs.
  static const int32_t one = 1;
  if (clEnqueueWriteBuffer(stop_queue_.get(), ctl_.get(), CL_FALSE, KITE_CTL_STOP * sizeof(int32_t),
                           sizeof one, &one, 0, nullptr, nullptr) == CL_SUCCESS) {
    clFlush(stop_queue_.get());
  }
}

// A zero-filled buffer: on a CPU device in lazily mapped host memory, else
// cleared on the device.
Buffer DeviceRun::create_zeroed(size_t bytes, const char *what, const char *option) {
  bytes = std::max<size_t>(bytes, 8);
  if (device_.is_cpu()) {
    void *data = nullptr;
    Buffer b = create_in_host_memory(bytes, &data);
    if (b.get()) return b;
  }
  Buffer b = create(bytes, what, option);
  // With the largest pattern OpenCL allows: NVIDIA's driver fails (and loses
  // the context) on a fill that reaches pattern element 2^31, 16 GiB of longs.
  static const unsigned char zeros[128] = {};
  const size_t body = bytes / sizeof zeros * sizeof zeros;
  cl_int err = CL_SUCCESS;
  if (body > 0) {
    err = clEnqueueFillBuffer(program_.queue.get(), b.get(), zeros, sizeof zeros, 0, body, 0,
                              nullptr, nullptr);
  }
  if (err == CL_SUCCESS && bytes > body) {  // sizes are whole longs
    err = clEnqueueFillBuffer(program_.queue.get(), b.get(), zeros, sizeof(int64_t), body,
                              bytes - body, 0, nullptr, nullptr);
  }
  if (err == CL_SUCCESS) err = clFinish(program_.queue.get());  // drivers allocate lazily
  if (is_out_of_memory(err)) throw out_of_memory(bytes, what, option);
  check_cl(err, "cannot clear device memory");
  return b;
}

Buffer DeviceRun::create(size_t bytes, const char *what, const char *option) {
  if (bytes > device_.max_alloc) throw out_of_memory(bytes, what, option);
  cl_int err = CL_SUCCESS;
  Buffer b(clCreateBuffer(program_.context.get(), CL_MEM_READ_WRITE, std::max<size_t>(bytes, 8),
                          nullptr, &err));
  if (is_out_of_memory(err)) throw out_of_memory(bytes, what, option);
  check_cl(err, fmt::format("cannot allocate device memory for {}", what));
  return b;
}

void DeviceRun::read(const Buffer &buffer, size_t offset, size_t bytes, void *to,
                     const char *what) {
  if (bytes == 0) return;
  check_cl(clEnqueueReadBuffer(program_.queue.get(), buffer.get(), CL_TRUE, offset, bytes, to, 0,
                               nullptr, nullptr),
           fmt::format("cannot read {} from the device", what));
}

void DeviceRun::launch() {
  enqueue_grid(program_.queue.get(), program_.kernels[part_].get(), shape_.workers,
               program_.shape.lanes);
  ++launches_by_part_[part_];
}

void DeviceRun::next_part(const Ctl &ctl) {
  const size_t take = static_cast<size_t>(std::max(ctl[KITE_CTL_PARKED_TAKE], 0));
  if (program_.parts() < 2 || (take == 0 && !ctl[KITE_CTL_PART_IDLE])) return;
  // The launch was to queue parked entries [0, take), and queued [0, taken)
  // (narrow workers take them as they run dry, and a launch that left for a
  // print may not have taken all); [taken, count) still wait, and the next
  // part's go first.
  const size_t taken = std::min(static_cast<size_t>(std::max(ctl[KITE_CTL_PARKED_NEXT], 0)), take);
  const size_t count = static_cast<size_t>(std::max(ctl[KITE_CTL_PARKED], 0));
  std::vector<std::array<int64_t, 2>> parked(count > taken ? count - taken : 0);
  read(parked_, taken * sizeof parked[0], parked.size() * sizeof parked[0], parked.data(),
       "the parked entries");
  // The part with the most waiting; every part has had one launch to run
  // its own before another's gets a second.
  std::vector<size_t> waiting(program_.parts(), 0);
  for (const auto &entry : parked)
    if (entry[1] >= 0 && static_cast<size_t>(entry[1]) < waiting.size()) ++waiting[entry[1]];
  size_t next = part_;
  if (ctl[KITE_CTL_PART_IDLE]) {
    for (size_t k = 0; k < waiting.size(); ++k)
      if (waiting[k] > 0 && (next == part_ || waiting[k] > waiting[next])) next = k;
    if (next == part_)
      throw RunError("internal: kite_uber left for another part, but no other part has work");
  }
  std::stable_partition(parked.begin(), parked.end(),
                        [&](const auto &entry) { return static_cast<size_t>(entry[1]) == next; });
  if (!parked.empty())
    check_cl(
        clEnqueueWriteBuffer(program_.queue.get(), parked_.get(), CL_TRUE, 0,
                             parked.size() * sizeof parked[0], parked.data(), 0, nullptr, nullptr),
        "cannot write the parked entries");
  static_assert(KITE_CTL_PARKED_TAKE == KITE_CTL_PARKED + 1 &&
                    KITE_CTL_PART_IDLE == KITE_CTL_PARKED + 2 &&
                    KITE_CTL_PARKED_NEXT == KITE_CTL_PARKED + 3,
                "written as one run of words");
  const int32_t words[4] = {static_cast<int32_t>(parked.size()),
                            static_cast<int32_t>(waiting[next]), 0, 0};
  check_cl(clEnqueueWriteBuffer(program_.queue.get(), ctl_.get(), CL_TRUE,
                                KITE_CTL_PARKED * sizeof(int32_t), sizeof words, words, 0, nullptr,
                                nullptr),
           "cannot write the control block");
  part_ = next;
}

Ctl DeviceRun::read_ctl() {
  Ctl ctl;
  read(ctl_, 0, sizeof ctl, ctl.data(), "the control block");
  return ctl;
}

Ctl64 DeviceRun::read_ctl64() {
  Ctl64 ctl64;
  read(ctl64_, 0, sizeof ctl64, ctl64.data(), "the control block");
  return ctl64;
}

std::vector<int64_t> DeviceRun::read_print(size_t count) {
  std::vector<int64_t> records(count);
  read(printbuf_, 0, count * sizeof(int64_t), records.data(), "the print buffer");
  return records;
}

std::vector<int64_t> DeviceRun::read_stats() {
  std::vector<int64_t> all(size_t(shape_.workers) * shape_.stats_stride());
  read(stats_, 0, all.size() * sizeof(int64_t), all.data(), "the statistics");
  std::vector<int64_t> stats(size_t(shape_.workers) * KITE_STATS_WORDS);
  spans_.clear();
  for (uint32_t w = 0; w < shape_.workers; ++w) {
    const int64_t *mine = all.data() + size_t(w) * shape_.stats_stride();
    std::copy(mine, mine + KITE_STATS_WORDS, stats.begin() + size_t(w) * KITE_STATS_WORDS);
    int64_t n = std::clamp<int64_t>(mine[KITE_STAT_TRACE_SPANS], 0, shape_.trace_cap);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t *span = mine + KITE_STATS_WORDS + k * KITE_TRACE_SPAN_WORDS;
      spans_.push_back({w, span[0], span[1], span[2] >> 1, (span[2] & 1) != 0});
    }
  }
  return stats;
}

std::vector<unsigned char> DeviceRun::read_heap(size_t offset, size_t bytes) {
  std::vector<unsigned char> data(bytes);
  read(heap_, offset, bytes, data.data(), "the device heap");
  return data;
}

void DeviceRun::reset_print() {
  static_assert(KITE_CTL_PRINT_HEAD == KITE_CTL_YIELD + 1, "written as one pair");
  const int32_t zeros[2] = {0, 0};
  check_cl(clEnqueueWriteBuffer(program_.queue.get(), ctl_.get(), CL_TRUE,
                                KITE_CTL_YIELD * sizeof(int32_t), sizeof zeros, zeros, 0, nullptr,
                                nullptr),
           "cannot write the control block");
}

void DeviceRun::run_waiting_maps(int32_t waiting) {
  cl_command_queue q = program_.queue.get();
  auto write = [&](const Buffer &b, size_t offset, size_t bytes, const void *data) {
    check_cl(clEnqueueWriteBuffer(q, b.get(), CL_TRUE, offset, bytes, data, 0, nullptr, nullptr),
             "cannot write the control block");
  };
  const size_t count = static_cast<size_t>(std::clamp<int32_t>(waiting, 0, KITE_OFFLOAD_CAP));
  if (count == 0) {
    if (resumes_ != 0) {  // the last launch queued them: not again
      resumes_ = 0;
      write(ctl_, KITE_CTL_RESUMES * sizeof(int32_t), sizeof resumes_, &resumes_);
    }
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  // (entry, iterations) pairs; the entry's high half is the map's code.
  std::vector<std::array<int64_t, 2>> maps(count);
  read(ctl64_, KITE_CTL64_OFFLOADS * sizeof(int64_t), count * sizeof maps[0], maps.data(),
       "the waiting maps");
  std::stable_sort(maps.begin(), maps.end(),
                   [](const auto &a, const auto &b) { return (a[0] >> 32) < (b[0] >> 32); });
  std::vector<int64_t> resumes(count);
  for (size_t i = 0; i < count; ++i) resumes[i] = maps[i][0];
  write(ctl64_, KITE_CTL64_RESUMES * sizeof(int64_t), count * sizeof(int64_t), resumes.data());
  for (size_t first = 0; first < count;) {
    const int64_t code = maps[first][0] >> 32;
    size_t end = first;
    int64_t longest = 0;
    for (; end < count && maps[end][0] >> 32 == code; ++end)
      longest = std::max(longest, maps[end][1]);
    auto [it, added] = map_kernels_.try_emplace(code);
    MapKernel &mk = it->second;
    if (added) {
      cl_int err = CL_SUCCESS;
      std::string name = fmt::format("kite_map_{}", code);
      mk.kernel = Kernel(clCreateKernel(program_.programs[part_].get(), name.c_str(), &err));
      check_cl(err, fmt::format("internal: cannot create the kernel {}", name));
      bind<9>(mk.kernel.get(), {&pool_, &deques_, &deque_ctl_, &printbuf_, &ctl_, &ctl64_, &stats_,
                                &params_, &heap_});
      // A power of two up to KITE_MAP_GROUP that the kernel's work-groups hold.
      size_t most = 0;
      if (clGetKernelWorkGroupInfo(mk.kernel.get(), device_.id, CL_KERNEL_WORK_GROUP_SIZE,
                                   sizeof most, &most, nullptr) == CL_SUCCESS)
        while (mk.group > 1 && mk.group > most) mk.group /= 2;
    }
    cl_kernel kernel = mk.kernel.get();
    // A work-group's rows run as many maps, each row up to map_width
    // iterations of one map (more when there are fewer maps than rows),
    // both powers of two.
    const size_t maps_here = end - first;
    size_t rows = mk.group / std::min<size_t>(mk.group, program_.shape.map_width);
    while (rows > 1 && rows / 2 >= maps_here) rows /= 2;
    size_t width = mk.group / rows;
    while (width > 1 && width / 2 >= static_cast<size_t>(longest)) width /= 2;
    const cl_int args[2] = {static_cast<cl_int>(first), static_cast<cl_int>(maps_here)};
    for (cl_uint a = 0; a < 2; ++a)
      check_cl(clSetKernelArg(kernel, 9 + a, sizeof args[a], &args[a]),
               "cannot set the argument of a map kernel");
    const size_t global[2] = {(static_cast<size_t>(longest) + width - 1) / width * width,
                              (maps_here + rows - 1) / rows * rows};
    const size_t local[2] = {width, rows};
    check_cl(clEnqueueNDRangeKernel(q, kernel, 2, nullptr, global, local, 0, nullptr, nullptr),
             "cannot launch a map kernel");
    map_launches_ += 1;
    first = end;
  }
  check_cl(clFinish(q), "a map kernel failed");
  maps_run_ += static_cast<int64_t>(count);
  const int32_t ctl_words[2] = {0, static_cast<int32_t>(count)};  // OFFLOADS, RESUMES
  static_assert(KITE_CTL_RESUMES == KITE_CTL_OFFLOADS + 1, "written as one pair");
  write(ctl_, KITE_CTL_OFFLOADS * sizeof(int32_t), sizeof ctl_words, ctl_words);
  resumes_ = static_cast<int32_t>(count);
  const int64_t zero = 0;
  write(ctl64_, KITE_CTL64_OFFLOAD_ITERS * sizeof(int64_t), sizeof zero, &zero);
  map_ms_ +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// --- the residency probe ---

namespace {

// Iterations a probing worker waits for the others. Resident groups start
// within microseconds of each other; a group that is not resident only starts
// when another finishes, which it does only after giving up.
uint32_t spin_limit(const Device &device) { return device.is_cpu() ? 1u << 25 : 1u << 16; }

class Prober {
 public:
  Prober(const Device &device, DeviceProgram &program) : device_(device), program_(program) {
    cl_int err = CL_SUCCESS;
    auto create = [&](size_t bytes) {
      Buffer b(clCreateBuffer(program_.context.get(), CL_MEM_READ_WRITE, bytes, nullptr, &err));
      check_cl(err, "cannot allocate device memory for the residency probe");
      return b;
    };
    unused_ = create(64 * sizeof(int64_t));  // the buffers probe mode does not touch
    ctl_ = create(KITE_CTL_INTS * sizeof(int32_t));
    params_ = create(KITE_PARAM_COUNT * sizeof(int32_t));
    for (Kernel &kernel : program_.kernels)
      bind<10>(kernel.get(), {&unused_, &unused_, &unused_, &unused_, &ctl_, &unused_, &unused_,
                              &params_, &unused_, &unused_});
  }

  // All `workers` groups were resident at once. A failure is tried once more:
  // a slow start of one group (a descheduled CPU thread) is not a verdict.
  bool passes(uint32_t workers) { return try_once(workers) || try_once(workers); }

  int launches() const { return launches_; }

 private:
  // Every part's kernel, one after the other: the grid is the same for all.
  bool try_once(uint32_t workers) {
    for (Kernel &kernel : program_.kernels)
      if (!try_kernel(kernel.get(), workers)) return false;
    return true;
  }

  bool try_kernel(cl_kernel kernel, uint32_t workers) {
    ++launches_;
    cl_command_queue q = program_.queue.get();
    std::array<int32_t, KITE_PARAM_COUNT> params{};
    params[KITE_PARAM_NUM_WORKERS] = static_cast<int32_t>(workers);
    params[KITE_PARAM_MODE] = KITE_MODE_PROBE;
    params[KITE_PARAM_SPIN_LIMIT] = static_cast<int32_t>(spin_limit(device_));
    Ctl ctl{};
    check_cl(clEnqueueWriteBuffer(q, params_.get(), CL_TRUE, 0, sizeof params, params.data(), 0,
                                  nullptr, nullptr),
             "cannot write device memory");
    check_cl(clEnqueueWriteBuffer(q, ctl_.get(), CL_TRUE, 0, sizeof ctl, ctl.data(), 0, nullptr,
                                  nullptr),
             "cannot write device memory");
    enqueue_grid(q, kernel, workers, program_.shape.lanes);
    check_cl(
        clEnqueueReadBuffer(q, ctl_.get(), CL_TRUE, 0, sizeof ctl, ctl.data(), 0, nullptr, nullptr),
        "cannot read the residency probe's result");
    return ctl[KITE_CTL_PROBE_FAILED] == 0 &&
           ctl[KITE_CTL_PROBE_ARRIVED] == static_cast<int32_t>(workers);
  }

  const Device &device_;
  DeviceProgram &program_;
  Buffer unused_, ctl_, params_;
  int launches_ = 0;
};

}  // namespace

void warm_up(const Device &device, DeviceProgram &program) {
  try {
    cl_int err = CL_SUCCESS;
    if (!program.queue) {
      program.queue = Queue(clCreateCommandQueue(program.context.get(), device.id, 0, &err));
      check_cl(err, "cannot create an OpenCL command queue");
    }
    if (program.kernels.empty()) {
      for (Program &p : program.programs) {
        program.kernels.emplace_back(clCreateKernel(p.get(), "kite_uber", &err));
        check_cl(err, "cannot create the kernel kite_uber");
      }
    }
    Prober(device, program).passes(1);
  } catch (const std::exception &) {
    // Only the first launch's time is at stake.
  }
}

// The residency probe's cache key. How many work-groups are resident at
// once follows from what each kernel takes of a multiprocessor: registers
// per work-item, local memory per work-group, the work-group's size. Where
// the build logs name every kernel's registers (NVIDIA), the key is those
// resources, kernel by kernel, so that a program edited without changing
// them (most edits) is not probed again; elsewhere it is the program.
uint64_t probe_key(const Device &device, const DeviceProgram &program, uint32_t most) {
  std::vector<std::string> kernels;
  for (const KernelSize &k : program.part_sizes) {
    if (k.registers == 0) {
      return fnv1a({"kite-run probe 2", fmt::format("{:016x}", program.cache_key),
                    fmt::format("{} {}", spin_limit(device), most)});
    }
    kernels.push_back(fmt::format("{}/{}/{}", k.registers, k.local_bytes, k.private_bytes));
  }
  std::sort(kernels.begin(), kernels.end());
  std::string all;
  for (const std::string &k : kernels) all += k + " ";
  return fnv1a({"kite-run probe by resources 2", device.name, device.version, device.driver_version,
                fmt::format("{}", program.shape.lanes), program.options,
                fmt::format("{} {}", spin_limit(device), most), all});
}

ProbeResult probe_resident_workers(const Device &device, DeviceProgram &program, const Cache &cache,
                                   uint32_t per_unit) {
  const uint32_t units = std::max<cl_uint>(device.compute_units, 1);
  const uint32_t most = std::max<uint32_t>(per_unit, 1) * units;
  const uint64_t key = probe_key(device, program, most);
  if (auto text = cache.load(key, ".workers")) {
    uint32_t cached = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), cached);
    if (ec == std::errc() && cached >= 1 && cached <= most) return {cached, 0, cached == most};
  }

  // On a GPU, `most` (kite-run's cap) first: most kernels have that many
  // resident, and one launch says so, where a search up to it took five
  // launches and every size beyond it two failed ones, each a wait for
  // workers that never start (the 10-task synthetic program on an H100: 15
  // launches and 0.39 s, when the search went on up to 64 groups per
  // compute unit).
  Prober prober(device, program);
  const uint32_t good =
      search_resident(units, most, !device.is_cpu(), [&](uint32_t g) { return prober.passes(g); });
  if (good == 0) {
    throw RunError(
        "internal: the residency probe failed even with one worker (does kite_uber "
        "implement KITE_MODE_PROBE?)");
  }
  cache.store(key, ".workers", fmt::format("{}", good));
  return {good, prober.launches(), good == most};
}

}  // namespace kite::host
