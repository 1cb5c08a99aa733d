// Shared by the C++ peers of the Kite benchmarks: Kite's hash (the
// splitmix64 finaliser of runtime-cl/device/errors.cl's kite_hash) and a timer
// that prints the time of the measured part as `time: X ms` on stderr.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

inline int64_t kite_hash(int64_t x) {
  uint64_t z = (uint64_t)x + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (int64_t)(z ^ (z >> 31));
}

// Runs f() and prints how long it took on stderr; returns its result.
template <class F>
auto timed(F f) {
  auto t0 = std::chrono::steady_clock::now();
  auto r = f();
  auto t1 = std::chrono::steady_clock::now();
  std::fprintf(stderr, "time: %.3f ms\n",
               std::chrono::duration<double, std::milli>(t1 - t0).count());
  return r;
}

inline int arg(int argc, char **argv, int i, int fallback) {
  return i < argc ? std::atoi(argv[i]) : fallback;
}
