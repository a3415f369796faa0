// SPDX-License-Identifier: MIT
#pragma once
#include "ui/timeline/hitresult.h"

#include <QString>

namespace gaplens::ui {

class TimelineModel;

// Plain-text tooltip for a hit: kernel (name, duration, start, stream, grid, block, registers,
// shared memory), copy (kind, bytes, bandwidth), API call, NVTX range (name, duration, depth),
// NVTX mark (name, time, domain, thread), fold ("1,234 kernels"), gap (length, cause, API
// call, NVTX phase). Sizes in binary units (core::formatBytes). Start times are shown
// relative to the ruler origin. Empty for no hit.
QString tooltipText(const TimelineModel &model, const HitResult &hit);
// The same facts as rich text for the details panel, plus identifiers.
QString detailsHtml(const TimelineModel &model, const HitResult &hit);
// "12,345 kernels" / "1 NVTX range"
QString countText(std::uint64_t count, HitKind kind);

} // namespace gaplens::ui
