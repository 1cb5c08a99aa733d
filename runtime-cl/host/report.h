// How kite-run and kite-interp end on a failure.
#pragma once

#include <functional>

namespace kite::host {

// Runs a tool's body and returns its exit status. A RunError, running out of
// host memory or any other exception becomes "<tool>: error: <message>" on
// stderr, after everything already printed, and exit status 1.
int report_failures(const char *tool, const std::function<int()> &body);

}  // namespace kite::host
