// SPDX-License-Identifier: MIT
#include "ui/panels/panelcontext.h"

#include "ui/loading/derivedcapturecontroller.h"
#include "ui/timeline/timeformat.h"

#include <QStringList>

#include <algorithm>

namespace gaplens::ui {

PanelContext::PanelContext(QObject *parent)
    : QObject(parent)
    , m_source(this)
{
    // Two cores are common on the machines this runs on: one job per core, latest wins.
    m_pool.setMaxThreadCount(2);
    useDerivedSource(nullptr);
}

void PanelContext::useDerivedSource(DerivedCaptureController *source)
{
    if (!m_source.use(source))
        return;
    connect(m_source.current(), &DerivedCaptureController::derivedChanged, this, &PanelContext::derivedChanged);
    if (m_source.isOwn()) {
        m_source->setGapThreshold(m_gapThreshold);
        if (m_data && m_source->trace() != m_data->trace)
            m_source->setTrace(m_data->trace, m_data->derived);
    }
    emit derivedChanged();
}

std::shared_ptr<const core::DerivedCapture> PanelContext::derived() const
{
    const auto &d = m_source->derived();
    return d && m_data && d->sharedTrace() == m_data->trace && d->minGapNs() == m_gapThreshold ? d : nullptr;
}

PanelContext::~PanelContext()
{
    m_pool.waitForDone();
}

void PanelContext::setData(std::shared_ptr<const TimelineData> data)
{
    m_data = std::move(data);
    m_stepRangeChoices = std::make_shared<StepRangeChoices>(trace());
    m_ranks = {};
    m_window.reset();
    // A shared source has the capture already when the timeline got it first.
    if (m_source->trace() != trace())
        m_source->setTrace(trace(), m_data ? m_data->derived : nullptr);
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
    if (m_source.isOwn())
        m_source->setGapThreshold(ns); // a shared source follows the timeline's threshold
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
