#!/usr/bin/env bash
# Runs the libFuzzer targets of a -DKITE_FUZZ=ON build, each for a bounded
# time, seeded with every .kite file of examples/, tests/, stdlib/ and
# bench/kite/ (gathered afresh, never committed); the opencl target, which
# builds each valid input on PoCL (seconds each), with examples/ only: its
# first pass over all of them took two minutes before it made a single
# input of its own. Fails on the first target
# that finds a crash, a hang (over 10 s per input, 60 s for opencl), an
# internal compiler error or a sanitizer report; the input is then in
# CORPUS/crashes/.
#
#   tests/fuzz/run.sh BUILD SECONDS CORPUS [TARGET...]
#
# BUILD: the build tree (bin/kite-fuzz-*); SECONDS: per target; CORPUS: a
# folder outside the repository where each target keeps what it found
# (CORPUS/<target>) and reuses it on the next run. TARGETS: parse check
# compile opencl (the default: all four).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[ $# -ge 3 ] || { echo "usage: $0 BUILD SECONDS CORPUS [TARGET...]" >&2; exit 2; }
build="$(cd "$1" && pwd)"; seconds="$2"; corpus="$3"; shift 3
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parse check compile opencl)

# The seeds: one file per .kite source, named after its path.
mkdir -p "$corpus/seeds" "$corpus/crashes"
rm -f "$corpus/seeds"/*
(cd "$root" && find examples tests stdlib bench/kite -name '*.kite' -print0) |
  while IFS= read -r -d '' f; do cp "$root/$f" "$corpus/seeds/${f//\//_}"; done
mkdir -p "$corpus/seeds-opencl"
rm -f "$corpus/seeds-opencl"/*
cp "$root"/examples/*.kite "$corpus/seeds-opencl/"

# Kernel caches stay out of the user's home.
export XDG_CACHE_HOME="$corpus/cache"

for t in "${targets[@]}"; do
  mkdir -p "$corpus/$t"
  echo "== kite-fuzz-$t for ${seconds}s"
  # PoCL's builds take seconds, more on a busy machine: a longer limit there.
  limit=10
  seeds="$corpus/seeds"
  if [ "$t" = opencl ]; then
    limit=60
    seeds="$corpus/seeds-opencl"
  fi
  # tests/sanitizers.sh: PoCL's and the OpenCL loader's leaks are theirs.
  "$root/tests/sanitizers.sh" "$build/bin/kite-fuzz-$t" -max_total_time="$seconds" \
    -timeout="$limit" -rss_limit_mb=4096 \
    -dict="$here/kite.dict" -artifact_prefix="$corpus/crashes/$t-" -print_final_stats=1 \
    "$corpus/$t" "$seeds" 2>&1 | grep -v '^#[0-9]*.*\(NEW\|REDUCE\|pulse\)' || {
    echo "kite-fuzz-$t found a problem: $corpus/crashes/" >&2
    exit 1
  }
done
