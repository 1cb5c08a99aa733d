#include "host/source.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "driver/pipeline.h"
#include "host/cl.h"

namespace kite::host {

bool is_kite_source(const std::string &path) {
  constexpr std::string_view kSuffix = ".kite";
  return path.size() > kSuffix.size() &&
         path.compare(path.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
}

std::optional<Artifact> compile_source(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RunError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw RunError(fmt::format("cannot read '{}'", path));

  CompileOptions options;
  options.input = path;
  SourceFile file(path, text.str());
  kite::Artifact compiled;
  if (compile(file, options, std::cerr, compiled) != 0) return std::nullopt;
  // Through the artifact's text, so that the program kite-run runs is the
  // file kitec would have written, checked the same way.
  std::ostringstream artifact;
  write_artifact(compiled, artifact);
  return parse_artifact(artifact.str(), path);
}

}  // namespace kite::host
