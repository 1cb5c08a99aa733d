# lit configuration: every .kite file under tests/ with a RUN: line is a test.
import os
import lit.formats

config.name = "kite"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".kite"]
config.excludes = ["Inputs", "unit"]
config.test_source_root = os.path.dirname(__file__)
# Test outputs go to the build tree, not beside the sources; one tree per
# kite_device (below), so that suites run for different devices can run at once.
exec_suffix = "" if lit_config.params.get("kite_device", "cpu") == "cpu" else "-" + lit_config.params["kite_device"]
# --param kite_lanes=N runs kite-run with wide workers of N lanes (on PoCL
# too: a work-group of N work-items per worker), to test that scheduler.
kite_lanes = lit_config.params.get("kite_lanes", "")
if kite_lanes:
    exec_suffix += "-lanes" + kite_lanes
    config.available_features.add("wide")
# --param kite_lane_blocks=N: each lane of a wide worker runs up to N blocks
# a round (kite-run --lane-blocks).
kite_lane_blocks = lit_config.params.get("kite_lane_blocks", "")
if kite_lane_blocks:
    exec_suffix += "-lb" + kite_lane_blocks
# --param kite_hand_blocks=N: each lane of a wide worker goes on to up to
# N - 1 tail calls (and lone continuations) a round (kite-run --hand-blocks;
# 16 by default).
kite_hand_blocks = lit_config.params.get("kite_hand_blocks", "")
if kite_hand_blocks:
    exec_suffix += "-hb" + kite_hand_blocks
if lit_config.params.get("kite_map_kernel_min", ""):
    exec_suffix += "-mapk" + lit_config.params["kite_map_kernel_min"]
# --param kite_fast_calls=WHEN: when calls run their callee's sequential
# form (kite-run --fast-calls: auto, never, always).
kite_fast_calls = lit_config.params.get("kite_fast_calls", "")
if kite_fast_calls:
    exec_suffix += "-fast" + kite_fast_calls
if lit_config.params.get("kite_map_kernel_width", ""):
    exec_suffix += "-mapw" + lit_config.params["kite_map_kernel_width"]
config.test_exec_root = os.path.join(lit_config.params.get("kite_bin", "/tmp/kite-lit"), "..", "tests-out" + exec_suffix)

# The OpenCL loader and drivers find their devices through these; the
# sanitizers of a -DKITE_SANITIZE build read their options (docs/testing.md).
for name, value in os.environ.items():
    if name == "LD_LIBRARY_PATH" or name.startswith(
        ("OCL_", "POCL_", "OPENCL_", "CUDA_", "NVIDIA_", "ASAN_", "LSAN_", "UBSAN_")):
        config.environment[name] = value

# A run under tests/sanitizers.sh (a -DKITE_SANITIZE or -DKITE_FUZZ build):
# AddressSanitizer reserves terabytes of address space, so tests that bound
# it (ulimit -v) are not for such a run.
if "LSAN_OPTIONS" in os.environ or "ASAN_OPTIONS" in os.environ:
    config.available_features.add("sanitized")

bin_dir = lit_config.params.get("kite_bin", os.path.join(config.test_source_root, "..", "build", "bin"))
llvm_bin = "/usr/lib/llvm-14/bin"
config.environment["PATH"] = os.pathsep.join([bin_dir, llvm_bin, config.environment.get("PATH", "")])
# Keep kernel-binary caches of test runs out of the user's home.
config.environment["XDG_CACHE_HOME"] = os.path.join(lit_config.params.get("kite_bin", "/tmp"), "..", "test-cache")
# --param kite_part_blocks=N: kitec splits programs of more than N blocks
# into parts (--part-blocks; 1: every cycle of calls its own kernel), for
# the directories whose tests run programs (their dumps then differ).
kite_part_blocks = lit_config.params.get("kite_part_blocks", "")
if kite_part_blocks:
    exec_suffix += "-parts" + kite_part_blocks
    config.test_exec_root += "-parts" + kite_part_blocks
    config.available_features.add("parts")
config.substitutions.append(("%kitec", os.path.join(bin_dir, "kitec") +
                             (" --part-blocks " + kite_part_blocks if kite_part_blocks else "")))
config.substitutions.append(("%kite-run", os.path.join(bin_dir, "kite-run")))
config.substitutions.append(("%kite-test", os.path.join(bin_dir, "kite-test")))
config.substitutions.append(("%kite-interp", os.path.join(bin_dir, "kite-interp")))
# %run runs a compiled Kite program on the device the suite is run for:
# --param kite_device=gpu runs every program test on the GPU, and
# --param kite_device=interp runs them in kite-interp, the reference
# interpreter (feature `interp`). %run-device always runs kite-run: for RUN
# lines that test the device runtime itself (record pool, deques, print
# buffer, statistics), which have no meaning in the interpreter. It comes
# first: lit substitutes in order, and %run is a prefix of it.
kite_device = lit_config.params.get("kite_device", "cpu")
run_device = kite_device if kite_device != "interp" else lit_config.params.get("kite_run_device", "cpu")
lanes_flag = " --lanes " + kite_lanes if kite_lanes else ""
if kite_lane_blocks:
    lanes_flag += " --lane-blocks " + kite_lane_blocks
if kite_hand_blocks:
    lanes_flag += " --hand-blocks " + kite_hand_blocks
# --param kite_map_kernel_min=N makes %run run maps of N or more iterations
# as kernels of their own (kite-run --map-kernel-min; 1: every map that may).
# --param kite_map_kernel_width=W runs them W work-items per map (and row of
# a work-group), the group's other rows running other maps.
kite_map_kernel_min = lit_config.params.get("kite_map_kernel_min", "")
kite_map_kernel_width = lit_config.params.get("kite_map_kernel_width", "")
run_flags = lanes_flag + (" --map-kernel-min " + kite_map_kernel_min if kite_map_kernel_min else "")
run_flags += " --map-kernel-width " + kite_map_kernel_width if kite_map_kernel_width else ""
run_flags += " --fast-calls " + kite_fast_calls if kite_fast_calls else ""
config.substitutions.append(("%run-device", os.path.join(bin_dir, "kite-run") + " --device " + run_device + lanes_flag))
# The device's name alone, for commands that name it otherwise (kitec --build).
config.substitutions.append(("%device-name", run_device))
# The interpreter runs every program with --races: a program test whose
# accesses the rules leave unordered fails (--param kite_races=0: without).
if kite_device == "interp":
    races_flag = " --races" if lit_config.params.get("kite_races", "1") != "0" else ""
    config.substitutions.append(("%run", os.path.join(bin_dir, "kite-interp") + races_flag))
    config.available_features.add("interp")
else:
    config.substitutions.append(("%run", os.path.join(bin_dir, "kite-run") + " --device " + kite_device + run_flags))
if run_device != "cpu":
    config.available_features.add("gpu")
    config.available_features.add("wide")  # kite-run's default on a GPU
# %edit-kart changes a header line of an artifact (tests/Inputs/edit-kart.py).
config.substitutions.append(
    ("%edit-kart", "python3 " + os.path.join(config.test_source_root, "Inputs", "edit-kart.py")))
# %exit-status N S cmd...: cmd must exit with status N within S seconds.
config.substitutions.append(
    ("%exit-status", "python3 " + os.path.join(config.test_source_root, "Inputs", "exit-status.py")))
# %repeat N S cmd...: cmd must exit with 0 N times, each within S seconds.
config.substitutions.append(
    ("%repeat", "python3 " + os.path.join(config.test_source_root, "Inputs", "repeat.py")))
config.substitutions.append(("%examples", os.path.join(config.test_source_root, "..", "examples")))
