// SPDX-License-Identifier: MIT
#include "ui/panels/panelcontext.h"

#include "ui/timeline/timeformat.h"

#include <QStringList>

#include <algorithm>

namespace gaplens::ui {

PanelContext::PanelContext(QObject *parent)
    : QObject(parent)
{
    // Two cores are common on the machines this runs on: one job per core, latest wins.
    m_pool.setMaxThreadCount(2);
}

PanelContext::~PanelContext()
{
    m_pool.waitForDone();
}

void PanelContext::setData(std::shared_ptr<const TimelineData> data)
{
    m_data = std::move(data);
    m_ranks = {};
    m_window.reset();
    emit dataChanged();
}

void PanelContext::setRanks(std::vector<std::uint32_t> ranks)
{
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    // Every rank chosen is the same as "all" (and keeps rank-less work included).
    if (const auto t = trace(); t && ranks.size() == t->ranks.size())
        ranks.clear();
    if (ranks == m_ranks.ranks)
        return;
    m_ranks.ranks = std::move(ranks);
    emit scopeChanged();
}

void PanelContext::setWindow(core::TimeWindow window)
{
    if (window && window->end < window->start)
        std::swap(window->start, window->end);
    if (window == m_window)
        return;
    m_window = window;
    emit scopeChanged();
}

void PanelContext::setGapThreshold(core::TimeNs ns)
{
    if (ns <= 0 || ns == m_gapThreshold)
        return;
    m_gapThreshold = ns;
    emit gapThresholdChanged();
}

QString PanelContext::scopeText() const
{
    QString ranks;
    const auto t = trace();
    if (m_ranks.isAll()) {
        ranks = QStringLiteral("all ranks");
    } else {
        QStringList numbers;
        for (auto r : m_ranks.ranks)
            numbers << QString::number(t && r < t->ranks.size() ? t->ranks[r].rank : int(r));
        ranks = numbers.size() <= 6 ? (numbers.size() == 1 ? QStringLiteral("rank ") : QStringLiteral("ranks "))
                    + numbers.join(QStringLiteral(", "))
                                    : QStringLiteral("%1 ranks").arg(numbers.size());
    }
    const QString window = m_window ? QStringLiteral("selection %1").arg(formatDuration(m_window->duration()))
                                    : QStringLiteral("whole capture");
    return ranks + QStringLiteral(" · ") + window;
}

} // namespace gaplens::ui
