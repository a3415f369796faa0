// SPDX-License-Identifier: MIT
#include "ui/panels/analysispanel.h"

#include "ui/timeline/timelinemodel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

namespace gaplens::ui {

AnalysisPanel::AnalysisPanel(PanelContext &context, TimelineView *view, DerivedUse use, QWidget *parent)
    : QWidget(parent)
    , m_context(context)
    , m_view(view)
    , m_scopeLabel(new QLabel(this))
    , m_jobs(this, context.pool())
    , m_timer(new QTimer(this))
{
    if (view)
        m_context.useDerivedSource(view->model()->derivedSource());
    m_timer->setSingleShot(true);
    m_timer->setInterval(0);
    connect(m_timer, &QTimer::timeout, this, [this] {
        m_scopeLabel->setText(m_context.scopeText());
        recompute();
    });
    // Results of the previous capture must never reach the new one.
    connect(&m_context, &PanelContext::dataChanged, this, [this] {
        cancelJobs();
        scheduleUpdate();
    });
    connect(&m_context, &PanelContext::scopeChanged, this, &AnalysisPanel::scheduleUpdate);
    if (use == DerivedUse::Reads) {
        connect(&m_context, &PanelContext::gapThresholdChanged, this, &AnalysisPanel::scheduleUpdate);
        connect(&m_context, &PanelContext::derivedChanged, this, &AnalysisPanel::scheduleUpdate);
    } else {
        connect(&m_context, &PanelContext::gapThresholdChanged, this, [this] { m_afterDerived = true; });
        connect(&m_context, &PanelContext::derivedChanged, this, [this] {
            if (std::exchange(m_afterDerived, false))
                scheduleUpdate();
        });
    }
    m_scopeLabel->setText(m_context.scopeText());
    QPalette pal = m_scopeLabel->palette();
    pal.setColor(QPalette::WindowText, QColor(90, 90, 90));
    m_scopeLabel->setPalette(pal);
}

AnalysisPanel::~AnalysisPanel() = default; // m_jobs drops what is still running

void AnalysisPanel::scheduleUpdate()
{
    m_timer->start();
}

void AnalysisPanel::cancelJobs()
{
    m_jobs.discard();
    setComputing(false);
}

void AnalysisPanel::awaitDerived()
{
    m_jobs.discard();
    setComputing(true);
}

std::shared_ptr<const core::DerivedCapture> AnalysisPanel::derivedOrAwait()
{
    auto derived = m_context.derived();
    if (!derived)
        awaitDerived();
    return derived;
}

void AnalysisPanel::addAdaptiveSplitter(QSplitter *splitter, bool inverse, double firstShare)
{
    m_splitters.append({ splitter, inverse, firstShare });
}

QSplitter *AnalysisPanel::adaptivePair(
    QWidget *first, QWidget *second, int firstStretch, int secondStretch, double firstShare, bool inverse)
{
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(first);
    split->addWidget(second);
    split->setStretchFactor(0, firstStretch);
    split->setStretchFactor(1, secondStretch);
    addAdaptiveSplitter(split, inverse, firstShare);
    return split;
}

void AnalysisPanel::setPanelLayout(QLayout *top, std::initializer_list<QWidget *> middle, QLayout *bottom)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    for (auto it = middle.begin(); it != middle.end(); ++it)
        layout->addWidget(*it, it + 1 == middle.end() ? 1 : 0);
    if (bottom)
        layout->addLayout(bottom);
}

QHBoxLayout *AnalysisPanel::controlRow(QWidget *stretched, std::initializer_list<QWidget *> rest)
{
    auto *row = new QHBoxLayout;
    row->addWidget(stretched, 1);
    for (QWidget *widget : rest)
        row->addWidget(widget);
    return row;
}

void AnalysisPanel::resizeEvent(QResizeEvent *e)
{
    QWidget::resizeEvent(e);
    const bool wide = width() > 2 * height();
    for (auto &a : m_splitters) {
        const Qt::Orientation o = wide != a.inverse ? Qt::Horizontal : Qt::Vertical;
        if (a.sized && a.splitter->orientation() == o)
            continue; // keep what the user dragged
        a.splitter->setOrientation(o);
        // Size hints of tables are large: without explicit sizes a chart would get a sliver.
        const int total = o == Qt::Horizontal ? a.splitter->width() : a.splitter->height();
        if (total > 0 && a.splitter->count() == 2) {
            const int first = int(total * a.firstShare);
            a.splitter->setSizes({ first, total - first });
            a.sized = true;
        }
    }
}

void AnalysisPanel::setComputing(bool on)
{
    m_computing = on;
    const QString scope = m_context.scopeText();
    m_scopeLabel->setText(on ? scope + QStringLiteral(" · computing…") : scope);
}

void AnalysisPanel::finishJob()
{
    setComputing(false);
    ++m_generation;
    emit updated();
}

} // namespace gaplens::ui
