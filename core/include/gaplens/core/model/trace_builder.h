// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/trace.h"

namespace gaplens::core {

// Turns freshly filled columns into the immutable model's invariants: sorts every track
// by (start, end desc), computes nesting depths and indices, the threads by process and
// what findLaunch needs, the GPUs' rank lists and the capture's span.
// The reader calls it once after loading; tests call it after filling columns by hand.
// Independent tracks are finalized on up to `threads` threads (0: one per core).
void finalizeTraceSet(TraceSet &trace, unsigned threads = 0);

} // namespace gaplens::core
