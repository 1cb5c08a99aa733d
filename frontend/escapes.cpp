// C's escape sequences (escapes.h).
#include "frontend/escapes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace kite {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Escape read_escape(std::string_view text, size_t at) {
  Escape out;
  size_t i = at;
  char esc = text[i++];
  switch (esc) {
    case 'n':
      out.value = '\n';
      break;
    case 't':
      out.value = '\t';
      break;
    case 'r':
      out.value = '\r';
      break;
    case '\\':
      out.value = '\\';
      break;
    case '"':
      out.value = '"';
      break;
    case '\'':
      out.value = '\'';
      break;
    case '?':
      out.value = '?';
      break;
    case 'a':
      out.value = '\a';
      break;
    case 'b':
      out.value = '\b';
      break;
    case 'f':
      out.value = '\f';
      break;
    case 'v':
      out.value = '\v';
      break;
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
      int value = esc - '0';
      for (int digits = 1; digits < 3 && i < text.size() && text[i] >= '0' && text[i] <= '7';
           ++digits)
        value = value * 8 + (text[i++] - '0');
      if (value > 0xff)
        out.error = "octal escape sequence out of range (at most \\377)";
      else
        out.value = value;
      break;
    }
    case 'x': {
      // Every hex digit that follows; the value stops growing past 0x100,
      // which is out of range however many digits come.
      int value = 0, digits = 0;
      for (; i < text.size() && hex_digit(text[i]) >= 0; ++digits)
        value = std::min(value * 16 + hex_digit(text[i++]), 0x100);
      if (digits == 0)
        out.error = "\\x used with no following hex digits";
      else if (value > 0xff)
        out.error = "hex escape sequence out of range (at most \\xff)";
      else
        out.value = value;
      break;
    }
    default:
      if (uint8_t(esc) >= 0x20 && uint8_t(esc) < 0x7f)
        out.error = fmt::format("unknown escape sequence '\\{}'", esc);
      else
        out.error = "unknown escape sequence";
  }
  out.end = i;
  return out;
}

}  // namespace kite
