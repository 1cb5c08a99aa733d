// kite-run --trace: the workers' busy spans as a Chrome trace-event JSON
// file that Perfetto (ui.perfetto.dev) and chrome://tracing open: one track
// per worker, a slice per span with its block count and whether its first
// block was stolen. Spans are recorded by the scheduler only where a worker
// starts or runs dry, never per block, so tracing barely changes the run.
#pragma once

#include <string>
#include <vector>

#include "host/launch.h"

namespace kite::host {

// `clock_ns`: span times are ns of a device clock; else ticks of the
// scheduler's logical clock (blocks run by all workers), written as µs.
// `lost`: spans the full trace buffers did not record. Throws RunError.
void write_trace(const std::string &path, const std::vector<Span> &spans, uint32_t workers,
                 bool clock_ns, int64_t lost, const std::string &device_name);

}  // namespace kite::host
