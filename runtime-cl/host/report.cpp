#include "host/report.h"

#include <fmt/format.h>

#include <cstdio>
#include <new>

#include "host/cl.h"

namespace kite::host {

int report_failures(const char *tool, const std::function<int()> &body) {
  try {
    return body();
  } catch (const RunError &e) {
    std::fflush(stdout);
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
  } catch (const std::bad_alloc &) {
    std::fflush(stdout);
    fmt::print(stderr, "{}: error: out of host memory\n", tool);
  } catch (const std::exception &e) {
    std::fflush(stdout);
    fmt::print(stderr, "{}: error: internal: {}\n", tool, e.what());
  }
  return 1;
}

}  // namespace kite::host
