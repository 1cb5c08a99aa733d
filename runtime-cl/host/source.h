// kite-run prog.kite: a Kite source compiled in-process by kitec's pipeline
// (driver/pipeline.h), then run like the artifact kitec would have written.
#pragma once

#include <optional>
#include <string>

#include "host/artifact.h"

namespace kite::host {

// Whether kite-run treats `path` as a Kite source rather than an artifact:
// its name ends in ".kite".
bool is_kite_source(const std::string &path);

// Compiles the source at `path` as `kitec path` would and returns the
// artifact it would write; nothing when the source has errors, which have
// then been reported on stderr exactly as kitec reports them. Throws RunError
// when the file cannot be read.
std::optional<Artifact> compile_source(const std::string &path);

}  // namespace kite::host
