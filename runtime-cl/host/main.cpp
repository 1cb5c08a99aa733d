// kite-run: runs a program compiled by kitec on an OpenCL device.
//
//   kite-run [options] prog args...
//   kite-run [options] prog.kite args...   compiles the source first (host/source.h)
//   ./prog args...                         the artifact's "#!" line runs kite-run
//
// Its options, their checks and --help are host/options.h's table, which
// kite-interp and the bash completion share; its run-time errors are worded
// by host/run_errors.h's.
//
// The artifact (docs/artifact.md) holds main's signature, the string and
// error-site tables, and one OpenCL program whose kernel `kite_uber` is a
// persistent scheduler: every work-item is a worker that runs tasks until main
// has finished. kite-run's part (kite_abi.h is the contract):
//   1. read the artifact (or compile the source) and convert the
//      command-line arguments to main's parameter types;
//   2. pick a device, build the program (or load its binary from the cache);
//   3. choose the grid: one worker per work-group of one work-item, as many
//      groups as can be resident at once (the compute units on a CPU, a probe
//      on a GPU), since a persistent worker that is not resident never runs;
//   4. allocate the zero-filled buffers and write params, arguments (arrays
//      into the device heap) and ctl;
//   5. launch until ctl[DONE]: between launches print the records the kernel
//      left in the print buffer (it yields when the buffer passes its limit);
//   6. report a run-time error with its Kite source location, or print main's
//      result (an array of scalars read back from the heap).
// Every failure is "kite-run: error: <message>" on stderr and exit status 1,
// except a run stopped by --timeout: exit status 124, as timeout(1) uses.

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "host/args.h"
#include "host/artifact.h"
#include "host/cache.h"
#include "host/cl.h"
#include "host/device.h"
#include "host/launch.h"
#include "host/options.h"
#include "host/printer.h"
#include "host/report.h"
#include "host/run_errors.h"
#include "host/source.h"
#include "host/trace.h"
#include "host/values.h"
#include "runtime-cl/kite_abi.h"

namespace kite::host {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// At most this many workers per compute unit on a GPU, however many would
// be resident: each round grows with the workers (likely because the
// records that more lanes keep in use outgrow the cache). On an H200 (medians of 2; fib(40),
// N-queens(14), tree sum 22, UTS, in ms): 8 per unit 97, 34.8, 10.4, 99; 10: 94, 35.5, 11.8, 100;
// 12: 96, 36, 13.5, 100; 16 (resident for fib): 107.5 for fib.
constexpr uint32_t kMaxWorkersPerUnit = 10;
// Narrow workers keep forms whose frames hold arrays under the rule only in
// a run of at most this many (docs/design.md, "Kept forms": UTS on the
// 2-core EPYC, one worker 17% and two 9% faster than losing them; on 8 and
// 16 cores of the H100 machine's host, slower).
constexpr uint32_t kKeepWorkers = 2;
constexpr uint64_t kDefaultPrintBytes = 8ull << 20;  // 1 Mi longs, or more for many workers
// Half the print buffer is headroom for the prints in flight when one passes
// the limit: at least this many longs per work-item (a print of 31 items).
constexpr uint64_t kHeadroomPerLane = 64;
constexpr uint64_t kMaxPoolBytes = 1ull << 30;    // default record pool at most 1 GiB
constexpr uint64_t kMaxHeapBytes = 1ull << 30;    // default heap at most 1 GiB
constexpr uint32_t kTraceSpansPerWorker = 16384;  // --trace: spans beyond are counted, not kept
// --timeout: the exit status of a run it stops, as timeout(1)'s; and how long
// the workers get to leave after being told to before kite-run stops waiting.
constexpr int kTimeoutStatus = 124;
constexpr std::chrono::seconds kStopGrace{1};

// What the run measured, for --stats and --time.
struct Report {
  std::optional<double> source_ms;  // kite-run prog.kite: compiling the source
  double setup_ms = 0;              // context + program build or cache load + kernel
  bool binary_cached = false;
  double probe_ms = 0;     // the residency probe, when it launched
  int probe_launches = 0;  // 0: no probe, or its result came from the cache
  double run_ms = 0;
  int launches = 0;
  size_t parts = 1;        // kernels the program was built as (runtime-cl/device/parts.cl)
  size_t parts_built = 0;  // of them, built on this run (the others came from the cache)
  std::map<size_t, int64_t> launches_by_part;  // a program in parts: its kernels' launches
  int64_t maps_run = 0, map_launches = 0;      // maps and reductions run as kernels of their own
  double map_ms = 0;                           // the host's time for them, launches included
  RunShape shape;
  std::string workers_from;  // how the grid size was chosen
  WorkerShape worker;
  KernelSize kernel;
  uint32_t compute_units = 0;
  Ctl ctl{};
  Ctl64 ctl64{};
  std::vector<int64_t> stats;
};

// --- choosing sizes ---

RunShape choose_shape(const CommandLine &o, const Device &device, uint32_t workers,
                      const WorkerShape &worker) {
  const uint32_t lanes = worker.lanes;
  constexpr uint64_t kIntMax = std::numeric_limits<int32_t>::max();
  RunShape s;
  s.workers = workers;
  if (!o.trace.empty()) s.trace_cap = kTraceSpansPerWorker;
  s.record_words = worker.record_stride;
  const uint64_t pool_bytes = uint64_t(worker.record_stride) * sizeof(int64_t);
  if (o.records) {
    s.num_records = static_cast<uint32_t>(*o.records);
  } else {
    uint64_t budget = std::min({device.global_mem / 4, uint64_t(device.max_alloc), kMaxPoolBytes});
    s.num_records = static_cast<uint32_t>(std::clamp<uint64_t>(budget / pool_bytes, 1, kIntMax));
  }
  s.deque_start = static_cast<uint32_t>(o.deque_start.value_or(0));
  s.deque_cap = static_cast<uint32_t>(
      o.deque.value_or(device.is_cpu() ? kDefaultDequeCapCpu : kDefaultDequeCapGpu));
  const uint64_t per_worker = 2 * kHeadroomPerLane * lanes;
  const uint64_t least_cap = per_worker * workers;
  uint64_t print_cap = std::max(kDefaultPrintBytes / sizeof(int64_t), least_cap);
  if (o.print_buffer) {
    print_cap = *o.print_buffer / sizeof(int64_t);
    if (print_cap < least_cap || print_cap > (1u << 30)) {
      throw RunError(
          fmt::format("--print-buffer must be between {} bytes ({} per worker) and 8 GiB",
                      least_cap * sizeof(int64_t), per_worker * sizeof(int64_t)));
    }
  }
  s.print_cap = static_cast<uint32_t>(print_cap);
  s.print_limit = s.print_cap / 2;  // the rest is headroom for the prints in flight
  uint64_t heap =
      o.heap.value_or(std::min({device.global_mem / 4, uint64_t(device.max_alloc), kMaxHeapBytes}));
  s.heap_longs = std::max<uint64_t>(heap / sizeof(int64_t), KITE_HEAP_FIRST);
  return s;
}

// A wide worker's blocks per lane and round (--lane-blocks, --hand-blocks)
// only with wide workers.
void check_blocks_per_round(const char *option, const std::optional<uint64_t> &value,
                            uint32_t lanes) {
  if (value && lanes == 1)
    throw RunError(fmt::format("{} needs wide workers (--lanes 2 or more)", option));
}

// The shape of a worker: its lanes and its local queue.
// `wide_words`, `narrow_words`: the longs of a record where workers are
// wide and where they are narrow (kept forms may need larger records on
// narrow workers only).
WorkerShape choose_worker_shape(const CommandLine &o, const Device &device, uint32_t wide_words,
                                uint32_t narrow_words) {
  WorkerShape w;
  // On a GPU a record that shares a cache line with its neighbours shares
  // the line's traffic too: 32 lanes touch 32 records at once, and their
  // join counters are updated by atomics from other multiprocessors.
  // Whole lines per record took fib(40) on an H200 from 308 to 232 ms
  // (72-byte records padded to 128). On a CPU the smaller pool wins.
  uint64_t align =
      o.record_align.value_or(device.is_cpu() || device.cache_line < 8 ? 8 : device.cache_line);
  const uint32_t per_line = static_cast<uint32_t>(align / 8);
  w.lanes = static_cast<uint32_t>(
      o.lanes.value_or(device.is_cpu() || device.simd_width == 0 ? 1 : device.simd_width));
  const uint32_t record_words = w.lanes == 1 ? narrow_words : wide_words;
  w.record_stride = (record_words + per_line - 1) / per_line * per_line;
  if (w.lanes > device.max_group) {
    throw RunError(fmt::format("--lanes {} is more than the device's work-groups hold ({})",
                               w.lanes, device.max_group));
  }
  if (o.max_registers) {
    if (!device.is_nvidia()) throw RunError("--max-registers works on NVIDIA's OpenCL only");
    w.max_registers = static_cast<uint32_t>(*o.max_registers);
  }
  w.map_kernels_min =
      static_cast<uint32_t>(o.map_kernel_min.value_or(device.is_cpu() ? 0 : kMapKernelsMin));
  w.map_width = static_cast<uint32_t>(o.map_kernel_width.value_or(kMapKernelWidth));
  w.fast = o.fast_calls == "never"    ? 0
           : o.fast_calls == "always" ? 2
           : o.fast_calls == "stop"   ? 3
                                      : 1;
  check_blocks_per_round("--lane-blocks", o.lane_blocks, w.lanes);
  check_blocks_per_round("--hand-blocks", o.hand_blocks, w.lanes);
  if (w.lanes == 1) {
    if (o.local_queue) throw RunError("--local-queue needs wide workers (--lanes 2 or more)");
    return w;
  }
  w.lane_blocks = static_cast<uint32_t>(o.lane_blocks.value_or(kLaneBlocks));
  w.hand_blocks = static_cast<uint32_t>(o.hand_blocks.value_or(kHandBlocks));
  if (w.lane_blocks > 1) {
    // Lane stacks keep all that a lane makes ready, tail calls included.
    if (o.hand_blocks && *o.hand_blocks > 1)
      throw RunError("--hand-blocks and --lane-blocks cannot both be more than 1");
    w.hand_blocks = 1;
  }
  w.local_queue = static_cast<uint32_t>(o.local_queue.value_or(kLocalQueuePerLane * w.lanes));
  if (w.local_queue < 2 * w.lanes) {
    throw RunError(fmt::format("--local-queue must be at least twice --lanes ({})", 2 * w.lanes));
  }
  // The worker's local state: the queue, three arrays of lanes, the lanes'
  // free records (at most 32 ids each), and less than 512 bytes of counters
  // (kite_worker in runtime-cl/device/context.cl).
  const uint64_t local_bytes = 8ull * w.local_queue + (16ull + 128ull) * w.lanes + 512;
  if (local_bytes > device.local_mem) {
    throw RunError(fmt::format(
        "a local queue of {} entries needs {} bytes of local memory; the device has {} (try a "
        "smaller --local-queue)",
        w.local_queue, local_bytes, device.local_mem));
  }
  return w;
}

// A CPU's workers: --workers, else one per compute unit (PoCL and the
// other CPU drivers run one work-group per compute-unit thread until it
// finishes: more groups than units would never start).
uint32_t cpu_workers(const CommandLine &o, const Device &device) {
  return o.workers ? static_cast<uint32_t>(*o.workers) : std::max<cl_uint>(device.compute_units, 1);
}

// The grid: one worker per resident work-group.
uint32_t choose_workers(const CommandLine &o, const Device &device, DeviceProgram &program,
                        const Cache &cache, Report &report) {
  if (o.workers) {
    report.workers_from = "--workers";
    return static_cast<uint32_t>(*o.workers);
  }
  if (device.is_cpu() && !o.probe) {
    report.workers_from = "compute units";
    return cpu_workers(o, device);
  }
  // On a GPU no more than the cap: the probe looks no further.
  const uint32_t per_unit = device.is_cpu() ? 64 : kMaxWorkersPerUnit;
  auto start = Clock::now();
  ProbeResult probe = probe_resident_workers(device, program, cache, per_unit);
  report.probe_ms = ms_since(start);
  report.probe_launches = probe.launches;
  report.workers_from = probe.launches ? "probed" : "probed earlier, cached";
  if (!device.is_cpu() && probe.at_most)
    report.workers_from += fmt::format(", at most {} per compute unit", kMaxWorkersPerUnit);
  return probe.workers;
}

// --- messages ---

std::string error_site(const Artifact &artifact, int32_t site) {
  if (site < 0) return "";
  if (static_cast<size_t>(site) >= artifact.sites.size()) {
    return fmt::format(" at unknown site {}", site);
  }
  const Site &s = artifact.sites[site];
  return fmt::format(" at {}:{}:{}", s.file.empty() ? artifact.source : s.file, s.line, s.column);
}

// The device's error (host/run_errors.h words it), where it happened, and
// the note that follows some errors.
std::string device_error(const Artifact &artifact, const Ctl &ctl, const Ctl64 &ctl64) {
  std::optional<ErrorKind> kind = error_of_code(ctl[KITE_CTL_ERROR]);
  if (!kind) return fmt::format("internal: unknown run-time error code {}", ctl[KITE_CTL_ERROR]);
  ErrorOperands operands;
  operands.a = ctl64[KITE_CTL64_ERR_A];
  operands.b = ctl64[KITE_CTL64_ERR_B];
  // A null's A: the string that names the value (`struct 'p'`), or -1 where
  // kitec gave none.
  if (*kind == ErrorKind::Null && operands.a >= 0 &&
      static_cast<uint64_t>(operands.a) < artifact.strings.size())
    operands.name = artifact.strings[size_t(operands.a)];
  std::string note = error_note(*kind);
  return error_message(*kind, operands) + error_site(artifact, ctl[KITE_CTL_ERROR_SITE]) +
         (note.empty() ? "" : "\nkite-run: note: " + note);
}

void print_stats(const Report &r) {
  const RunShape &s = r.shape;
  auto sum = [&](int word) {
    int64_t total = 0;
    for (uint32_t w = 0; w < s.workers; ++w) total += r.stats[size_t(w) * KITE_STATS_WORDS + word];
    return total;
  };
  fmt::print(stderr, "kite-run: stats: tasks executed        {}\n", sum(KITE_STAT_TASKS));
  fmt::print(stderr, "kite-run: stats: continuations run     {}\n", sum(KITE_STAT_CONTS));
  fmt::print(stderr, "kite-run: stats: calls answered inline {}\n", sum(KITE_STAT_ANSWERED));
  fmt::print(stderr, "kite-run: stats: calls run in place    {}\n", sum(KITE_STAT_FAST));
  fmt::print(stderr, "kite-run: stats: forms stopped, kept   {}\n", sum(KITE_STAT_KEPT));
  if (!s.simd_stats)  // counted on narrow workers only
    fmt::print(stderr,
               "kite-run: stats: calls made tasks      {} by the rule, {} after a full stack; "
               "forms' stops {}, full stacks {}\n",
               sum(KITE_STAT_DECLINED), sum(KITE_STAT_SKIPPED), sum(KITE_STAT_STOPS),
               sum(KITE_STAT_FULL));
  fmt::print(stderr, "kite-run: stats: steals                {} of {} attempts\n",
             sum(KITE_STAT_STEALS), sum(KITE_STAT_STEAL_TRIES));

  // Tasks per worker: min/median/max, then a histogram of 8 equal-width bins.
  std::vector<int64_t> tasks(s.workers);
  for (uint32_t w = 0; w < s.workers; ++w) {
    tasks[w] = r.stats[size_t(w) * KITE_STATS_WORDS + KITE_STAT_TASKS];
  }
  std::vector<int64_t> sorted = tasks;
  std::sort(sorted.begin(), sorted.end());
  int64_t lo = sorted.front(), hi = sorted.back();
  std::string line = fmt::format("min {} median {} max {}", lo, sorted[sorted.size() / 2], hi);
  if (s.workers <= 16) {
    line += fmt::format("; by worker {}", fmt::join(tasks, " "));
  } else if (hi > lo) {
    constexpr int kBins = 8;
    std::vector<int64_t> bins(kBins, 0);
    for (int64_t t : tasks) bins[std::min<int64_t>(kBins - 1, (t - lo) * kBins / (hi - lo))]++;
    line += fmt::format("; workers per bin of {:.4g} tasks: {}",
                        static_cast<double>(hi - lo) / kBins, fmt::join(bins, " "));
  }
  fmt::print(stderr, "kite-run: stats: tasks per worker      {}\n", line);

  int64_t bump = r.ctl[KITE_CTL_BUMP];
  fmt::print(stderr,
             "kite-run: stats: record pool used      {} of {} records ({:.1f} of {:.1f} MiB)\n",
             bump, s.num_records, double(bump) * s.record_words * 8 / (1 << 20),
             double(s.num_records) * s.record_words * 8 / (1 << 20));
  // The bump pointer passes the end when an allocation fails: show it full.
  const uint64_t heap_used =
      std::clamp<int64_t>(r.ctl64[KITE_CTL64_HEAP_BUMP], 0, int64_t(s.heap_longs));
  fmt::print(stderr, "kite-run: stats: heap used             {:.1f} of {:.1f} MiB ({:.1f}%)\n",
             double(heap_used) * 8 / (1 << 20), double(s.heap_longs) * 8 / (1 << 20),
             100.0 * double(heap_used) / double(s.heap_longs));
  fmt::print(stderr, "kite-run: stats: kernel launches       {}\n", r.launches);
  if (r.launches_by_part.size() > 1 || (!r.launches_by_part.empty() && r.parts > 1)) {
    std::string by;
    for (const auto &[part, n] : r.launches_by_part) by += fmt::format(" {}:{}", part, n);
    fmt::print(stderr, "kite-run: stats: parts                 {} kernels; launches by part{}\n",
               r.parts, by);
  }
  if (r.worker.map_kernels_min > 0) {
    fmt::print(stderr,
               "kite-run: stats: loops run as kernels  {} of at least {} iterations, in {} "
               "launches of their kernels taking {:.2f} ms\n",
               r.maps_run, r.worker.map_kernels_min, r.map_launches, r.map_ms);
  }
  // The kernel's size limits how many workers are resident at once.
  std::string regs = r.kernel.registers ? fmt::format("{} registers, ", r.kernel.registers) : "";
  fmt::print(stderr,
             "kite-run: stats: kernel                {}{} bytes private memory per work-item, {} "
             "bytes local memory per work-group; {:.1f} workers per compute unit\n",
             regs, r.kernel.private_bytes, r.kernel.local_bytes,
             r.compute_units ? double(s.workers) / r.compute_units : 0.0);
  if (r.worker.lanes == 1) {
    fmt::print(stderr,
               "kite-run: stats: workers               {} ({}), work-groups of 1 work-item\n",
               s.workers, r.workers_from);
    return;
  }
  fmt::print(stderr,
             "kite-run: stats: workers               {} ({}), work-groups of {} work-items, "
             "local queues of {} entries, up to {} blocks per lane and round\n",
             s.workers, r.workers_from, r.worker.lanes, r.worker.local_queue,
             std::max(r.worker.lane_blocks, r.worker.hand_blocks));
  // SIMD efficiency: of the lanes a round's distinct block codes occupy
  // (the warp runs each code's lanes in turn), the share that ran a block.
  int64_t rounds = sum(KITE_STAT_ROUNDS), lane_blocks = sum(KITE_STAT_LANE_BLOCKS),
          paths = sum(KITE_STAT_PATHS);
  if (rounds > 0) {
    fmt::print(stderr,
               "kite-run: stats: rounds                {} with work ({:.1f} blocks and {:.2f} "
               "block codes each), {} without\n",
               rounds, double(lane_blocks) / double(rounds), double(paths) / double(rounds),
               sum(KITE_STAT_IDLE_ROUNDS));
    if (int64_t stacked = sum(KITE_STAT_STACKED); stacked > 0)
      fmt::print(stderr,
                 "kite-run: stats: lane stacks           {} blocks ({:.1f}% of all) ran from the "
                 "lanes' own stacks\n",
                 stacked, 100.0 * double(stacked) / double(stacked + lane_blocks));
    if (int64_t handed = sum(KITE_STAT_HANDED); handed > 0)
      fmt::print(stderr,
                 "kite-run: stats: going on              {} blocks ({:.1f}% of all) ran in the "
                 "turn of the lane that made them ready\n",
                 handed, 100.0 * double(handed) / double(handed + lane_blocks));
    fmt::print(stderr, "kite-run: stats: free-record chunks    {} through the global stacks\n",
               sum(KITE_STAT_CHUNK_OPS));
    if (int64_t ns = sum(KITE_STAT_ROUND_NS); ns > 0) {
      fmt::print(stderr,
                 "kite-run: stats: round time            {:.2f} us each, {:.2f} us of it "
                 "scheduling\n",
                 1e-3 * double(ns + sum(KITE_STAT_SCHEDULE_NS)) / double(rounds),
                 1e-3 * double(sum(KITE_STAT_SCHEDULE_NS)) / double(rounds));
    }
    if (paths > 0) {
      // With lane stacks only a turn's first block is counted: the others
      // run in turns whose codes nobody records.
      fmt::print(stderr,
                 "kite-run: stats: SIMD efficiency       {:.1f}% (blocks run / (lanes x block "
                 "codes per round){})\n",
                 100.0 * double(lane_blocks) / (double(paths) * r.worker.lanes),
                 r.worker.lane_blocks > 1 ? "; the first block of each lane's turn only" : "");
    }
  }
}

void print_times(const Report &r, bool ran = true) {
  if (r.source_ms)
    fmt::print(stderr, "kite-run: time: compile the source {:.1f} ms\n", *r.source_ms);
  if (r.parts > 1)  // a program in parts: some kernels may come from the cache
    fmt::print(stderr, "kite-run: time: compile-to-device {:.1f} ms ({} of {} kernels built)\n",
               r.setup_ms, r.parts_built, r.parts);
  else
    fmt::print(stderr, "kite-run: time: compile-to-device {:.1f} ms (binary {})\n", r.setup_ms,
               r.binary_cached ? "from cache" : "built");
  if (r.probe_launches > 0) {
    fmt::print(stderr, "kite-run: time: residency probe {:.1f} ms ({} launches)\n", r.probe_ms,
               r.probe_launches);
  }
  if (ran) fmt::print(stderr, "kite-run: time: run {:.1f} ms\n", r.run_ms);
}

// --- the run ---

// A run that --timeout stopped; main exits with kTimeoutStatus.
struct TimedOut : RunError {
  using RunError::RunError;
};

std::string timeout_message(double seconds) {
  ErrorOperands operands;
  operands.seconds = seconds;
  return error_message(ErrorKind::Timeout, operands);
}

// --timeout: a thread that, unless the run finishes first, sets the stop flag
// at the deadline, and exits the process if the launch still has not returned
// a grace period later (a block that loops forever cannot be stopped, and
// OpenCL cannot kill a running kernel).
class Watchdog {
 public:
  Watchdog(DeviceRun &run, double seconds)
      : run_(run),
        seconds_(seconds),
        deadline_(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(seconds))),
        thread_([this] { watch(); }) {}
  ~Watchdog() { finish(); }

  // Whether the deadline passed and the stop flag was set.
  bool fired() const { return fired_.load(); }
  // The run is over (done, failed or stopped): the thread ends.
  void finish() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      finished_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (wake_.wait_until(lock, deadline_, [this] { return finished_; })) return;
    fired_ = true;
    run_.request_stop();
    if (wake_.wait_for(lock, kStopGrace, [this] { return finished_; })) return;
    std::fflush(stdout);
    fmt::print(
        stderr,
        "kite-run: error: {}; the device did not stop, so kite-run exits without waiting for it\n",
        timeout_message(seconds_));
    std::_Exit(kTimeoutStatus);
  }

  DeviceRun &run_;
  const double seconds_;
  const Clock::time_point deadline_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool finished_ = false;
  std::atomic<bool> fired_{false};
  std::thread thread_;  // last: it starts once the rest is initialised
};

// main's result of type array<element>: its length and elements from the
// heap, printed as print does: [1, 2, 3].
void print_array(DeviceRun &device_run, const RunShape &shape, Scalar element, int64_t ref) {
  const uint64_t heap_bytes = shape.heap_longs * sizeof(int64_t);
  if (ref < 0 || static_cast<uint64_t>(ref) >= shape.heap_longs) {
    throw RunError(fmt::format("internal: main's result is heap ref {}, outside the heap", ref));
  }
  int64_t length = 0;
  std::vector<unsigned char> header = device_run.read_heap(ref * sizeof(int64_t), sizeof length);
  std::memcpy(&length, header.data(), sizeof length);
  const uint64_t start = (ref + 1) * sizeof(int64_t);
  const uint64_t size = element_bytes(element);
  if (length < 0 || static_cast<uint64_t>(length) > (heap_bytes - start) / size) {
    throw RunError(fmt::format(
        "internal: main's result (heap ref {}) claims {} elements, more than the heap holds", ref,
        length));
  }
  std::vector<unsigned char> bytes = device_run.read_heap(start, length * size);
  fmt::memory_buffer text;
  text.push_back('[');
  for (int64_t i = 0; i < length; ++i) {
    if (i > 0) fmt::format_to(std::back_inserter(text), ", ");
    fmt::format_to(std::back_inserter(text), "{}",
                   format_scalar(element, load_element(element, bytes.data() + i * size)));
  }
  text.append(std::string_view("]\n"));
  std::fwrite(text.data(), 1, text.size(), stdout);
}

int run(const CommandLine &o) {
  std::vector<Device> devices = list_devices();
  if (o.list_devices) {
    if (devices.empty()) throw RunError("no OpenCL devices found (is an OpenCL driver installed?)");
    print_devices(devices, stdout);
    return 0;
  }

  // 1. The artifact (or the source, compiled) and main's arguments.
  Report report;
  Artifact artifact;
  if (is_kite_source(o.prog)) {
    auto compile_start = Clock::now();
    std::optional<Artifact> compiled = compile_source(o.prog);
    if (!compiled) return 1;  // its errors are reported, as kitec reports them
    artifact = std::move(*compiled);
    report.source_ms = ms_since(compile_start);
  } else {
    artifact = load_artifact(o.prog);
  }
  MainArgs args = o.build_only ? MainArgs{} : convert_args(artifact, o.args);

  // 2. Device and program.
  const Device &device = select_device(devices, o.device);
  Cache cache(!o.no_cache);
  auto setup_start = Clock::now();
  // The notice of a kernel build goes to a terminal only, where someone
  // waits for it; logs and tests see the same stderr on every run.
  const bool notice = isatty(STDERR_FILENO) != 0;
  // A kept form's record may be larger: under --fast-calls stop; and where
  // kitec keeps frames that hold arrays (KITE_HAS_KEEP 2), under the rule
  // and `always` too, on narrow workers of a CPU run with at most
  // kKeepWorkers of them (KITE_KEEP_RULE, runtime-cl/device/config.cl);
  // where some form writes memory (KITE_HAS_KEEP 3), which it may do only
  // where forms keep, with any number of them.
  const bool stop = o.fast_calls == "stop";
  const int64_t has_keep = header_value(artifact.opencl, "KITE_HAS_KEEP").value_or(0);
  const bool keep_rule =
      o.fast_calls != "never" && o.fast_calls != "stop" && device.is_cpu() &&
      (has_keep == 3 || (has_keep == 2 && cpu_workers(o, device) <= kKeepWorkers));
  const auto kept = static_cast<uint32_t>(std::max(artifact.record_words, artifact.kept_words));
  const auto plain = static_cast<uint32_t>(artifact.record_words);
  WorkerShape worker_shape =
      choose_worker_shape(o, device, stop ? kept : plain, stop || keep_rule ? kept : plain);
  worker_shape.keep_rule = keep_rule && worker_shape.lanes == 1;
  // A program in parts (runtime-cl/device/parts.cl) is built part by part,
  // but whole with lane stacks, whose private records must not wait for
  // another part's launch.
  int parts = static_cast<int>(header_value(artifact.opencl, "KITE_PARTS").value_or(1));
  if (worker_shape.lane_blocks > 1) parts = 1;
  const int main_part =
      static_cast<int>(header_value(artifact.opencl, "KITE_MAIN_PART").value_or(0));
  DeviceProgram program =
      build_program(device, artifact.opencl, worker_shape, cache, notice, parts, main_part);
  report.setup_ms = ms_since(setup_start);
  report.binary_cached = program.from_cache;
  report.parts = program.parts();
  report.parts_built = program.parts_built;

  // 3. The grid and the buffer sizes; 4. the buffers.
  uint32_t workers = choose_workers(o, device, program, cache, report);
  if (o.build_only) {
    // PoCL compiles a kernel again at its first launch, for the launch's
    // work-group size, and keeps that in its kernel cache: launched once
    // here, the next run's first launch need not compile it (a part built
    // in a build process was launched there).
    if (device.is_pocl()) {
      auto warm_start = Clock::now();
      warm_up(device, program);
      report.setup_ms += ms_since(warm_start);
    }
    if (o.time) print_times(report, false);
    return 0;
  }
  report.shape = choose_shape(o, device, workers, program.shape);
  report.shape.simd_stats = o.stats && program.shape.lanes > 1;
  report.worker = program.shape;
  report.kernel = program.size;
  report.compute_units = device.compute_units;
  DeviceRun device_run(device, program, report.shape, args);

  // 5. Launch until done, printing between launches.
  Printer printer(artifact, stdout);
  auto run_start = Clock::now();
  std::optional<Watchdog> watchdog;
  if (o.timeout) watchdog.emplace(device_run, *o.timeout);
  bool timed_out = false;
  Ctl &ctl = report.ctl;
  for (;;) {
    device_run.launch();
    ++report.launches;
    ctl = device_run.read_ctl();
    int64_t head = ctl[KITE_CTL_PRINT_HEAD];
    size_t valid = std::clamp<int64_t>(head, 0, report.shape.print_cap);
    bool overflowed = head > static_cast<int64_t>(report.shape.print_cap);
    printer.drain(device_run.read_print(valid).data(), valid, overflowed);
    if (overflowed && ctl[KITE_CTL_ERROR] == KITE_ERR_NONE) {
      ctl[KITE_CTL_ERROR] = KITE_ERR_PRINT;  // output was lost: never carry on silently
      break;
    }
    if (ctl[KITE_CTL_DONE] || ctl[KITE_CTL_ERROR] != KITE_ERR_NONE) break;
    if (watchdog && watchdog->fired()) {  // the workers left because the host stopped them
      timed_out = true;
      break;
    }
    if (!ctl[KITE_CTL_YIELD]) {
      throw RunError("internal: kite_uber returned without finishing or yielding");
    }
    device_run.run_waiting_maps(ctl[KITE_CTL_OFFLOADS]);
    device_run.next_part(ctl);
    device_run.reset_print();
  }
  if (watchdog) watchdog->finish();
  report.run_ms = ms_since(run_start);
  report.launches_by_part = device_run.launches_by_part();
  report.maps_run = device_run.maps_run();
  report.map_launches = device_run.map_launches();
  report.map_ms = device_run.map_ms();
  const Ctl64 &ctl64 = report.ctl64 = device_run.read_ctl64();
  report.stats = device_run.read_stats();
  if (o.stats) print_stats(report);
  if (!o.trace.empty()) {
    int64_t lost = 0;
    for (uint32_t w = 0; w < report.shape.workers; ++w)
      lost += report.stats[size_t(w) * KITE_STATS_WORDS + KITE_STAT_TRACE_LOST];
    bool clock_ns = program.options.find("KITE_NVIDIA") != std::string::npos;
    write_trace(o.trace, device_run.spans(), report.shape.workers, clock_ns, lost, device.name);
  }
  if (o.time) print_times(report);

  // 6. The outcome.
  if (timed_out) throw TimedOut(timeout_message(*o.timeout));
  if (ctl[KITE_CTL_ERROR] != KITE_ERR_NONE) {
    throw RunError(device_error(artifact, ctl, ctl64));
  }
  if (artifact.result != "unit") {
    if (auto type = scalar_type(artifact.result)) {
      fmt::print("{}\n", format_scalar(*type, ctl64[KITE_CTL64_RESULT]));
    } else if (auto element = array_element_type(artifact.result)) {
      print_array(device_run, report.shape, *element, ctl64[KITE_CTL64_RESULT]);
    } else {
      fmt::print(stderr, "kite-run: note: main's result of type {} is not printed\n",
                 artifact.result);
    }
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace
}  // namespace kite::host

int main(int argc, char **argv) {
  using namespace kite::host;
  keep_start_environment();
  // A part of a program built in a process of its own (build_program).
  if (argc >= 4 && std::string(argv[1]) == "--build-part")
    return build_part_child(argv[2], std::vector<std::string>(argv + 3, argv + argc));
  CommandLine options;
  if (auto status = parse_command_line(Tool::Run, argc, argv, options)) return *status;
  return report_failures("kite-run", [&] {
    try {
      return run(options);
    } catch (const TimedOut &e) {
      std::fflush(stdout);
      fmt::print(stderr, "kite-run: error: {}\n", e.what());
      return kTimeoutStatus;
    }
  });
}
