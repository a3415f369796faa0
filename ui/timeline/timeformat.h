// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/time.h"

#include <QString>

class QFontMetrics;

namespace gaplens::ui {

// The unit a duration of about `ns` is shown in, so the number is in [1, 1000): {1e6, "ms"}.
struct DurationUnit
{
    double ns;
    const char *name;
};
DurationUnit durationUnitFor(double ns);

// "1.235 ms", "17 ns", "2.500 s": picks the unit so the number is in [1, 1000).
QString formatDuration(core::TimeNs ns, int decimals = 3);
// A tick label for t (relative to the ruler origin) on a grid of step ns, on a ruler whose
// labels reach |t| <= maxAbs: the decimals are just enough to tell neighbouring ticks apart,
// and the unit the one that needs the fewest digits for that ("265.5 ms", not "265500 us";
// "150.270 s"); every label of one ruler gets the same unit.
QString formatTick(core::TimeNs t, core::TimeNs step, core::TimeNs maxAbs);
// The smallest 1-2-5 step whose labels (measured with fm over [from, to]) are at least
// minGapPx apart from each other at nsPerPx, so labels never overlap.
core::TimeNs tickStep(double nsPerPx, core::TimeNs from, core::TimeNs to, const QFontMetrics &fm, int minGapPx = 16);
// Parses "1.5ms", "20us", "3" (seconds), "250 ns" into ns; false on garbage.
bool parseDuration(const QString &text, core::TimeNs &out);

} // namespace gaplens::ui
