// Kite scalar values as the device holds them: raw bits in one long.
// Shared by argument conversion (text -> bits) and printing (bits -> text).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kite::host {

enum class Scalar { kInt, kLong, kFloat, kDouble, kBool };

// The scalar a Kite type spelling names, or nothing ("unit", "array<int>", ...).
std::optional<Scalar> scalar_type(std::string_view kite_type);

// The Kite spelling of a scalar type: "int", "long", ...
std::string_view scalar_name(Scalar type);

// The element type of an array of scalars ("array<int>" -> int), or nothing
// (a scalar, "array<array<int>>", a struct, ...).
std::optional<Scalar> array_element_type(std::string_view kite_type);

// Bytes per element of an array of `type` in the device heap (kite_abi.h): 4
// for int, float and bool, 8 for long and double.
size_t element_bytes(Scalar type);

// The element at `bytes` (element_bytes(type) of them, little-endian as on
// every OpenCL device kite-run meets) as raw bits, and back.
int64_t load_element(Scalar type, const unsigned char *bytes);
void store_element(Scalar type, int64_t bits, unsigned char *bytes);

// Decimal for int and long, true/false for bool, and for float and double the
// shortest text that reads back as the same value ({fmt}'s "{}": 1.5, 2, 0.1,
// 1e+20, inf, nan).
std::string format_scalar(Scalar type, int64_t bits);

// Reads an argument as written on the command line; nothing if it is not one.
// int, long: decimal or 0x-hex, optional sign (long also takes a trailing L);
// float, double: anything strtod reads (float also takes a trailing f);
// bool: true or false. Sets *out_of_range where that is why it failed.
std::optional<int64_t> parse_scalar(Scalar type, std::string_view text, bool *out_of_range);

}  // namespace kite::host
