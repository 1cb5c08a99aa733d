// kite-run's options, listed once (options.cpp, make_specs). The table drives
// kite-run's command line and --help (CLI11, its validators checking every
// value that needs no device), kite-interp's, which accepts every kite-run
// command line and ignores the options that only shape a device run,
// kite-test's, which passes kite-run's options on, and the bash completion,
// which tools/completion/generate.cpp writes from it at build time.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kite::host {

// The values of a command line of kite-run or kite-interp: an option not
// given is empty (or false).
struct CommandLine {
  std::string device;  // cpu, gpu, or a device's index; "": the default
  bool list_devices = false;
  bool stats = false;
  bool time = false;
  bool no_cache = false;
  bool probe = false;
  bool build_only = false;  // build (or find) the kernels, run nothing
  std::optional<uint64_t> records;
  std::optional<uint64_t> deque;
  std::optional<uint64_t> deque_start;
  std::optional<uint64_t> workers;
  std::optional<uint64_t> lanes;
  std::optional<uint64_t> local_queue;
  std::optional<uint64_t> lane_blocks;
  std::optional<uint64_t> hand_blocks;
  std::string fast_calls;  // auto, never, always or stop; "": auto
  std::optional<uint64_t> record_align;
  std::optional<uint64_t> max_registers;
  std::optional<uint64_t> map_kernel_min;
  std::optional<uint64_t> map_kernel_width;
  std::optional<uint64_t> print_buffer;  // bytes
  std::optional<uint64_t> heap;          // bytes
  std::string trace;                     // the Chrome trace-event file to write
  std::optional<double> timeout;         // seconds
  bool races = false;                    // kite-interp's own
  std::optional<uint64_t> stack;         // kite-interp's own: bytes
  std::string prog;
  std::vector<std::string> args;
};

enum class Tool { Run, Interp };

// The options' defaults that are numbers, and why.
// Entries per worker's deque. A map spawns its calls as it goes, so a deep
// recursion leaves a few entries per level; a CPU has few workers and can
// give each room for thousands of levels, a GPU's thousands get less each.
constexpr uint32_t kDefaultDequeCapCpu = 65536;
constexpr uint32_t kDefaultDequeCapGpu = 8192;
// Entries of a wide worker's local queue per lane (kite-run --local-queue):
// it shares the GPU's on-chip memory with the L1 cache, which holds the
// lanes' private state. On an H200 (medians of 2, 1320 workers), 32 against
// 64: fib(40) 94 against 100 ms, N-queens(14), tree sum and UTS within 3%.
constexpr uint32_t kLocalQueuePerLane = 32;
// Blocks a lane of a wide worker may run per round (kite-run --lane-blocks):
// the first from the worker's queues, the rest from its own stack.
constexpr uint32_t kLaneBlocks = 1;
// Blocks a lane of a wide worker may run per round (kite-run --hand-blocks):
// after the first, each the callee of a tail call its previous block made,
// or a continuation its signal made ready when the worker is alone with it.
// On an H200, UTS 21 M nodes took 84.9 ms with 1, 71.8 with 4 (tail calls
// only), 67.2 with 4 and 66.2 with 16 (continuations too); fib, N-queens
// and tree sum are unchanged (docs/design.md, "Going on").
constexpr uint32_t kHandBlocks = 16;
// On a GPU a map (or reduction) of at least this many iterations whose body
// calls no task runs as a kernel of its own (kite-run --map-kernel-min):
// the workers leave, the host launches the kernel, and the workers come
// back. On an H200 (bench/kite, medians of 2): the matrix product 2048
// took 727 ms with 4096 (its rows' maps of 2048 stay on the workers), 15.5
// with 2048, 15.4 with 1024, 16.3 with 256; BFS 4*10^6 26 ms with 4096,
// 23.6 with 1024; merge sort and cilksort did not change. On a CPU the
// workers already use every core: 0, off.
constexpr uint32_t kMapKernelsMin = 1024;
// Work-items of a map kernel's work-group per map (kite-run
// --map-kernel-width); the group's other rows run other maps of the same
// code, which share what they read with it in the cache. The matrix
// product 2048 on an H200 (its 2048 row maps, medians of 3): 7.3 ms with
// 128, 6.5 with 64, 6.8 with 32.
constexpr uint32_t kMapKernelWidth = 64;

// What kite-interp does with an option.
enum class InInterp {
  Applies,  // as kite-run does, or it is kite-interp's own
  Ignored,  // accepted, its value checked as kite-run checks it, and ignored
};

// Where an option's value goes: -h and --version are CLI11's own flags.
struct HelpFlag {};
struct VersionFlag {};
using OptionField =
    std::variant<HelpFlag, VersionFlag, bool CommandLine::*, std::string CommandLine::*,
                 std::optional<uint64_t> CommandLine::*, std::optional<double> CommandLine::*>;

struct OptionSpec {
  const char *names;  // as CLI11 takes them: "-t,--time"
  // The value it takes, as --help names it ("N", "SIZE"); "" for a flag. The
  // completion offers files for FILE and the device names for DEVICE.
  const char *value;
  std::string default_text;  // "" when there is none to tell
  const char *help;
  bool in_run;  // kite-run takes it (else it is kite-interp's own)
  InInterp in_interp;
  OptionField field;
  // Checks the value as written and may rewrite it (a size's suffix); its
  // message follows the option's name: "must be a power of two, not 3".
  // Checks that need the device or other options are kite-run's own.
  std::optional<CLI::Validator> check;
  const char *interp_help = nullptr;  // kite-interp's help, where it differs
};

// The table, in --help's order.
const std::vector<OptionSpec> &option_specs();

// The option's names: "-t" and "--time" for "-t,--time".
std::vector<std::string> names_of(const OptionSpec &spec);

// Whether `tool` takes the option: kite-interp takes every one.
bool tool_takes(Tool tool, const OptionSpec &spec);

// The spec that has `name` ("--heap", "-t"), if `tool` takes it.
const OptionSpec *find_option(Tool tool, std::string_view name);

// Parses argv into `values` with `tool`'s options: options come before prog
// or right after it (kite-run prog --stats 10); main's arguments start at the
// first word that is not an option, so negative numbers are arguments, and
// "--" ends the options. Returns the exit status when the command line ends
// the program: 0 after --help or --version, 1 after an error, which it
// prints as "<tool>: error: <message>" naming the option and its value.
std::optional<int> parse_command_line(Tool tool, int argc, char **argv, CommandLine &values);

}  // namespace kite::host
