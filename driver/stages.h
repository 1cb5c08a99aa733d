// kitec's stages (driver/stages.def lists them): what compile() runs, what
// -O0 leaves out and what the --dump-… options print come from that list.
#pragma once

#include <string>

namespace kite {

enum class Stage {
#define KITE_STAGE(name, ir, o0, flag, what) name,
#include "driver/stages.def"
#undef KITE_STAGE
  none,  // no stage: nothing dumped
};

// The IRs a stage may leave the program in.
enum class Ir { Ast, Anf, Ntg, Cps, Plan, OpenCl };

// What -O0 does with a stage.
enum class O0 { Run, Skip };

struct StageInfo {
  Stage stage;
  const char *name;
  Ir ir;
  O0 o0;
  const char *flag;  // its dump's own option, or ""
  const char *what;
};

inline constexpr StageInfo kStages[] = {
#define KITE_STAGE(name, ir, o0, flag, what) {Stage::name, #name, Ir::ir, O0::o0, flag, what},
#include "driver/stages.def"
#undef KITE_STAGE
};

inline const StageInfo &info(Stage s) { return kStages[int(s)]; }

// The stage --dump-after calls `name`, or Stage::none.
inline Stage find_stage(const std::string &name) {
  for (const StageInfo &s : kStages)
    if (name == s.name) return s.stage;
  return Stage::none;
}

}  // namespace kite
