#!/usr/bin/env bash
# Times kite-run fib N against a sequential C++ fib(N) on this machine, side
# by side, and prints the ratio. Usage: bench/fib.sh [N] [kite-run options]
# (e.g. bench/fib.sh 30 --device gpu). Run after building into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-30}
shift || true
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
g++ -O2 -o "$out/fib_seq" bench/fib_seq.cpp
build/bin/kitec examples/fib.kite -o "$out/fib"
build/bin/kite-run "$@" "$out/fib" 1 >/dev/null  # warm the kernel cache

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seq_ms=(); kite_ms=(); kite_total_ms=()
for i in 1 2 3 4 5; do
  seq_ms+=("$("$out/fib_seq" "$n" 2>&1 >/dev/null | awk '{print $3}')")
  start=$(date +%s.%N)
  kite_ms+=("$(build/bin/kite-run -t "$@" "$out/fib" "$n" 2>&1 >/dev/null | awk '/time: run/ {print $4}')")
  end=$(date +%s.%N)
  kite_total_ms+=("$(awk -v a="$start" -v b="$end" 'BEGIN {print (b - a) * 1000}')")
done
s=$(printf '%s\n' "${seq_ms[@]}" | median)
k=$(printf '%s\n' "${kite_ms[@]}" | median)
t=$(printf '%s\n' "${kite_total_ms[@]}" | median)
printf 'fib(%s), median of 5\n' "$n"
printf '  sequential C++ (g++ -O2)     %10.1f ms\n' "$s"
printf '  kite-run, device run only    %10.1f ms   (%.2fx the sequential time)\n' "$k" "$(awk -v a="$k" -v b="$s" 'BEGIN {print a / b}')"
printf '  kite-run, whole process      %10.1f ms   (%.2fx)\n' "$t" "$(awk -v a="$t" -v b="$s" 'BEGIN {print a / b}')"
