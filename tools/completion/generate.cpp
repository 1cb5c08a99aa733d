// Writes the bash completion script: the template kite.bash.in with each
// @KITE_RUN_...@ and @KITE_INTERP_...@ replaced by the options of kite-run's
// table (runtime-cl/host/options.h) that the tool takes: all of them
// (_OPTIONS@), those taking a number or a size (_NUMBERS@), a file (_FILES@)
// and a device (_DEVICES@), as words separated by spaces.
//
//   generate TEMPLATE OUTPUT
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "host/options.h"

namespace {

using kite::host::OptionSpec;
using kite::host::Tool;

// The names of `tool`'s options whose value is of the kind `kind`:
// "" all of them, "FILE", "DEVICE", or "NUMBER" for any other value.
std::string words(Tool tool, const std::string &kind) {
  std::string text;
  for (const OptionSpec &spec : kite::host::option_specs()) {
    if (!kite::host::tool_takes(tool, spec)) continue;
    const std::string value = spec.value;
    bool wanted = kind.empty() || value == kind ||
                  (kind == "NUMBER" && !value.empty() && value != "FILE" && value != "DEVICE");
    if (!wanted) continue;
    for (const std::string &name : kite::host::names_of(spec))
      text += (text.empty() ? "" : " ") + name;
  }
  return text;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: generate TEMPLATE OUTPUT\n";
    return 1;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << "generate: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::string script = text.str();
  for (auto [tool, prefix] : {std::pair{Tool::Run, "KITE_RUN"}, {Tool::Interp, "KITE_INTERP"}}) {
    for (auto [suffix, kind] : {std::pair{"OPTIONS", ""},
                                {"NUMBERS", "NUMBER"},
                                {"FILES", "FILE"},
                                {"DEVICES", "DEVICE"}}) {
      const std::string placeholder = fmt::format("@{}_{}@", prefix, suffix);
      const std::string replacement = words(tool, kind);
      for (size_t at; (at = script.find(placeholder)) != std::string::npos;)
        script.replace(at, placeholder.size(), replacement);
    }
  }
  if (size_t at = script.find("@KITE_"); at != std::string::npos) {
    std::cerr << "generate: " << argv[1] << " has an unknown placeholder at offset " << at << "\n";
    return 1;
  }
  std::ofstream out(argv[2]);
  out << script;
  if (!out) {
    std::cerr << "generate: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
