#include "host/args.h"

#include <fmt/format.h>

#include "host/cl.h"
#include "host/values.h"
#include "runtime-cl/kite_abi.h"

namespace kite::host {
namespace {

std::string signature(const std::vector<Param> &params) {
  std::string s;
  for (const Param &p : params) {
    if (!s.empty()) s += ", ";
    s += fmt::format("{}: {}", p.name, p.type);
  }
  return s;
}

}  // namespace

std::vector<int64_t> convert_args(const Artifact &artifact, const std::vector<std::string> &args) {
  const std::vector<Param> &params = artifact.params;
  for (const Param &p : params) {
    if (!scalar_type(p.type)) {
      throw RunError(fmt::format("parameter '{}' of type {} is not supported yet", p.name, p.type));
    }
  }
  if (params.size() > KITE_MAX_MAIN_ARGS) {
    throw RunError(fmt::format("main has {} parameters; kite-run passes at most {}", params.size(),
                               KITE_MAX_MAIN_ARGS));
  }
  if (args.size() != params.size()) {
    if (params.empty()) {
      throw RunError(fmt::format("main takes no arguments, {} given", args.size()));
    }
    throw RunError(fmt::format("main takes {} argument{} ({}), {} given", params.size(),
                               params.size() == 1 ? "" : "s", signature(params), args.size()));
  }
  std::vector<int64_t> bits;
  for (size_t i = 0; i < params.size(); ++i) {
    bool out_of_range = false;
    auto value = parse_scalar(*scalar_type(params[i].type), args[i], &out_of_range);
    if (!value) {
      throw RunError(fmt::format("cannot read '{}' as {} for parameter '{}'{}", args[i],
                                 params[i].type, params[i].name,
                                 out_of_range ? " (out of range)" : ""));
    }
    bits.push_back(*value);
  }
  return bits;
}

}  // namespace kite::host
