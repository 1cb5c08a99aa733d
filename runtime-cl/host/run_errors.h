// The run-time errors of a Kite program, listed once, as kite-run and
// kite-interp word them. The device reports an error as its code
// (runtime-cl/kite_abi.h, ctl[KITE_CTL_ERROR]) and two numbers
// (ctl64[KITE_CTL64_ERR_A], [KITE_CTL64_ERR_B]); kite-run maps the code
// through this table, and kite-interp names the kind where it fails.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runtime-cl/kite_abi.h"

namespace kite::host {

// X(kind, device code or -1 for none, message, note kite-run adds after it or
// ""). In a message {a} and {b} are the error's numbers, {name} the text
// naming a value, {seconds} a time.
#define KITE_RUN_ERRORS(X)                                                                        \
  X(DivZero, KITE_ERR_DIV_ZERO, "integer division by zero", "")                                   \
  X(Index, KITE_ERR_INDEX, "index {a} out of bounds for array of length {b}", "")                 \
  X(Heap, KITE_ERR_HEAP, "device heap exhausted (try --heap)", "")                                \
  X(Records, KITE_ERR_RECORDS, "task record pool exhausted ({a} records; try --records)",         \
    "unbounded recursion is the usual cause (a task that keeps calling itself); if the program "  \
    "really has this many tasks alive at once, enlarge the pool with --records N")                \
  X(Queue, KITE_ERR_QUEUE, "task queue overflow ({a} entries per worker; try --deque)",           \
    "unbounded recursion is the usual cause (a task that keeps calling itself); if the program "  \
    "really queues this many calls, enlarge each worker's deque with --deque N (a power of two)") \
  X(Print, KITE_ERR_PRINT, "print buffer overflow (try --print-buffer)", "")                      \
  X(Case, KITE_ERR_CASE, "no case branch matches the union's field", "")                          \
  X(Null, KITE_ERR_NULL, "{name} was never given a value", "")                                    \
  X(Length, KITE_ERR_LENGTH, "array length {a} is negative", "")                                  \
  X(Range, KITE_ERR_RANGE, "range [{a}, {b}] has more than 2147483647 elements", "")              \
  X(TooDeep, -1,                                                                                  \
    "task calls nested too deeply ({a} calls deep, more than the interpreter's {b} MiB stack "    \
    "holds; try --stack)",                                                                        \
    "")                                                                                           \
  X(Timeout, -1, "the program did not finish within {seconds:g} s (--timeout)", "")

enum class ErrorKind {
#define KITE_ERROR_KIND(kind, code, message, note) kind,
  KITE_RUN_ERRORS(KITE_ERROR_KIND)
#undef KITE_ERROR_KIND
};

struct ErrorOperands {
  int64_t a = 0, b = 0;
  // Where the compiler gave no name (an artifact's string -1), the value is
  // described: "use of a struct, ... that was never given a value".
  std::string name = "use of a struct, union, tuple or task variable that";
  double seconds = 0;
};

// The error's message.
std::string error_message(ErrorKind kind, const ErrorOperands &operands = {});
// The note kite-run prints after the message, or "".
std::string error_note(ErrorKind kind);
// The kind of the device's error code, if it is one.
std::optional<ErrorKind> error_of_code(int64_t code);

}  // namespace kite::host
