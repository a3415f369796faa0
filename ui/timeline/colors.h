// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/model/trace.h"

#include <QColor>

#include <string_view>

namespace gaplens::ui {

// NCCL kernels ("ncclKernel_AllReduce...", "ncclDevKernel_...") get their own hue family.
bool isNcclName(std::string_view name);
// Stable colour per kernel name (FNV hash -> hue): the same name has the same colour in every
// run and every rank. NCCL kernels are red/orange; all others avoid that hue range.
QColor kernelColor(std::string_view name);
// Softer colours for NVTX ranges and CUDA API calls (synchronisation calls stand out).
QColor nvtxColor(std::string_view name);
QColor apiColor(std::string_view name);
QColor copyColor(core::CopyKind kind);
QColor gapCauseColor(core::GapCause cause);
// Short legend label: "queued", "API call", "host busy".
QString gapCauseShortLabel(core::GapCause cause);
// Black or white, whichever reads better on background.
QColor textColorOn(const QColor &background);

} // namespace gaplens::ui
