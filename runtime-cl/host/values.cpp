#include "host/values.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace kite::host {
namespace {

template <typename To, typename From>
To bit_cast(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

// [-+](decimal | 0x hex), all of it, within [min, max].
std::optional<int64_t> parse_integer(std::string_view s, int64_t min, int64_t max,
                                     bool *out_of_range) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty() || !std::isxdigit(static_cast<unsigned char>(s[0]))) return std::nullopt;
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
  if (end != s.data() + s.size()) return std::nullopt;
  uint64_t limit = negative ? uint64_t(-(min + 1)) + 1 : uint64_t(max);
  if (ec == std::errc::result_out_of_range || magnitude > limit) {
    *out_of_range = true;
    return std::nullopt;
  }
  if (ec != std::errc()) return std::nullopt;
  return negative ? int64_t(0 - magnitude) : int64_t(magnitude);
}

template <typename T>
std::optional<T> parse_floating(std::string_view s, bool *out_of_range) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return std::nullopt;
  std::string text(s);
  char *end = nullptr;
  errno = 0;
  T value;
  if constexpr (std::is_same_v<T, float>) {
    value = std::strtof(text.c_str(), &end);
  } else {
    value = std::strtod(text.c_str(), &end);
  }
  if (end != text.c_str() + text.size()) return std::nullopt;
  if (errno == ERANGE && std::isinf(value)) {
    *out_of_range = true;
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::optional<Scalar> scalar_type(std::string_view t) {
  if (t == "int") return Scalar::kInt;
  if (t == "long") return Scalar::kLong;
  if (t == "float") return Scalar::kFloat;
  if (t == "double") return Scalar::kDouble;
  if (t == "bool") return Scalar::kBool;
  return std::nullopt;
}

std::string_view scalar_name(Scalar type) {
  switch (type) {
    case Scalar::kInt:
      return "int";
    case Scalar::kLong:
      return "long";
    case Scalar::kFloat:
      return "float";
    case Scalar::kDouble:
      return "double";
    case Scalar::kBool:
      return "bool";
  }
  return "?";
}

std::optional<Scalar> array_element_type(std::string_view t) {
  constexpr std::string_view kOpen = "array<";
  if (t.size() <= kOpen.size() + 1 || t.substr(0, kOpen.size()) != kOpen || t.back() != '>') {
    return std::nullopt;
  }
  return scalar_type(t.substr(kOpen.size(), t.size() - kOpen.size() - 1));
}

size_t element_bytes(Scalar type) {
  return type == Scalar::kLong || type == Scalar::kDouble ? 8 : 4;
}

int64_t load_element(Scalar type, const unsigned char *bytes) {
  if (element_bytes(type) == 8) {
    int64_t bits;
    std::memcpy(&bits, bytes, sizeof bits);
    return bits;
  }
  uint32_t bits;
  std::memcpy(&bits, bytes, sizeof bits);
  // As the scalar's raw bits: an int sign-extended, a float's bits in the low 32.
  return type == Scalar::kInt ? int64_t(int32_t(bits)) : int64_t(bits);
}

void store_element(Scalar type, int64_t bits, unsigned char *bytes) {
  if (element_bytes(type) == 8) {
    std::memcpy(bytes, &bits, sizeof bits);
  } else {
    uint32_t low = static_cast<uint32_t>(bits);
    std::memcpy(bytes, &low, sizeof low);
  }
}

std::string format_scalar(Scalar type, int64_t bits) {
  switch (type) {
    case Scalar::kInt:
      return fmt::format("{}", static_cast<int32_t>(static_cast<uint32_t>(bits)));
    case Scalar::kLong:
      return fmt::format("{}", bits);
    case Scalar::kFloat:
      return fmt::format("{}", bit_cast<float>(static_cast<uint32_t>(bits)));
    case Scalar::kDouble:
      return fmt::format("{}", bit_cast<double>(bits));
    case Scalar::kBool:
      return bits != 0 ? "true" : "false";
  }
  return "?";
}

std::optional<int64_t> parse_scalar(Scalar type, std::string_view text, bool *out_of_range) {
  *out_of_range = false;
  switch (type) {
    case Scalar::kInt:
      return parse_integer(text, std::numeric_limits<int32_t>::min(),
                           std::numeric_limits<int32_t>::max(), out_of_range);
    case Scalar::kLong:
      if (!text.empty() && (text.back() == 'L' || text.back() == 'l')) text.remove_suffix(1);
      return parse_integer(text, std::numeric_limits<int64_t>::min(),
                           std::numeric_limits<int64_t>::max(), out_of_range);
    case Scalar::kFloat: {
      // 1.5f as in Kite source; not the f of "inf" or of a hex float like 0x1f.
      if (text.size() > 1 && (text.back() == 'f' || text.back() == 'F') &&
          (std::isdigit(static_cast<unsigned char>(text[text.size() - 2])) ||
           text[text.size() - 2] == '.') &&
          text.find_first_of("xX") == std::string_view::npos) {
        text.remove_suffix(1);
      }
      auto f = parse_floating<float>(text, out_of_range);
      if (!f) return std::nullopt;
      return int64_t(bit_cast<uint32_t>(*f));  // bits in the low 32, upper 32 zero
    }
    case Scalar::kDouble: {
      auto d = parse_floating<double>(text, out_of_range);
      if (!d) return std::nullopt;
      return bit_cast<int64_t>(*d);
    }
    case Scalar::kBool:
      if (text == "true") return 1;
      if (text == "false") return 0;
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace kite::host
