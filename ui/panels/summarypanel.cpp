// SPDX-License-Identifier: MIT
#include "ui/panels/summarypanel.h"

#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/util/units.h"
#include "ui/panels/paneltable.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timelineview.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QStringList>
#include <QVBoxLayout>

#include <algorithm>

namespace gaplens::ui {

namespace {
// Copy directions shown as columns, in this order; anything else goes to "other".
struct Direction
{
    core::CopyKind kind;
    const char *title;
};
constexpr Direction kDirections[] = {
    { core::CopyKind::HostToDevice, "H→D" },
    { core::CopyKind::DeviceToHost, "D→H" },
    { core::CopyKind::DeviceToDevice, "D→D" },
    { core::CopyKind::PeerToPeer, "P2P" },
    { core::CopyKind::UnifiedHostToDevice, "Unified H→D" },
    { core::CopyKind::UnifiedDeviceToHost, "Unified D→H" },
    { core::CopyKind::Memset, "memset" },
};
constexpr int kCopyColumns = int(std::size(kDirections)) + 1;

PanelCell copyCell(const core::CopyTotals &t)
{
    if (t.count == 0)
        return PanelCell::empty();
    const QString bytes = QString::fromStdString(core::formatBytes(t.bytes));
    const QString time = QString::fromStdString(core::formatDuration(double(t.totalNs)));
    PanelCell c { QString(bytes + QStringLiteral(" · ") + time), qulonglong(t.bytes), {}, {} };
    c.toolTip = QStringLiteral("%1 operations, %2 in %3").arg(t.count).arg(bytes, time);
    return c;
}
} // namespace

SummaryPanel::SummaryPanel(PanelContext &context, TimelineView *view, QWidget *parent)
    : AnalysisPanel(context, view, DerivedUse::Reads, parent)
    , m_findings(new QListWidget(this))
    , m_table(new PanelTable(this))
    , m_memory(new QLabel(this))
{
    m_memory->setWordWrap(true);
    m_memory->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_memory->setToolTip(QStringLiteral("GPU memory in use, from the capture's --cuda-memory-usage events"));
    m_findings->setWordWrap(true);
    m_findings->setAlternatingRowColors(true);
    m_findings->setSelectionMode(QAbstractItemView::SingleSelection);
    m_findings->setToolTip(
        QStringLiteral("Findings over the chosen ranks and window; click one about a rank to show it"));
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_findings);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_scopeLabel);
    layout->addWidget(split, 1);
    layout->addWidget(m_memory);
    connect(m_findings, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) {
        const auto rank = item->data(Qt::UserRole).toUInt();
        if (m_view && m_trace && rank < m_trace->ranks.size())
            m_view->scrollToRank(core::RankIndex(rank));
    });
    connect(ThemeNotifier::instance(), &ThemeNotifier::themeChanged, this, &SummaryPanel::colourWarnings);
}

void SummaryPanel::colourWarnings()
{
    for (int i = 0; i < m_findings->count(); ++i) {
        auto *item = m_findings->item(i);
        if (item->data(kWarningRole).toBool())
            item->setForeground(Theme::current().warningText);
    }
}

void SummaryPanel::recompute()
{
    const auto trace = traceOrClear([this] { apply({}, nullptr); });
    if (!trace)
        return;
    const auto derived = derivedOrAwait();
    if (!derived)
        return;
    auto options = scopedOptions<core::CaptureSummaryOptions>();
    options.minGapNs = m_context.gapThreshold();
    // Busy time, gaps and blame are read from the derived capture the timeline shows.
    run<core::CaptureSummary>([derived, options] { return core::summarizeCapture(*derived, options); },
        [this, trace](const core::CaptureSummary &s) { apply(s, trace); });
}

void SummaryPanel::showMemory(const core::TraceSet *trace)
{
    const auto derived = m_context.derived();
    if (!trace || !derived || &derived->trace() != trace) {
        m_memory->clear();
        return;
    }
    const auto &memory = derived->gpuMemory();
    if (!memory.recorded()) {
        m_memory->setText(QString::fromLatin1(core::kNoMemoryUsageNote) + QLatin1Char('.'));
        return;
    }
    QStringList lines;
    const auto ranks = m_context.ranks();
    for (std::uint32_t r = 0; r < trace->ranks.size(); ++r) {
        if (!ranks.includes(r))
            continue;
        for (const auto g : trace->ranks[r].gpus) {
            const auto &c = memory.gpus[g];
            lines << QStringLiteral("GPU memory, rank %1 GPU %2: peak %3, %4 allocations, %5 frees")
                         .arg(trace->ranks[r].rank)
                         .arg(trace->gpus[g].deviceId)
                         .arg(QString::fromStdString(core::formatBytes(c.peakBytes)))
                         .arg(c.allocations)
                         .arg(c.frees);
        }
    }
    m_memory->setText(lines.join(QLatin1Char('\n')));
}

void SummaryPanel::apply(const core::CaptureSummary &s, std::shared_ptr<const core::TraceSet> trace)
{
    m_summary = s;
    m_trace = std::move(trace);
    const auto *t = m_trace.get();

    m_findings->clear();
    for (const auto &f : s.findings) {
        auto *item = new QListWidgetItem(QStringLiteral("• ") + QString::fromStdString(f.text), m_findings);
        item->setData(Qt::UserRole, f.rank == core::kNoIndex ? uint(core::kNoIndex) : uint(f.rank));
        if (f.kind == core::FindingKind::IdleGpu || f.kind == core::FindingKind::IdleOutsideKernels
            || f.kind == core::FindingKind::Straggler || f.kind == core::FindingKind::PageableCopies
            || f.kind == core::FindingKind::WarmUp || f.kind == core::FindingKind::AnomalousIntervals
            || f.kind == core::FindingKind::SimultaneousCopyStalls || f.kind == core::FindingKind::PingPong)
            item->setData(kWarningRole, true);
    }
    colourWarnings();
    if (t && s.findings.empty())
        new QListWidgetItem(QStringLiteral("Nothing stands out in this selection."), m_findings);
    showMemory(t);

    const QString step = s.stepRange.empty() ? QStringLiteral("step") : QString::fromStdString(s.stepRange);
    QList<PanelColumn> columns {
        { QStringLiteral("Rank"), true, {}, {} },
        { QStringLiteral("GPU"), false, {}, {} },
        { QStringLiteral("Busy %"), true, QStringLiteral("%"),
            QStringLiteral("Union of the GPU's kernels over its window") },
        { QStringLiteral("Window"), true, QStringLiteral("ns"),
            QStringLiteral("First to last kernel of the GPU in the selection") },
        { QStringLiteral("Busy"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("Idle in gaps"), true, QStringLiteral("ns"),
            QStringLiteral("Idle gaps at least the toolbar's threshold") },
        { QStringLiteral("Gaps"), true, {}, {} },
        { QStringLiteral("Capture"), true, QStringLiteral("ns"),
            QStringLiteral("The rank's first to last event of any kind, in the selection") },
        { QStringLiteral("Idle outside"), true, QStringLiteral("ns"),
            QStringLiteral("Capture time before the GPU's first kernel and after its last: Busy % leaves it out") },
        { QStringLiteral("Steps"), true, {}, QStringLiteral("Iterations of \"%1\"").arg(step) },
        { QStringLiteral("Step"), true, QStringLiteral("ns"), QStringLiteral("Median duration of \"%1\"").arg(step) },
        { QStringLiteral("Kernel / step"), true, QStringLiteral("ns"),
            QStringLiteral("Median summed kernel time inside a step") },
        { QStringLiteral("GPU busy / step"), true, QStringLiteral("%"),
            QStringLiteral("Median GPU busy share of a step") },
    };
    for (const auto &d : kDirections)
        columns.push_back({ QString::fromUtf8(d.title), true, QStringLiteral("bytes"),
            QStringLiteral("Bytes · time (hover for the count)") });
    columns.push_back({ QStringLiteral("other copies"), true, QStringLiteral("bytes"), {} });

    std::vector<std::vector<PanelCell>> rows;
    for (const auto &row : s.rows) {
        std::vector<PanelCell> cells;
        cells.push_back(PanelCell::count(std::uint64_t(std::max(0, t->ranks[row.rank].rank))));
        if (row.gpu == core::kNoIndex) {
            cells.push_back(PanelCell::text(QStringLiteral("no GPU work")));
            for (int c = BusyPercentColumn; c < StepsColumn; ++c)
                cells.push_back(PanelCell::empty());
        } else {
            const auto &gpu = t->gpus[row.gpu];
            QString label = QStringLiteral("GPU %1").arg(gpu.deviceId);
            if (!gpu.name.empty())
                label += QStringLiteral(" · ") + QString::fromStdString(gpu.name);
            cells.push_back(PanelCell::text(label));
            cells.push_back(PanelCell::percent(row.busyPercent));
            cells.push_back(PanelCell::duration(double(row.window.duration())));
            cells.push_back(PanelCell::duration(double(row.busyNs)));
            cells.push_back(PanelCell::duration(double(row.idleNs)));
            cells.push_back(PanelCell::count(row.gapCount));
            cells.push_back(PanelCell::duration(double(row.captureSpan.duration())));
            cells.push_back(PanelCell::duration(double(row.idleOutside.totalNs())));
        }
        cells.push_back(row.steps ? PanelCell::count(row.steps) : PanelCell::empty());
        cells.push_back(row.medianStepNs ? PanelCell::duration(*row.medianStepNs) : PanelCell::empty());
        cells.push_back(
            row.medianKernelNsPerStep ? PanelCell::duration(*row.medianKernelNsPerStep) : PanelCell::empty());
        cells.push_back(
            row.medianStepBusyPercent ? PanelCell::percent(*row.medianStepBusyPercent) : PanelCell::empty());
        std::vector<core::CopyTotals> byColumn(kCopyColumns);
        for (const auto &c : row.copies) {
            int col = kCopyColumns - 1;
            for (int d = 0; d < int(std::size(kDirections)); ++d)
                if (kDirections[d].kind == c.kind)
                    col = d;
            auto &dst = byColumn[std::size_t(col)];
            dst.count += c.count;
            dst.bytes += c.bytes;
            dst.totalNs += c.totalNs;
        }
        for (const auto &c : byColumn)
            cells.push_back(copyCell(c));
        // The "other" column sums several kinds: its tooltip names each.
        QStringList others;
        for (const auto &c : row.copies)
            if (std::none_of(std::begin(kDirections), std::end(kDirections),
                    [&](const Direction &d) { return d.kind == c.kind; }))
                others << QStringLiteral("%1: %2 operations, %3")
                              .arg(QString::fromLatin1(core::copyKindName(c.kind)))
                              .arg(c.count)
                              .arg(QString::fromStdString(core::formatBytes(c.bytes)));
        if (!others.isEmpty())
            cells.back().toolTip = others.join(QLatin1Char('\n'));
        rows.push_back(std::move(cells));
    }
    m_table->tableModel()->setTable(columns, std::move(rows));
    m_table->sortByColumn(RankColumn, Qt::AscendingOrder);
}

} // namespace gaplens::ui
