// SPDX-License-Identifier: MIT
#include "ui/digest/digestwindow.h"

#include "gaplens/core/util/units.h"
#include "ui/digest/digesttables.h"
#include "ui/mainwindow.h"
#include "ui/panels/intervalheatmap.h"
#include "ui/panels/paneltable.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace gaplens::ui {
namespace {

QString duration(double ns)
{
    return QString::fromStdString(core::formatDuration(ns));
}

// The capture's span: seconds read well up to an hour or two; the reports of unrelated runs
// opened together can span months, which "33401425.327 s" does not say.
QString spanText(core::TimeNs ns)
{
    constexpr double kHour = 3600e9, kDay = 24 * kHour;
    if (double(ns) >= 2 * kDay)
        return QStringLiteral("%1 days (reports of different runs?)").arg(double(ns) / kDay, 0, 'f', 1);
    if (double(ns) >= 2 * kHour)
        return QStringLiteral("%1 h").arg(double(ns) / kHour, 0, 'f', 1);
    return duration(double(ns));
}

QString headerOf(const core::Digest &d, const QString &path)
{
    auto text = QStringLiteral("<b>%1</b>: %2 rank(s) from %3 report(s), capture %4")
                    .arg(QFileInfo(path).fileName().toHtmlEscaped())
                    .arg(d.ranks.size())
                    .arg(d.files.size())
                    .arg(spanText(d.span.duration()));
    if (!d.errors.empty())
        text += QStringLiteral(", %1 file(s) could not be loaded").arg(d.errors.size());
    text += QStringLiteral("; idle gaps ≥ %1, intervals of %2")
                .arg(duration(double(d.minGapNs)), duration(double(d.intervalNs)));
    if (d.pace)
        text += QStringLiteral("<br>Step range <i>%1</i>: %2")
                    .arg(QString::fromStdString(d.pace->range).toHtmlEscaped(),
                        QString::fromStdString(d.pace->verdict).toHtmlEscaped());
    else
        text += QStringLiteral("<br>No step range: no pace matrix.");
    return text;
}

QWidget *withCaption(QWidget *content, const QString &caption)
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    auto *label = new QLabel(caption);
    label->setWordWrap(true);
    layout->addWidget(label);
    layout->addWidget(content, 1);
    return page;
}

} // namespace

bool isDigestPath(const QString &path)
{
    return path.endsWith(
        QLatin1String(core::kDigestSuffix.data(), qsizetype(core::kDigestSuffix.size())), Qt::CaseInsensitive);
}

DigestWindow::DigestWindow(core::Digest digest, QString path, QWidget *parent)
    : QMainWindow(parent)
    , m_digest(std::move(digest))
    , m_path(std::move(path))
    , m_header(new QLabel)
    , m_ranks(new PanelTable)
    , m_pace(new PanelTable)
    , m_heatMap(new IntervalHeatMap)
    , m_metric(new QComboBox)
    , m_findings(new QListWidget)
    , m_tabs(new QTabWidget)
    , m_open(new QPushButton(QStringLiteral("Open on timeline")))
{
    setWindowTitle(QStringLiteral("gaplens — ") + QFileInfo(m_path).fileName() + QStringLiteral(" (overview)"));
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    m_header->setText(headerOf(m_digest, m_path));

    setDigestRankTable(*m_ranks->tableModel(), m_digest);
    m_ranks->sortByColumn(0, Qt::AscendingOrder);
    m_ranks->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_open->setToolTip(
        QStringLiteral("Load the selected ranks' reports in a timeline window (double-click: one rank)"));
    m_open->setEnabled(false);
    connect(m_ranks->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        [this] { m_open->setEnabled(!selectedRanks().empty()); });
    connect(m_open, &QPushButton::clicked, this, [this] { openOnTimeline(selectedRanks()); });
    connect(m_ranks, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        const int row = m_ranks->sourceRow(index);
        if (row >= 0)
            openOnTimeline({ std::size_t(m_ranks->tableModel()->rowKey(row)) });
    });

    for (const auto metric : kDigestHeatMapMetrics)
        m_metric->addItem(metricTitle(metric), int(metric));
    const auto showMetric = [this] {
        m_heatMap->setData(digestHeatMapData(m_digest, core::IntervalMetric(m_metric->currentData().toInt())));
    };
    connect(m_metric, &QComboBox::currentIndexChanged, this, showMetric);
    showMetric();
    m_heatMap->setToolTipProvider([this](int row, int column) {
        const auto &data = m_heatMap->data();
        const double value = data.value(row, column);
        return QStringLiteral("%1, interval %2 (from %3): %4 %5%6")
            .arg(data.rowLabels.value(row))
            .arg(data.firstIndex + column)
            .arg(intervalOffsetText(data.intervalNs, data.firstIndex + column))
            .arg(metricTitle(data.metric))
            .arg(std::isnan(value) ? QStringLiteral("-") : formatMetricValue(data.metric, value))
            .arg(data.isOutlined(row, column) ? QStringLiteral(" (anomalous)") : QString());
    });
    setDigestPaceMatrix(*m_pace->tableModel(), m_digest);
    m_pace->sortByColumn(0, Qt::AscendingOrder);
    for (const auto &f : m_digest.findings)
        m_findings->addItem(QString::fromStdString(f.text));
    m_findings->setWordWrap(true);

    auto *intervals = new QWidget;
    auto *intervalsLayout = new QVBoxLayout(intervals);
    auto *metricRow = new QHBoxLayout;
    metricRow->addWidget(new QLabel(QStringLiteral("Per rank and interval:")));
    metricRow->addWidget(m_metric);
    auto *outlineNote = new QLabel(QStringLiteral("outlined: anomalous spread (IQR rule, per rank)"));
    metricRow->addWidget(outlineNote, 1);
    intervalsLayout->addLayout(metricRow);
    intervalsLayout->addWidget(m_heatMap, 1);
    m_tabs->addTab(intervals, QStringLiteral("Intervals"));
    m_tabs->addTab(withCaption(m_pace,
                       m_digest.pace ? QString::fromStdString(m_digest.pace->verdict)
                                     : QStringLiteral("No step range was found: no pace matrix.")),
        QStringLiteral("Pace"));
    m_tabs->addTab(m_findings, QStringLiteral("Findings (%1)").arg(m_digest.findings.size()));

    auto *top = new QWidget;
    auto *topLayout = new QVBoxLayout(top);
    topLayout->addWidget(m_header);
    topLayout->addWidget(m_ranks, 1);
    auto *buttons = new QHBoxLayout;
    auto *hint = new QLabel(QStringLiteral("Select one or more ranks to open their reports on the timeline."));
    buttons->addWidget(hint, 1);
    buttons->addWidget(m_open);
    topLayout->addLayout(buttons);

    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(top);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    setCentralWidget(splitter);
    resize(1100, 800);
}

QString DigestWindow::headerText() const
{
    return m_header->text();
}

std::vector<std::size_t> DigestWindow::selectedRanks() const
{
    std::vector<std::size_t> ranks;
    for (const auto &index : m_ranks->selectionModel()->selectedRows()) {
        const int row = m_ranks->sourceRow(index);
        if (row >= 0)
            ranks.push_back(std::size_t(m_ranks->tableModel()->rowKey(row)));
    }
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

QStringList DigestWindow::missingReports(const std::vector<std::size_t> &ranks) const
{
    QStringList missing;
    for (auto r : ranks) {
        const auto path = QString::fromStdString(m_digest.ranks[r].report);
        if (!QFileInfo::exists(path) && !missing.contains(path))
            missing << path;
    }
    return missing;
}

MainWindow *DigestWindow::openOnTimeline(const std::vector<std::size_t> &ranks)
{
    if (ranks.empty())
        return nullptr;
    if (const auto missing = missingReports(ranks); !missing.isEmpty()) {
        auto *box = new QMessageBox(QMessageBox::Warning, QStringLiteral("Reports not found"),
            QStringLiteral("The digest names reports that no longer exist:\n%1\n\nMove them back, or make the digest "
                           "again with gaplens-cli digest.")
                .arg(missing.join(QLatin1Char('\n'))),
            QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return nullptr;
    }
    // One file may hold several ranks: each rank keeps its number through an override on
    // (file, pid), so a part of the job shows the numbers of the whole.
    QStringList paths;
    std::vector<core::RankOverride> overrides;
    for (auto r : ranks) {
        const auto &rank = m_digest.ranks[r];
        const auto path = QString::fromStdString(rank.report);
        if (!paths.contains(path))
            paths << path;
        overrides.push_back({ rank.report, rank.pid, rank.rank });
    }
    auto *window = new MainWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->showRestored();
    window->openPaths(paths, overrides);
    return window;
}

} // namespace gaplens::ui
