// SPDX-License-Identifier: MIT
#include "ui/timeline/timeformat.h"

#include "gaplens/core/util/units.h"

#include <QFontMetrics>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace gaplens::ui {
DurationUnit durationUnitFor(double ns)
{
    const double a = std::abs(ns);
    if (a >= 1e9)
        return { 1e9, "s" };
    if (a >= 1e6)
        return { 1e6, "ms" };
    if (a >= 1e3)
        return { 1e3, "us" };
    return { 1, "ns" };
}

QString formatDuration(core::TimeNs ns, int decimals)
{
    const DurationUnit u = durationUnitFor(double(ns));
    if (u.ns == 1)
        return QString::number(ns) + QStringLiteral(" ns");
    return QString::number(double(ns) / u.ns, 'f', decimals) + QLatin1Char(' ') + QLatin1String(u.name);
}

namespace {

// Decimals needed to show multiples of step in unit: 0.2 ms -> 1, 0.05 ms -> 2.
int decimalsFor(core::TimeNs step, double unitNs)
{
    const double stepInUnit = double(step) / unitNs;
    int decimals = 0;
    // Until the step, scaled, is a whole non-zero number (a step below the unit is not 0).
    auto whole = [&](double x) { return std::round(x) >= 1 && std::abs(x - std::round(x)) <= 1e-6 * x; };
    while (decimals < 9 && !whole(stepInUnit * std::pow(10.0, decimals)))
        ++decimals;
    return decimals;
}

struct TickUnit
{
    DurationUnit unit;
    int decimals;
};

// The unit with the fewest digits (integer part, a leading "0." counted as two, plus the
// decimals); ties go to the larger unit.
TickUnit tickUnit(core::TimeNs step, core::TimeNs maxAbs)
{
    static constexpr DurationUnit kUnits[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" } };
    TickUnit best { kUnits[3], 0 };
    int bestDigits = std::numeric_limits<int>::max();
    for (const auto &unit : kUnits) {
        const int decimals = decimalsFor(step, unit.ns);
        const double whole = double(std::max<core::TimeNs>(maxAbs, 1)) / unit.ns;
        const int integerDigits = whole < 1 ? 2 : int(std::floor(std::log10(whole))) + 1;
        const int digits = integerDigits + decimals;
        if (digits < bestDigits) {
            bestDigits = digits;
            best = { unit, decimals };
        }
    }
    return best;
}

} // namespace

QString formatTick(core::TimeNs t, core::TimeNs step, core::TimeNs maxAbs)
{
    const TickUnit u = tickUnit(step, maxAbs);
    return QString::number(double(t) / u.unit.ns, 'f', u.decimals) + QLatin1Char(' ') + QLatin1String(u.unit.name);
}

core::TimeNs tickStep(double nsPerPx, core::TimeNs from, core::TimeNs to, const QFontMetrics &fm, int minGapPx)
{
    if (nsPerPx <= 0)
        return 1;
    static const int kMantissa[] = { 1, 2, 5 };
    for (core::TimeNs decade = 1; decade < core::TimeNs(1e17); decade *= 10) {
        for (int m : kMantissa) {
            const core::TimeNs step = decade * m;
            const double stepPx = double(step) / nsPerPx;
            if (stepPx < 20)
                continue;
            // The widest labels are at the window edges (most digits); measure both.
            const core::TimeNs maxAbs = std::max(std::abs(from), std::abs(to));
            const int w = std::max(fm.horizontalAdvance(formatTick(from, step, maxAbs)),
                fm.horizontalAdvance(formatTick(to, step, maxAbs)));
            if (stepPx >= w + minGapPx)
                return step;
        }
    }
    return core::TimeNs(1e17);
}

bool parseDuration(const QString &text, core::TimeNs &out)
{
    // core's one duration parser, which the CLI's --interval reads too.
    const auto ns = core::parseDuration(text.trimmed().toStdString());
    if (!ns)
        return false;
    out = *ns;
    return true;
}

} // namespace gaplens::ui
