// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/intervals.h"

#include <QImage>
#include <QList>
#include <QMap>
#include <QSize>
#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

namespace gaplens::ui {

// The report's Intervals section, as the Intervals panel shows it: the heat map of the kernel
// duration spread (stddev) per rank and interval at core::defaultIntervalLength, the transfers
// chart of the rank with the most copy time (copy stalls on every rank at once shaded) and the
// anomalous intervals (the top 5 per rank by score). Pictures are painted on construction (GUI
// thread); html() places them where the report's body wants them.
class IntervalsSection
{
public:
    IntervalsSection() = default;
    IntervalsSection(const core::DerivedCapture &derived, QSize chartSize);

    // "intervals-heatmap", "intervals-transfers" (absent when there is nothing to draw).
    const QMap<QString, QImage> &images() const { return m_images; }
    // image(name, alt) gives the <img> of a picture; table(header, rows, numeric columns) a table.
    using ImageHtml = std::function<QString(const QString &name, const QString &alt)>;
    using TableHtml
        = QString (*)(const QStringList &header, const std::vector<QStringList> &rows, const QList<int> &numeric);
    QString html(const ImageHtml &image, TableHtml table) const;

private:
    core::IntervalReport m_report;
    bool m_computed = false;
    QString m_error;
    QStringList m_rankLabels; // per entry of m_report.ranks
    std::vector<std::int64_t> m_stalls;
    QString m_transfersRank;
    QMap<QString, QImage> m_images;
};

} // namespace gaplens::ui
