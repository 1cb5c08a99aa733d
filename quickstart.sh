#!/usr/bin/env bash
# Installs kitec's dependencies (Debian 12), builds kitec and kite-run into
# build/bin, and runs examples/fib.kite on the CPU.
set -euo pipefail
cd "$(dirname "$0")"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  g++ make cmake python3 antlr4 libantlr4-runtime-dev libfmt-dev \
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd doctest-dev libcli11-dev \
  llvm-14-tools >/dev/null

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"

build/bin/kitec examples/fib.kite -o build/fib
echo "fib(25) on the CPU:"
build/bin/kite-run --device cpu build/fib 25
