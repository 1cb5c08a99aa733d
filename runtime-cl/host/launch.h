// The device side of one run: kite_uber's ten buffers (kite_abi.h), kernel
// launches, and the start-up probe for how many workers can be resident.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "host/args.h"
#include "host/device.h"
#include "runtime-cl/kite_abi.h"

namespace kite::host {

// Sizes of one run; every count fits the ABI's int params.
struct RunShape {
  uint32_t workers = 0;       // work-groups, one worker each
  uint32_t num_records = 0;   // records in the pool
  uint32_t record_words = 0;  // longs per record
  uint32_t deque_cap = 0;     // entries per deque, a power of two
  uint32_t print_cap = 0;     // longs in printbuf
  uint32_t print_limit = 0;   // ctl[KITE_CTL_PRINT_LIMIT]
  uint64_t heap_longs = 0;    // ctl64[KITE_CTL64_HEAP_SIZE]
  uint32_t trace_cap = 0;     // busy spans per worker for --trace; 0: no trace
  bool simd_stats = false;    // wide workers count the block codes of each round (--stats)
  uint32_t deque_start = 0;   // the index the deques and local rings start at (--deque-start)

  // Longs per worker in the statistics buffer (its spans follow its stats).
  size_t stats_stride() const {
    return KITE_STATS_WORDS + size_t(KITE_TRACE_SPAN_WORDS) * trace_cap;
  }
};

// A time a worker ran blocks without running dry (kite_abi.h).
struct Span {
  uint32_t worker = 0;
  int64_t start = 0, end = 0, blocks = 0;
  bool stolen = false;
};

using Ctl = std::array<int32_t, KITE_CTL_INTS>;
using Ctl64 = std::array<int64_t, KITE_CTL64_LONGS>;

class DeviceRun {
 public:
  // Allocates and zero-fills the buffers, writes params, main's arguments
  // (array arguments into the heap) and the control block, and binds the
  // kernel's arguments. Throws RunError, naming the option to change, when
  // device memory runs out or the array arguments do not fit in the heap.
  DeviceRun(const Device &device, DeviceProgram &program, const RunShape &shape,
            const MainArgs &args);
  ~DeviceRun();

  // One launch of kite_uber over the whole grid, waiting for it to finish:
  // of the part whose turn it is (one unless the program is in parts).
  void launch();
  // After a launch that left (ctl[KITE_CTL_YIELD]), in a program in parts:
  // the parked entries it did not queue move to the front of the list, and
  // when it left for another part's (ctl[KITE_CTL_PART_IDLE]) the part with
  // the most takes its turn, its entries first (runtime-cl/device/parts.cl).
  void next_part(const Ctl &ctl);
  size_t part() const { return part_; }
  // Launches of each part's kernel so far.
  const std::map<size_t, int64_t> &launches_by_part() const { return launches_by_part_; }

  Ctl read_ctl();
  Ctl64 read_ctl64();
  std::vector<int64_t> read_print(size_t count);  // printbuf[0 .. count)
  std::vector<int64_t> read_stats();              // workers * KITE_STATS_WORDS
  // The busy spans read by the last read_stats (--trace).
  const std::vector<Span> &spans() const { return spans_; }
  // `bytes` bytes of the heap from byte `offset`; the caller keeps them
  // within ctl64[KITE_CTL64_HEAP_SIZE] longs.
  std::vector<unsigned char> read_heap(size_t offset, size_t bytes);
  // Before a relaunch: ctl[PRINT_HEAD] = ctl[YIELD] = 0.
  void reset_print();
  // Before a relaunch: runs the kernels of the `waiting` maps that the
  // workers left for (ctl[KITE_CTL_OFFLOADS]), one launch per map kernel,
  // and lists their records for the next launch to queue (kite_abi.h).
  void run_waiting_maps(int32_t waiting);
  int64_t maps_run() const { return maps_run_; }          // loops run as kernels so far
  int64_t map_launches() const { return map_launches_; }  // launches of their kernels
  double map_ms() const { return map_ms_; }  // time in run_waiting_maps, transfers included
  // Sets ctl[KITE_CTL_STOP], which makes the workers of a launch leave at
  // their next check; callable from another thread while launch() waits. On
  // a CPU device ctl lives in host memory that the device uses in place; on
  // others the word goes through a second command queue. Whether the device
  // notices is up to it: a block that never ends is never stopped.
  void request_stop();

 private:
  // Zeroed host memory, mapped on demand (mmap): on a CPU device the big
  // buffers live there, so untouched parts of the record pool cost nothing.
  struct LazyZeroMemory;

  Buffer create(size_t bytes, const char *what, const char *option);
  Buffer create_control_block();
  Buffer create_in_host_memory(size_t bytes, void **data);
  Buffer create_zeroed(size_t bytes, const char *what, const char *option);
  void read(const Buffer &buffer, size_t offset, size_t bytes, void *to, const char *what);

  const Device &device_;
  DeviceProgram &program_;
  RunShape shape_;
  std::vector<std::unique_ptr<LazyZeroMemory>> host_memory_;  // outlives the buffers below
  Buffer pool_, deques_, deque_ctl_, printbuf_, ctl_, ctl64_, stats_, params_, heap_, parked_;
  size_t parked_cap_ = 1;  // (entry, part) pairs parked_ holds
  size_t part_ = 0;        // the part whose kernel the next launch runs
  std::map<size_t, int64_t> launches_by_part_;
  volatile int32_t *host_ctl_ = nullptr;  // ctl_'s memory when the device uses it in place
  Queue stop_queue_;                      // else request_stop writes through this queue
  std::vector<Span> spans_;
  struct MapKernel {
    Kernel kernel;
    size_t group = KITE_MAP_GROUP;  // work-items per work-group
  };
  std::map<int64_t, MapKernel> map_kernels_;  // kite_map_<code>, made when first run
  int32_t resumes_ = 0;                       // ctl[KITE_CTL_RESUMES] as last written
  int64_t maps_run_ = 0, map_launches_ = 0;
  double map_ms_ = 0;
};

// How many work-groups of kite_uber are resident at once on the
// device, up to `per_unit` a compute unit, measured with KITE_MODE_PROBE
// launches (host/residency.h's search). Cached under the kernels'
// resources where the build logs name their registers (NVIDIA), else under
// the program's cache key (probe_key in launch.cpp), with the limit.
struct ProbeResult {
  uint32_t workers = 0;
  int launches = 0;      // 0 when it came from the cache
  bool at_most = false;  // the limit: more may be resident
};
// Launches each of the program's kernels once, a worker of `program.shape`'s
// lanes in probe mode, which does nothing; for a device compiler that
// compiles a kernel again at its first launch (PoCL). Creates the queue and
// the kernels if the program has none. Failures are ignored.
void warm_up(const Device &device, DeviceProgram &program);

ProbeResult probe_resident_workers(const Device &device, DeviceProgram &program, const Cache &cache,
                                   uint32_t per_unit);

}  // namespace kite::host
