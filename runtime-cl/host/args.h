// main's arguments: command-line text -> raw bits for ctl64[KITE_CTL64_ARGS + i].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/artifact.h"

namespace kite::host {

// Converts each argument to the type of the matching parameter of main: ints
// sign-extended to long, a float's bits in the low 32, a double's bits, a bool
// as 0 or 1. Throws RunError on a wrong count, unreadable text, or a parameter
// type kite-run cannot pass yet (arrays and other heap values).
std::vector<int64_t> convert_args(const Artifact &artifact, const std::vector<std::string> &args);

}  // namespace kite::host
