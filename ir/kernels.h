// Map kernels: which maps may run as an OpenCL kernel of their own, one
// work-item per iteration, while the task that started them waits.
//
// kitec emits such a kernel for every chunked map (a map whose body calls
// no task, ir/cps.h) and every reduction that is not a scan
// (ir/reductions.h) whose body also allocates nothing and prints nothing:
// a work-item has no worker's heap chunk and cannot stop the launch for the
// host to drain printed output. On a GPU, kite-run runs a long map of this
// kind as that kernel (docs/design.md, "Maps as kernels").
#pragma once

#include "ir/cps.h"

namespace kite::kernels {

// Marks those maps and reductions (cps::Op::kernel): the chunked ones,
// not scans, whose bodies allocate nothing (new, constructors, tuples,
// anonymous tasks, futures) and print nothing, anywhere in them.
void mark(cps::Program &blocks);

}  // namespace kite::kernels
