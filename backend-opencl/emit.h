// OpenCL C generation: the CPS program becomes the uber-kernel's generated
// half (kite_block: one switch case per block code; kite_signal: what each
// finished node and block tells its record; kite_start_main), pasted after
// the scheduler of runtime-cl/. A plan (plan.h) decides what the code holds
// and leaves out; printers (print_*.cpp) write it.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "frontend/source.h"
#include "host/artifact.h"
#include "ir/cps.h"

namespace kite {

// The compiled program: what kitec writes and kite-run reads
// (runtime-cl/host/artifact.h, docs/artifact.md).
using host::Artifact;

struct EmitOptions {
  bool bounds_checks = true;  // check every array index against the length
  // A large program's parts hold at most this many blocks (0: the default,
  // plan::kPartBlocks; backend-opencl/parts.h).
  int part_blocks = 0;
};

// The compiled program; `program` points into the ANF it was lowered from
// (cps::Program::anf), which is all of the source the backend reads.
Artifact emit_opencl(const cps::Program &program, const std::string &source_path,
                     const EmitOptions &options = {});
using host::write_artifact;

// The plan that emit_opencl prints from, as text: the code's shape, and by
// task and block what is held in C variables, which bounds are proved,
// which lengths are known and which atomics are left out.
void dump_plan(const cps::Program &program, std::ostream &out, const EmitOptions &options = {});

}  // namespace kite
