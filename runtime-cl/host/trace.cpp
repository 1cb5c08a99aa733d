#include "host/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "host/cl.h"

namespace kite::host {

namespace {

std::string json_string(const std::string &s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\')
      out += '\\', out += char(ch);
    else if (ch < 0x20)
      out += fmt::format("\\u{:04x}", ch);
    else
      out += char(ch);
  }
  return out + "\"";
}

}  // namespace

void write_trace(const std::string &path, const std::vector<Span> &spans, uint32_t workers,
                 bool clock_ns, int64_t lost, const std::string &device_name) {
  std::FILE *f = std::fopen(path.c_str(), "w");
  if (!f) throw RunError(fmt::format("cannot write the trace to '{}'", path));
  int64_t origin = spans.empty() ? 0 : spans.front().start;
  for (const Span &s : spans) origin = std::min(origin, s.start);
  // Trace-event times are µs: ns / 1000, or one per block of the logical clock.
  auto us = [&](int64_t t) { return clock_ns ? double(t - origin) / 1000.0 : double(t - origin); };
  fmt::print(f,
             "{{\"displayTimeUnit\": \"ns\", \"otherData\": {{\"device\": {}, \"clock\": {}, "
             "\"spans lost\": {}}},\n\"traceEvents\": [\n",
             json_string(device_name),
             json_string(clock_ns ? "device ns" : "logical: 1 us per block run by any worker"),
             lost);
  fmt::print(f,
             "{{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {{\"name\": "
             "\"kite-run workers\"}}}}");
  for (uint32_t w = 0; w < workers; ++w)
    fmt::print(f,
               ",\n{{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": {}, "
               "\"args\": {{\"name\": \"worker {}\"}}}}",
               w, w);
  for (const Span &s : spans)
    fmt::print(f,
               ",\n{{\"name\": \"{}\", \"ph\": \"X\", \"pid\": 0, \"tid\": {}, \"ts\": {:.3f}, "
               "\"dur\": {:.3f}, \"args\": {{\"blocks\": {}}}}}",
               s.stolen ? "stolen work" : "own work", s.worker, us(s.start),
               std::max(us(s.end) - us(s.start), 0.0), s.blocks);
  fmt::print(f, "\n]}}\n");
  if (std::fclose(f) != 0) throw RunError(fmt::format("cannot write the trace to '{}'", path));
}

}  // namespace kite::host
