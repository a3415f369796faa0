// SPDX-License-Identifier: MIT
#include "ui/timeline/timeformat.h"

#include <QFontMetrics>
#include <QRegularExpression>

#include <cmath>
#include <cstdlib>

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

QString formatTick(core::TimeNs t, core::TimeNs step)
{
    const DurationUnit u = durationUnitFor(double(step));
    // Decimals needed to show the step in this unit: 0.2 ms -> 1, 0.05 ms -> 2.
    const double stepInUnit = double(step) / u.ns;
    int decimals = 0;
    while (decimals < 9
        && std::abs(stepInUnit * std::pow(10.0, decimals) - std::round(stepInUnit * std::pow(10.0, decimals))) > 1e-6)
        ++decimals;
    return QString::number(double(t) / u.ns, 'f', decimals) + QLatin1Char(' ') + QLatin1String(u.name);
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
            const int w
                = std::max(fm.horizontalAdvance(formatTick(from, step)), fm.horizontalAdvance(formatTick(to, step)));
            if (stepPx >= w + minGapPx)
                return step;
        }
    }
    return core::TimeNs(1e17);
}

bool parseDuration(const QString &text, core::TimeNs &out)
{
    static const QRegularExpression re(
        QStringLiteral("^\\s*(-?[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\\s*(s|ms|us|ns)?\\s*$"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return false;
    bool ok = false;
    const double v = m.captured(1).toDouble(&ok);
    if (!ok)
        return false;
    const QString unit = m.captured(2);
    double scale = 1e9;
    if (unit == QLatin1String("ms"))
        scale = 1e6;
    else if (unit == QLatin1String("us"))
        scale = 1e3;
    else if (unit == QLatin1String("ns"))
        scale = 1;
    out = core::TimeNs(std::llround(v * scale));
    return true;
}

} // namespace gaplens::ui
