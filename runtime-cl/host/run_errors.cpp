#include "host/run_errors.h"

#include <fmt/format.h>

namespace kite::host {
namespace {

struct ErrorSpec {
  int64_t code;
  const char *message;
  const char *note;
};

const ErrorSpec kErrors[] = {
#define KITE_ERROR_SPEC(kind, code, message, note) {code, message, note},
    KITE_RUN_ERRORS(KITE_ERROR_SPEC)
#undef KITE_ERROR_SPEC
};

const ErrorSpec &spec_of(ErrorKind kind) { return kErrors[static_cast<size_t>(kind)]; }

}  // namespace

std::string error_message(ErrorKind kind, const ErrorOperands &operands) {
  return fmt::format(fmt::runtime(spec_of(kind).message), fmt::arg("a", operands.a),
                     fmt::arg("b", operands.b), fmt::arg("name", operands.name),
                     fmt::arg("seconds", operands.seconds));
}

std::string error_note(ErrorKind kind) { return spec_of(kind).note; }

std::optional<ErrorKind> error_of_code(int64_t code) {
  for (size_t i = 0; i < std::size(kErrors); ++i) {
    if (code >= 0 && kErrors[i].code == code) return static_cast<ErrorKind>(i);
  }
  return std::nullopt;
}

}  // namespace kite::host
