// SPDX-License-Identifier: MIT
#pragma once
// The timeline's API hands indices across as core's strong types (core::GpuIndex, RankIndex,
// StreamIndex, ThreadIndex) while the trace's vectors are indexed by plain uint32_t: at()
// indexes one with the other, so a call site reads at(t->gpus, hit.gpu), not
// t->gpus[hit.gpu.value()], and inRange() is the bound check that goes with it.
#include "gaplens/core/util/index.h"

namespace gaplens::ui {

template <class V, class Tag> decltype(auto) at(V &v, core::Index<Tag> i)
{
    return v[i.value()];
}

// Whether `i` indexes `v` (never for an invalid index).
template <class V, class Tag> bool inRange(const V &v, core::Index<Tag> i)
{
    return i.value() < v.size();
}

} // namespace gaplens::ui
