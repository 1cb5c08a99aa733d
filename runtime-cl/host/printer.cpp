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
    case KITE_PRINT_RANGE: {
      auto first = static_cast<int32_t>(static_cast<uint32_t>(value));
      auto last = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(value) >> 32));
      return fmt::format("[{}, {}]", first, last);
    }
    default:
      throw RunError(fmt::format("internal: print record item with unknown tag {}", tag));
  }
}

std::string Printer::format_record(const int64_t *pairs, int64_t n) const {
  // The containers still open, innermost last, each with the items it still
  // expects. Iterative: nesting depth is the kernel's business, not the stack's.
  struct Open {
    char close;
    int64_t left;
  };
  std::vector<Open> open;
  std::string line;
  bool first = true;  // the next item is the first of its container (or line)
  for (int64_t i = 0; i < n; ++i) {
    const int64_t tag = pairs[2 * i], value = pairs[2 * i + 1];
    if (!first) line += open.empty() ? " " : ", ";
    first = false;
    if (tag == KITE_PRINT_LIST || tag == KITE_PRINT_TUPLE) {
      if (value < 0 || value > n - i - 1) {
        throw RunError(fmt::format("internal: print record {} of {} items at item {} of {}",
                                   tag == KITE_PRINT_LIST ? "list" : "tuple", value, i, n));
      }
      line += tag == KITE_PRINT_LIST ? '[' : '(';
      if (value > 0) {
        open.push_back({tag == KITE_PRINT_LIST ? ']' : ')', value});
        first = true;
        continue;
      }
      line += tag == KITE_PRINT_LIST ? ']' : ')';
    } else {
      line += format_item(tag, value);
    }
    // One item is whole: it may complete the containers around it.
    while (!open.empty() && --open.back().left == 0) {
      line += open.back().close;
      open.pop_back();
    }
  }
  if (!open.empty()) {
    throw RunError(fmt::format(
        "internal: print record of {} items ends inside a container that expects {} more", n,
        open.back().left));
  }
  return line;
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
      std::string line = format_record(records + pos + 1, n);
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
