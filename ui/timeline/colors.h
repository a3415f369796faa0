// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/model/trace.h"

#include <QColor>

#include <string_view>

namespace gaplens::ui {

// NCCL kernels ("ncclKernel_AllReduce...", "ncclDevKernel_...") get their own hue family.
bool isNcclName(std::string_view name);
// Stable colour per kernel name (FNV hash -> hue): the same name has the same colour in every
// run and every rank. Kernels are greens to blues, NCCL kernels violets: the warm hues are
// the gap causes' alone (isCauseHue).
QColor kernelColor(std::string_view name);
// Softer colours for NVTX ranges and CUDA API calls (synchronisation calls stand out).
QColor nvtxColor(std::string_view name);
QColor apiColor(std::string_view name);
QColor copyColor(core::CopyKind kind);
// OS runtime calls by category (core::osCategoryOf): cool, muted hues and greys, never a
// cause's warm hue, so an OS row under an orange "host busy" gap reads as the host's doing.
QColor osCategoryColor(core::OsCategory category);
// Run-accounting states (the state lanes, the Run accounting panel): greens, blues, violets and
// a grey, never a cause's warm hue, so a checkpoint is never read as an idle-gap cause.
QColor runStateColor(core::RunState state);
// A GPU's memory-in-use counter: a cool teal, apart from the causes and the kernels' greens.
QColor memoryCounterColor();
// The one palette of gap causes: the timeline's bands, the legend, the Gap Blame chart and
// table, the compare panel, exports and reports all take their colour from here.
QColor gapCauseColor(core::GapCause cause);
// The shade-th colour of a cause, for the several keys of one cause (one per CUDA call name):
// shade 0 is gapCauseColor, then alternately darker and lighter.
QColor gapCauseShade(core::GapCause cause, int shade);
// Whether a colour is in the causes' warm hue range (no other colour may be).
bool isCauseHue(const QColor &color);
// Short legend label: "queued", "API call", "host busy".
QString gapCauseShortLabel(core::GapCause cause);
// Black or white, whichever reads better on background.
QColor textColorOn(const QColor &background);

} // namespace gaplens::ui
