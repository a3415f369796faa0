// SPDX-License-Identifier: MIT
#pragma once
// Convenience umbrella for the analyses over a TraceSet.
#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/analysis/gpu_projection.h"
#include "gaplens/core/analysis/noise.h"
#include "gaplens/core/analysis/overlap.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/analysis/summaries.h"
