// main's arguments: command-line text -> raw bits for ctl64[KITE_CTL64_ARGS + i],
// and main's array arguments as they go into the device heap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/artifact.h"

namespace kite::host {

struct MainArgs {
  // One long per parameter: ints sign-extended to long, a float's bits in the
  // low 32, a double's bits, a bool as 0 or 1, an array as its heap ref.
  std::vector<int64_t> bits;
  // heap[0 .. heap.size()): KITE_HEAP_FIRST zero longs, then each array
  // argument (kite_abi.h's layout: its length, then its packed elements, from
  // a long boundary). heap.size() is where ctl64[KITE_CTL64_HEAP_BUMP] starts.
  std::vector<int64_t> heap;
};

// Converts each argument to the type of the matching parameter of main. A
// scalar as parse_scalar reads it; an array of scalars as `[1, 2, 3]` or
// `@path` (a file of values separated by white space), each element as a
// scalar. Throws RunError on a wrong count, unreadable text, an unreadable
// file, or a parameter type kite-run cannot pass yet (nested arrays, structs,
// tuples).
MainArgs convert_args(const Artifact &artifact, const std::vector<std::string> &args);

}  // namespace kite::host
