#include "host/printer.h"

#include <fmt/format.h>

#include "host/cl.h"
#include "host/values.h"
#include "runtime-cl/kite_abi.h"

namespace kite::host {

std::string Printer::format_item(int64_t tag, int64_t value) const {
  switch (tag) {
    case KITE_PRINT_INT:
      return format_scalar(Scalar::kInt, value);
    case KITE_PRINT_LONG:
      return format_scalar(Scalar::kLong, value);
    case KITE_PRINT_FLOAT:
      return format_scalar(Scalar::kFloat, value);
    case KITE_PRINT_DOUBLE:
      return format_scalar(Scalar::kDouble, value);
    case KITE_PRINT_BOOL:
      return format_scalar(Scalar::kBool, value);
    case KITE_PRINT_STRING:
      if (value < 0 || static_cast<uint64_t>(value) >= artifact_.strings.size()) {
        throw RunError(fmt::format("internal: print record names string {} of {}", value,
                                   artifact_.strings.size()));
      }
      return artifact_.strings[value];
    default:
      throw RunError(fmt::format("internal: print record item with unknown tag {}", tag));
  }
}

void Printer::drain(const int64_t *records, size_t count, bool overflowed) {
  fmt::memory_buffer text;
  auto flush = [&] {
    std::fwrite(text.data(), 1, text.size(), out_);
    std::fflush(out_);
  };
  size_t pos = 0;
  try {
    while (pos < count) {
      int64_t n = records[pos];
      if (n < 0 || static_cast<uint64_t>(n) > (count - pos - 1) / 2) {
        if (overflowed) break;
        throw RunError(fmt::format(
            "internal: malformed print record at long {} of the print buffer ({} items)", pos, n));
      }
      std::string line;
      for (int64_t i = 0; i < n; ++i) {
        if (i > 0) line += ' ';
        line += format_item(records[pos + 1 + 2 * i], records[pos + 2 + 2 * i]);
      }
      line += '\n';
      text.append(line.data(), line.data() + line.size());
      pos += 1 + 2 * n;
      ++lines_;
    }
  } catch (const RunError &) {
    flush();  // the good lines before the bad record
    throw;
  }
  flush();
}

}  // namespace kite::host
