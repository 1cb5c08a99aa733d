#include "host/options.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <limits>

#include "runtime-cl/kite_abi.h"

namespace kite::host {
namespace {

// --- checks: CLI11's validators, worded as kite-run words its errors ---

// Whether `valid` refuses `value` (which it may rewrite): CLI11's checks
// return a message or throw one.
bool refuses(const CLI::Validator &valid, std::string &value) {
  try {
    return !valid(value).empty();
  } catch (const CLI::ValidationError &) {
    return true;
  }
}

// `valid` decides; a value it refuses is "must be <what>, not <value>".
CLI::Validator must_be(const CLI::Validator &valid, const std::string &what) {
  return CLI::Validator(
      [valid, what](std::string &value) {
        const std::string given = value;
        return refuses(valid, value) ? fmt::format("must be {}, not {}", what, given)
                                     : std::string();
      },
      "");
}

// `valid` decides; a value it refuses is "takes <what>, not '<value>'".
CLI::Validator takes(const CLI::Validator &valid, const std::string &what) {
  return CLI::Validator(
      [valid, what](std::string &value) {
        const std::string given = value;
        return refuses(valid, value) ? fmt::format("takes {}, not '{}'", what, given)
                                     : std::string();
      },
      "");
}

const CLI::Validator kPowerOfTwo(
    [](std::string &value) {
      uint64_t v = 0;
      bool ok = CLI::detail::lexical_cast(value, v) && v != 0 && (v & (v - 1)) == 0;
      return ok ? std::string() : std::string("not a power of two");
    },
    "");

const CLI::Validator kMultipleOf4(
    [](std::string &value) {
      uint64_t v = 0;
      bool ok = CLI::detail::lexical_cast(value, v) && v % 4 == 0;
      return ok ? std::string() : std::string("not a multiple of 4");
    },
    "");

// A number of bytes: digits with an optional K, M or G suffix (powers of
// 1024; CLI11 also reads KiB, KB, T and the others the same way), which it
// rewrites as the number of bytes; at least `least`.
CLI::Validator size_of_at_least(uint64_t least, const char *least_text) {
  const CLI::Validator size =
      takes(CLI::AsSizeValue(false), "a size in bytes with an optional K, M or G suffix");
  const CLI::Validator at_least = CLI::Range(least, std::numeric_limits<uint64_t>::max());
  return CLI::Validator(
      [size, at_least, least_text](std::string &value) {
        const std::string given = value;
        std::string refused = size(value);
        if (refused.empty() && refuses(at_least, value))
          refused = fmt::format("must be {}, not {}", least_text, given);
        return refused;
      },
      "");
}

constexpr double kMaxTimeoutSeconds = 1e7;

const CLI::Validator kSeconds(
    [](std::string &value) {
      double s = 0;
      bool ok = CLI::detail::lexical_cast(value, s) && s > 0 && s <= kMaxTimeoutSeconds;
      return ok ? std::string() : std::string("not a number of seconds");
    },
    "");

CLI::Validator between(int64_t lo, int64_t hi) {
  return must_be(CLI::Range(lo, hi), fmt::format("between {} and {}", lo, hi));
}
CLI::Validator power_of_two(int64_t lo, int64_t hi, const std::string &what) {
  return must_be(kPowerOfTwo & CLI::Range(lo, hi), what);
}

constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
constexpr int64_t kUintMax = std::numeric_limits<uint32_t>::max();
constexpr InInterp kApplies = InInterp::Applies, kIgnored = InInterp::Ignored;
using C = CommandLine;

// --- the table ---

std::vector<OptionSpec> make_specs() {
  return {
      {"-h,--help", "", "", "Print this help and exit", true, kApplies, HelpFlag{}, {}},
      {"--version",
       "",
       "",
       "Print the version and exit (kite-run runs only the artifacts of kitec's same version)",
       true,
       kApplies,
       VersionFlag{},
       {},
       "Print the version and exit"},
      {"--device", "DEVICE", "the first CPU device, else the first device",
       "cpu, gpu, or a device number from --list-devices", true, kIgnored, &C::device,
       takes(CLI::IsMember({"cpu", "gpu"}) | CLI::Range(int64_t(0), kIntMax),
             "cpu, gpu or a device number")},
      {"--list-devices",
       "",
       "",
       "List the OpenCL devices and exit",
       true,
       kIgnored,
       &C::list_devices,
       {}},
      {"--stats",
       "",
       "",
       "After the run, print scheduler statistics on stderr",
       true,
       kIgnored,
       &C::stats,
       {}},
      {"-t,--time",
       "",
       "",
       "Print the compile-to-device time and the run time on stderr",
       true,
       kApplies,
       &C::time,
       {},
       "Print the run time on stderr"},
      {"--records", "N", "as many as fit in 1/4 of device memory, at most 1 GiB",
       "Records in the task record pool", true, kIgnored, &C::records, between(1, kIntMax)},
      {"--deque", "N",
       fmt::format("{} on a CPU, {} on a GPU", kDefaultDequeCapCpu, kDefaultDequeCapGpu),
       "Entries per worker's task deque, a power of two", true, kIgnored, &C::deque,
       power_of_two(2, int64_t(1) << 30, "a power of two")},
      {"--deque-start", "N", "0",
       "For tests: the index every deque and local queue starts at, 0 to 4294967295; the "
       "indices wrap, and a start near 2147483647 or 4294967295 makes a short run cross the wrap",
       true, kIgnored, &C::deque_start, between(0, kUintMax)},
      {"--workers", "N", "the measured number",
       "Workers (work-groups) to launch, instead of the measured number", true, kIgnored,
       &C::workers, between(1, int64_t(1) << 24)},
      {"--lanes", "N", "1 on a CPU, the SIMD width on a GPU",
       "Work-items per worker, a power of two: 1 runs one task per worker; more run that many "
       "side by side in a work-group",
       true, kIgnored, &C::lanes, power_of_two(1, 1024, "a power of two from 1 to 1024")},
      {"--local-queue", "N", fmt::format("{} times --lanes", kLocalQueuePerLane),
       "Entries in each wide worker's local-memory queue, a power of two of at least twice "
       "--lanes",
       true, kIgnored, &C::local_queue, power_of_two(1, 65536, "a power of two up to 65536")},
      {"--lane-blocks", "N", std::to_string(kLaneBlocks),
       "Blocks each lane of a wide worker may run per round, up to 4096: the first from the "
       "worker's queues, the rest, depth first, from what its own blocks made ready; 1 runs one "
       "block per lane and round",
       true, kIgnored, &C::lane_blocks, must_be(CLI::Range(1, 4096), "from 1 to 4096")},
      {"--hand-blocks", "N", std::to_string(kHandBlocks),
       "Blocks each lane of a wide worker may run per round, up to 4096: the first from the "
       "worker's queues, each of the others the callee of a tail call that the block before "
       "made, or the continuation it made ready when its worker took at most one entry that "
       "round (everything else is queued); 1 runs one block per lane and round",
       true, kIgnored, &C::hand_blocks, must_be(CLI::Range(1, 4096), "from 1 to 4096")},
      {"--fast-calls", "WHEN", "auto",
       "When a call of a task that has a sequential form runs that form where it stands "
       "instead of becoming a task: auto (while its worker has work to spare for the others), "
       "never, always (for tests), or stop (for tests: always, and every form stops at every "
       "fourth call)",
       true, kIgnored, &C::fast_calls,
       takes(CLI::IsMember({"auto", "never", "always", "stop"}), "auto, never, always or stop")},
      {"--record-align", "BYTES", "the device's cache line on a GPU, 8 on a CPU",
       "Records in the pool start on multiples of this many bytes, a power of two from 8 to 4096",
       true, kIgnored, &C::record_align, power_of_two(8, 4096, "a power of two from 8 to 4096")},
      {"--max-registers", "N", "the compiler's choice",
       "Registers per work-item the device compiler may use, a multiple of 4 from 16 to 255 "
       "(NVIDIA only; fewer registers let more workers be resident, and what does not fit "
       "spills to memory)",
       true, kIgnored, &C::max_registers,
       must_be(kMultipleOf4 & CLI::Range(16, 255), "a multiple of 4 from 16 to 255")},
      {"--map-kernel-min", "N", fmt::format("{} on a GPU, 0 on a CPU", kMapKernelsMin),
       "Run a map of at least this many iterations whose body calls no task, allocates nothing "
       "and prints nothing as an OpenCL kernel of its own, one work-item per iteration, while "
       "its task waits; 0: never",
       true, kIgnored, &C::map_kernel_min,
       must_be(CLI::Range(int64_t(0), kIntMax), fmt::format("at most {}", kIntMax))},
      {"--map-kernel-width", "N", std::to_string(kMapKernelWidth),
       "Work-items of a map kernel's work-group that run one map, a power of two up to 128; the "
       "group's other rows run other maps",
       true, kIgnored, &C::map_kernel_width,
       power_of_two(1, KITE_MAP_GROUP, fmt::format("a power of two up to {}", KITE_MAP_GROUP))},
      {"--print-buffer", "SIZE", "8 MiB, or 1 KiB per work-item if more",
       "Bytes of device print buffer, with an optional K, M or G suffix", true, kIgnored,
       &C::print_buffer, size_of_at_least(0, "a size")},
      {"--heap", "SIZE", "1/4 of device memory, at most 1 GiB",
       "Bytes of device heap for arrays and other heap values, with an optional K, M or G "
       "suffix, at least 1K",
       true, kIgnored, &C::heap, size_of_at_least(1024, "at least 1K")},
      {"--trace",
       "FILE",
       "",
       "Write the workers' busy spans to this file as Chrome trace-event JSON (open it in "
       "Perfetto)",
       true,
       kIgnored,
       &C::trace,
       {}},
      {"--timeout", "SECONDS", "",
       "Stop the run if it has not finished this many seconds after its first kernel launch "
       "(exit status 124)",
       true, kApplies, &C::timeout,
       must_be(kSeconds,
               fmt::format("a number of seconds above 0 and at most {:g}", kMaxTimeoutSeconds)),
       "Stop the run if it has not finished after this many seconds (exit status 124)"},
      {"--no-cache",
       "",
       "",
       "Neither read nor write the kernel binary cache",
       true,
       kIgnored,
       &C::no_cache,
       {}},
      {"--build-only",
       "",
       "",
       "Build the program's kernels for the device, or find them in the cache, keep them there "
       "and exit without running main (which then takes no arguments): the next run starts "
       "at once",
       true,
       kApplies,
       &C::build_only,
       {},
       "Check the program and exit without running it (kite-run builds its kernels)"},
      {"--probe",
       "",
       "",
       "Measure how many workers are resident at once even on a CPU device",
       true,
       kIgnored,
       &C::probe,
       {}},
      {"--races",
       "",
       "",
       "Report the accesses to one array element or struct field, one a write, that Kite's "
       "rules leave unordered (exit status 1 if any)",
       false,
       kApplies,
       &C::races,
       {}},
      {"--stack", "SIZE", "1G",
       "The interpreter's stack, with an optional K, M or G suffix, at least 16M; it bounds how "
       "deeply task calls nest",
       false, kApplies, &C::stack, size_of_at_least(16 << 20, "at least 16M")},
  };
}

const char *tool_name(Tool tool) { return tool == Tool::Run ? "kite-run" : "kite-interp"; }

// Adds `tool`'s options to `app`, their values going into `values`.
void add_options(CLI::App &app, Tool tool, CommandLine &values) {
  for (const OptionSpec &spec : option_specs()) {
    if (!tool_takes(tool, spec)) continue;
    std::string help = tool == Tool::Interp && spec.interp_help ? spec.interp_help : spec.help;
    if (!spec.default_text.empty()) help += " (default: " + spec.default_text + ")";
    CLI::Option *option = std::visit(
        [&](auto field) -> CLI::Option * {
          using F = decltype(field);
          if constexpr (std::is_same_v<F, HelpFlag>) {
            return app.set_help_flag(spec.names, help);
          } else if constexpr (std::is_same_v<F, VersionFlag>) {
            return app.set_version_flag(spec.names,
                                        fmt::format("{} {}", tool_name(tool), KITE_VERSION), help);
          } else if constexpr (std::is_same_v<F, bool CommandLine::*>) {
            return app.add_flag(spec.names, values.*field, help);
          } else {
            return app.add_option(spec.names, values.*field, help)->type_name(spec.value);
          }
        },
        spec.field);
    if (spec.check) option->transform(*spec.check);  // a check may rewrite a size
    if (tool == Tool::Interp && spec.in_interp == InInterp::Ignored)
      option->group("kite-run's options for the device, accepted and ignored");
  }
}

// The option `token` names ("--heap" for "--heap=1G"), or null.
const CLI::Option *option_of(const CLI::App &app, const std::string &token) {
  if (token.size() < 2 || token[0] != '-') return nullptr;
  return app.get_option_no_throw(token.substr(0, token.find('=')));
}

// Splits the command line: the options, for CLI11, and prog and main's
// arguments, which CLI11 never sees (it would split an array argument like
// [1,2] at its commas).
std::vector<std::string> arrange_command_line(const CLI::App &app, int argc, char **argv,
                                              CommandLine &values) {
  std::vector<std::string> options, positionals;
  int i = 1;
  auto take_options = [&](bool known_only) {
    while (i < argc) {
      std::string token = argv[i];
      if (token == "--") {
        ++i;
        return;
      }
      const CLI::Option *option = option_of(app, token);
      bool looks_like_option = token.size() > 1 && token[0] == '-';
      if (known_only ? !option : !looks_like_option) return;
      if (!option) throw CLI::ParseError(fmt::format("unknown option '{}' (see --help)", token), 1);
      options.push_back(token);
      ++i;
      bool valued = option->get_items_expected_max() != 0 && token.find('=') == std::string::npos;
      if (valued && i < argc) options.push_back(argv[i++]);
    }
  };
  take_options(false);
  if (i < argc) positionals.push_back(argv[i++]);
  take_options(true);
  for (; i < argc; ++i) positionals.push_back(argv[i]);
  if (!positionals.empty()) {
    values.prog = positionals[0];
    values.args.assign(positionals.begin() + 1, positionals.end());
  }
  return options;
}

// CLI11's message, with a check's after the option's name: CLI11 writes
// "--deque: must be ...", kite-run "--deque must be ...".
std::string message_of(const CLI::ParseError &e) {
  std::string text = e.what();
  if (dynamic_cast<const CLI::ValidationError *>(&e)) {
    size_t colon = text.find(": ");
    if (colon != std::string::npos) text.erase(colon, 1);
  }
  return text;
}

}  // namespace

const std::vector<OptionSpec> &option_specs() {
  static const std::vector<OptionSpec> specs = make_specs();
  return specs;
}

std::vector<std::string> names_of(const OptionSpec &spec) {
  std::vector<std::string> names;
  std::string_view rest = spec.names;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    names.emplace_back(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
  }
  return names;
}

bool tool_takes(Tool tool, const OptionSpec &spec) { return tool == Tool::Interp || spec.in_run; }

const OptionSpec *find_option(Tool tool, std::string_view name) {
  for (const OptionSpec &spec : option_specs()) {
    if (!tool_takes(tool, spec)) continue;
    std::vector<std::string> names = names_of(spec);
    if (std::find(names.begin(), names.end(), name) != names.end()) return &spec;
  }
  return nullptr;
}

std::optional<int> parse_command_line(Tool tool, int argc, char **argv, CommandLine &values) {
  const char *name = tool_name(tool);
  CLI::App app{tool == Tool::Run
                   ? "kite-run: runs a program compiled by kitec on an OpenCL device"
                   : "kite-interp: runs a Kite program on the host, one task at a time, in "
                     "program order",
               name};
  add_options(app, tool, values);
  // For --help only: arrange_command_line takes these.
  std::string unused_prog;
  std::vector<std::string> unused_args;
  app.add_option("prog", unused_prog,
                 tool == Tool::Run
                     ? "The program, as written by kitec; or a Kite source (a name ending in "
                       ".kite), which kite-run compiles first"
                     : "A Kite source, or an artifact written by kitec -o (its source file is "
                       "run)");
  app.add_option("args", unused_args, "main's arguments");
  try {
    std::vector<std::string> words = arrange_command_line(app, argc, argv, values);
    std::reverse(words.begin(), words.end());  // CLI11 takes them back to front
    app.parse(words);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    fmt::print(stderr, "{}: error: {}\n", name, message_of(e));
    return 1;
  }
  // kite-interp has no devices to list: it needs a program all the same.
  if ((tool == Tool::Interp || !values.list_devices) && values.prog.empty()) {
    fmt::print(stderr, "{}: error: no program given (usage: {} [options] prog args...)\n", name,
               name);
    return 1;
  }
  if (values.build_only && !values.args.empty()) {
    fmt::print(stderr,
               "{}: error: --build-only runs no main: it takes no arguments for it ({} given)\n",
               name, values.args.size());
    return 1;
  }
  return std::nullopt;
}

}  // namespace kite::host
