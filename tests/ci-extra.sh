#!/usr/bin/env bash
# CI after the quick start's build and tests (.ci/run): one Clang build with
# AddressSanitizer, UndefinedBehaviorSanitizer and the fuzz targets
# (build-fuzz, -DKITE_FUZZ=ON), which runs the whole test suite and then
# every libFuzzer target for a bounded time. Fails on any test failure,
# sanitizer report or fuzzer finding. docs/testing.md has the details and
# timings.
#
#   tests/ci-extra.sh [FUZZ_SECONDS]    (per target; default 15)
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds="${1:-15}"
jobs="$(nproc)"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -qq --no-install-recommends clang-14 libclang-rt-14-dev clang-format-14 \
  >/dev/null

step() { echo "== $1 (at ${SECONDS}s)"; }

step "formatting: every C++ file as clang-format-14 writes it with .clang-format"
# Not kite_abi.h: every artifact carries its text in its OpenCL C, which
# would change with its layout.
git ls-files '*.cpp' '*.h' ':!runtime-cl/kite_abi.h' | xargs clang-format-14 --dry-run --Werror

step "sanitizer and fuzzing build (Clang, address,undefined) into build-fuzz"
# One build for both: every target with the sanitizers (KITE_FUZZ implies
# them), and the fuzz targets; a second, GCC sanitizer build took as long as
# the sanitized suite (docs/testing.md, "Times").
# Line tables are all the sanitizers' reports need, and cheaper to build
# than full debug information.
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKITE_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" >/dev/null
cmake --build build-fuzz -j"$jobs"

step "the test suite under the sanitizers"
# The kernels are those the Release run just built: its kernel cache spares
# PoCL rebuilding each one, most of the sanitized suite's time (the OpenCL C
# is the same; PoCL is not the project's code). docs/testing.md has times.
if [ -d build/test-cache ] && [ ! -e build-fuzz/test-cache ]; then
  cp -a build/test-cache build-fuzz/test-cache
fi
# tests/sanitizers.sh sets the sanitizers' options and the suppressions for
# PoCL and the OpenCL loader.
# The kernel-building differential run is left to the Release suite, and so
# are the wide-worker runs (lit-wide/...) and those that force sequential
# forms (lit-fast/...) or split programs into parts (lit-parts/...): they
# differ from lit/... in the device code, which the sanitizers do not see,
# more than in the host's (whose code for parts lit/plan's parts.kite and
# lit/runtime's parts_rebuild.kite run, build processes and all). The
# program tests in kite-interp (lit-interp/...) are left out too: the
# interpreter runs a thousand generated programs here (difftest-interp).
# The documentation's examples (lit/docs) are left to the Release suite as
# well: they are programs like the program tests', through the same host
# code.
tests/sanitizers.sh ctest --test-dir build-fuzz --output-on-failure -j"$jobs" \
  -E "^(difftest|lit-wide/.*|lit-fast/.*|lit-parts/.*|lit-interp/.*|lit/docs)$"

step "each fuzz target for ${fuzz_seconds}s"
tests/fuzz/run.sh build-fuzz "$fuzz_seconds" build-fuzz/corpus

step "done"
