// SPDX-License-Identifier: MIT
#include "ui/compare/compareview.h"

#include "ui/compare/comparisoncontroller.h"
#include "ui/compare/timelinesync.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace gaplens::ui {

using core::TimeNs;

namespace {

QWidget *captioned(QLabel *caption, TimelineView *view, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    caption->setContentsMargins(6, 3, 6, 3);
    QFont f = caption->font();
    f.setBold(true);
    caption->setFont(f);
    layout->addWidget(caption);
    layout->addWidget(view, 1);
    return box;
}

QString captureText(const QString &side, const TimelineData *data)
{
    if (!data || !data->trace)
        return side + QStringLiteral(": (none)");
    const auto &t = *data->trace;
    QStringList names;
    for (const auto &r : t.reports)
        names << QFileInfo(QString::fromStdString(r.path)).fileName();
    const QString files
        = names.size() <= 2 ? names.join(QStringLiteral(", ")) : QStringLiteral("%1 files").arg(names.size());
    return QStringLiteral("%1: %2 · %3 rank(s), %4 GPU(s)").arg(side, files).arg(t.ranks.size()).arg(t.gpus.size());
}

} // namespace

CompareView::CompareView(QWidget *parent)
    : QWidget(parent)
    , m_before(new TimelineView(this))
    , m_after(new TimelineView(this))
    , m_beforeCaption(new QLabel(this))
    , m_afterCaption(new QLabel(this))
    , m_splitter(new QSplitter(Qt::Vertical, this))
    , m_sync(new TimelineSync(this))
    , m_controller(new ComparisonController(this))
    , m_alignMode(new QComboBox(this))
    , m_alignName(new QLineEdit(this))
    , m_alignOccurrence(new QSpinBox(this))
    , m_highlight(new QLabel(this))
{
    m_before->setObjectName(QStringLiteral("beforeTimeline"));
    m_after->setObjectName(QStringLiteral("afterTimeline"));
    // Same viewport width in both, so equal ns per pixel means equal x for equal times.
    m_before->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    m_after->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 2);
    bar->addWidget(new QLabel(QStringLiteral("Align before/after on:"), this));
    m_alignMode->addItems({ QStringLiteral("absolute time (capture start)"), QStringLiteral("k-th NVTX range") });
    m_alignMode->setCurrentIndex(1);
    bar->addWidget(m_alignMode);
    m_alignName->setPlaceholderText(QStringLiteral("step range (default)"));
    m_alignName->setToolTip(QStringLiteral("NVTX range whose k-th instance starts at the same x in both timelines; "
                                           "empty = the comparison's step range"));
    m_alignName->setMinimumWidth(140);
    m_alignName->setMaximumWidth(220);
    bar->addWidget(m_alignName);
    m_alignOccurrence->setRange(1, 1'000'000);
    m_alignOccurrence->setPrefix(QStringLiteral("#"));
    bar->addWidget(m_alignOccurrence);
    auto *fit = new QPushButton(QStringLiteral("Fit"), this);
    fit->setToolTip(QStringLiteral("Show both captures whole"));
    bar->addWidget(fit);
    bar->addSpacing(16);
    bar->addWidget(m_highlight, 1);
    auto *clear = new QPushButton(QStringLiteral("Clear highlight"), this);
    bar->addWidget(clear);

    m_splitter->addWidget(captioned(m_beforeCaption, m_before, m_splitter));
    m_splitter->addWidget(captioned(m_afterCaption, m_after, m_splitter));
    m_splitter->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(m_splitter, 1);

    m_sync->setViews({ m_before, m_after });
    updateCaptions();

    connect(m_alignMode, &QComboBox::currentIndexChanged, this, [this] { applyAlignment(); });
    connect(m_alignName, &QLineEdit::returnPressed, this, [this] { applyAlignment(); });
    connect(m_alignOccurrence, &QSpinBox::valueChanged, this, [this] { applyAlignment(); });
    connect(fit, &QPushButton::clicked, this, [this] { m_before->zoom()->fitAll(); });
    connect(clear, &QPushButton::clicked, this, &CompareView::clearHighlight);
    connect(m_controller, &ComparisonController::comparisonReady, this, &CompareView::onComparison);
    // One threshold for both: the before timeline's toolbar (or the session) leads.
    connect(m_before->model(), &TimelineModel::gapsChanged, this, [this] {
        if (m_after->model()->gapThreshold() != m_before->model()->gapThreshold())
            m_after->model()->setGapThreshold(m_before->model()->gapThreshold());
    });
    // The comparison reads both timelines' derived captures: it starts when the last arrives.
    connect(m_before->model(), &TimelineModel::gapsChanged, this, &CompareView::startPendingComparison);
    connect(m_after->model(), &TimelineModel::gapsChanged, this, &CompareView::startPendingComparison);
}

CompareView::~CompareView() = default;

void CompareView::setCaptures(std::shared_ptr<const TimelineData> before, std::shared_ptr<const TimelineData> after)
{
    const TimeNs threshold = gapThreshold();
    m_beforeData = before;
    m_afterData = after;
    m_before->setData(std::move(before));
    m_after->setData(std::move(after));
    m_before->model()->setGapThreshold(threshold);
    m_after->model()->setGapThreshold(threshold);
    m_highlightText.clear();
    m_highlight->clear();
    updateCaptions();
    applyAlignment();
    startComparison();
}

void CompareView::updateCaptions()
{
    m_beforeCaption->setText(captureText(QStringLiteral("Before"), m_before->model()->data()));
    m_afterCaption->setText(captureText(QStringLiteral("After"), m_after->model()->data()));
}

void CompareView::startComparison()
{
    const auto *b = m_before->model()->data();
    const auto *a = m_after->model()->data();
    if (!b || !a || !b->trace || !a->trace)
        return;
    m_comparisonPending = true;
    m_controller->expectComparison();
    emit statusMessage(QStringLiteral("Comparing before and after…"));
    startPendingComparison();
}

void CompareView::startPendingComparison()
{
    auto *bm = m_before->model();
    auto *am = m_after->model();
    if (!m_comparisonPending || !bm->gapsReady() || !am->gapsReady())
        return;
    m_comparisonPending = false;
    core::CompareOptions options;
    options.rangeName = m_stepRange.toStdString();
    options.minGapNs = gapThreshold();
    m_controller->compute(bm->derived(), am->derived(), options);
}

void CompareView::onComparison()
{
    const auto &c = m_controller->comparison();
    if (!c)
        return;
    // The default alignment range is the comparison's step range: realign once it is known.
    if (alignMode() == AlignMode::NvtxOccurrence && m_alignName->text().isEmpty()) {
        m_alignName->setPlaceholderText(
            c->stepRange.empty() ? QStringLiteral("step range (none found)") : QString::fromStdString(c->stepRange));
        applyAlignment();
    }
    emit statusMessage(QString::fromStdString(c->verdictText));
}

void CompareView::setAlignment(AlignMode mode, const QString &rangeName, int occurrence)
{
    const QSignalBlocker b1(m_alignMode), b2(m_alignName), b3(m_alignOccurrence);
    m_alignMode->setCurrentIndex(mode == AlignMode::AbsoluteTime ? 0 : 1);
    m_alignName->setText(rangeName);
    m_alignOccurrence->setValue(std::max(1, occurrence));
    applyAlignment();
}

CompareView::AlignMode CompareView::alignMode() const
{
    return m_alignMode->currentIndex() == 0 ? AlignMode::AbsoluteTime : AlignMode::NvtxOccurrence;
}

QString CompareView::alignRangeName() const
{
    return m_alignName->text();
}

int CompareView::alignOccurrence() const
{
    return m_alignOccurrence->value();
}

QString CompareView::effectiveRangeName() const
{
    if (!m_alignName->text().isEmpty())
        return m_alignName->text();
    const auto &c = m_controller->comparison();
    return c ? QString::fromStdString(c->stepRange) : QString();
}

std::optional<TimeNs> CompareView::nvtxOccurrenceStart(const core::TraceSet &trace, const QString &name, int occurrence)
{
    const core::StringId id = trace.strings.find(name.toStdString());
    if (id == core::kEmptyString || occurrence < 1)
        return std::nullopt;
    return anchorOf(core::computeStepTable(trace, id), occurrence);
}

std::optional<TimeNs> CompareView::anchorOf(const core::StepTable &steps, int occurrence)
{
    const auto first = occurrence < 1 ? std::nullopt : steps.firstRankOccurrence(std::size_t(occurrence));
    return first ? std::optional<TimeNs>(first->start) : std::nullopt;
}

bool CompareView::applyAlignment()
{
    auto *bm = m_before->model();
    auto *am = m_after->model();
    bool ok = true;
    if (alignMode() == AlignMode::NvtxOccurrence) {
        const QString name = effectiveRangeName();
        const int k = m_alignOccurrence->value();
        std::optional<TimeNs> b, a;
        if (!name.isEmpty() && bm->trace() && am->trace()) {
            // The models' step tables: the derived captures' memo, shared with alignOnNvtx.
            b = anchorOf(*bm->stepTable(name), k);
            a = anchorOf(*am->stepTable(name), k);
        }
        if (b && a && bm->alignOnNvtx(name, k) && am->alignOnNvtx(name, k)) {
            // alignOnNvtx gives the first rank having the range offset 0: its k-th start is the anchor.
            m_sync->setAnchors({ *b, *a });
            emit statusMessage(
                QStringLiteral("Aligned on %1 #%2: it starts at the same x in both timelines.").arg(name).arg(k));
            emit alignmentChanged();
            return true;
        }
        ok = false;
        if (bm->trace() && am->trace())
            emit statusMessage(name.isEmpty()
                    ? QStringLiteral("No step range to align on yet; aligned on the capture start.")
                    : QStringLiteral("NVTX range \"%1\" #%2 is not in both captures; aligned on the capture start.")
                          .arg(name)
                          .arg(k));
    }
    bm->alignAbsolute();
    am->alignAbsolute();
    m_sync->setAnchors({ bm->origin(), am->origin() });
    emit alignmentChanged();
    return ok;
}

void CompareView::setGapThreshold(TimeNs ns)
{
    if (ns <= 0 || ns == gapThreshold())
        return;
    m_before->model()->setGapThreshold(ns);
    m_after->model()->setGapThreshold(ns);
    startComparison(); // idle totals and blame depend on the threshold
}

TimeNs CompareView::gapThreshold() const
{
    return m_before->model()->gapThreshold();
}

void CompareView::setStepRange(const QString &name)
{
    if (name == m_stepRange)
        return;
    m_stepRange = name;
    startComparison();
}

std::pair<int, int> CompareView::highlightKernel(const QString &name)
{
    return highlightName(QStringLiteral("Kernel"), QStringLiteral("kernel"), name);
}

std::pair<int, int> CompareView::highlightNvtx(const QString &name)
{
    return highlightName(QStringLiteral("NVTX"), QStringLiteral("nvtx"), name);
}

std::pair<int, int> CompareView::highlightName(const QString &label, const QString &kind, const QString &name)
{
    auto findIn = [&](TimelineView *v) {
        v->model()->setGapHighlight(TimelineModel::GapHighlight::None, {});
        const auto *t = v->model()->trace();
        return t ? v->findName(t->strings.find(name.toStdString())) : 0;
    };
    const std::pair<int, int> n { findIn(m_before), findIn(m_after) };
    showHighlight(label + QStringLiteral(" %1: %2 before, %3 after").arg(name).arg(n.first).arg(n.second), kind, name);
    return n;
}

void CompareView::showHighlight(const QString &text, const QString &kind, const QString &key)
{
    m_highlightText = text;
    m_highlightKind = kind;
    m_highlightKey = key;
    m_highlight->setText(m_highlightText);
    emit highlightChanged(m_highlightText);
}

std::pair<int, int> CompareView::highlightGaps(TimelineModel::GapHighlight kind, const QString &key)
{
    m_before->find(QString(), false);
    m_after->find(QString(), false);
    const std::pair<int, int> n { m_before->model()->setGapHighlight(kind, key),
        m_after->model()->setGapHighlight(kind, key) };
    const QString kindName
        = kind == TimelineModel::GapHighlight::Cause ? QStringLiteral("cause") : QStringLiteral("phase");
    showHighlight(
        QStringLiteral("Idle gaps (%1) %2: %3 before, %4 after").arg(kindName, key).arg(n.first).arg(n.second),
        kindName, key);
    return n;
}

void CompareView::clearHighlight()
{
    for (auto *v : { m_before, m_after }) {
        v->find(QString(), false);
        v->model()->setGapHighlight(TimelineModel::GapHighlight::None, {});
    }
    m_highlightText.clear();
    m_highlightKind.clear();
    m_highlightKey.clear();
    m_highlight->clear();
    emit highlightChanged({});
}

QString CompareView::highlightText() const
{
    return m_highlightText;
}

} // namespace gaplens::ui
