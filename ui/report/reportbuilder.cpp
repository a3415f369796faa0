// SPDX-License-Identifier: MIT
#include "ui/report/reportbuilder.h"

#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/panel_data.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/model/nvtx_names.h"
#include "gaplens/core/util/units.h"
#include "ui/compare/compareview.h"
#include "ui/compare/comparisonmodel.h"
#include "ui/export/viewexporter.h"
#include "ui/loading/derivedcapturecontroller.h"
#include "ui/report/pagination.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QBuffer>
#include <QChart>
#include <QDateTime>
#include <QFileInfo>
#include <QLegend>
#include <QLineSeries>
#include <QLocale>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>
#include <QUrl>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace gaplens::ui {

using core::TimeNs;

namespace {

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

QString esc(const std::string &s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

QString dur(double ns)
{
    return QString::fromStdString(core::formatDuration(ns));
}

QString count(std::uint64_t n)
{
    return QLocale(QLocale::English).toString(qulonglong(n));
}

QString signedDur(double ns)
{
    return (ns > 0 ? QStringLiteral("+") : QString()) + dur(ns);
}

QString fileList(const core::TraceSet &t)
{
    QStringList names;
    for (const auto &r : t.reports)
        names << QFileInfo(QString::fromStdString(r.path)).fileName();
    return names.join(QStringLiteral(", "));
}

// A table: header cells, then rows; numeric columns (by index) right-aligned; `widths` in
// percent per column, when given (tables of one kind then line up one under another).
QString table(const QStringList &header, const std::vector<QStringList> &rows, const QList<int> &numeric = {},
    const QList<int> &widths = {})
{
    QString out = QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"4\" width=\"100%\">\n<tr>");
    for (int c = 0; c < header.size(); ++c)
        out += QStringLiteral("<th%1%2>%3</th>")
                   .arg(numeric.contains(c) ? QStringLiteral(" align=\"right\"") : QString(),
                       c < widths.size() ? QStringLiteral(" width=\"%1%\"").arg(widths[c]) : QString(), esc(header[c]));
    out += QStringLiteral("</tr>\n");
    for (const auto &row : rows) {
        out += QStringLiteral("<tr>");
        for (int c = 0; c < row.size(); ++c)
            out += QStringLiteral("<td%1>%2</td>")
                       .arg(numeric.contains(c) ? QStringLiteral(" align=\"right\"") : QString(), esc(row[c]));
        out += QStringLiteral("</tr>\n");
    }
    return out + QStringLiteral("</table>\n");
}

QString presenceNote(core::Presence p)
{
    return p == core::Presence::Both ? QString() : QString::fromLatin1(core::presenceName(p));
}

QByteArray pngBytes(const QImage &image)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

// The capture's derived capture at the report's threshold: the one it was loaded with when
// that is the threshold, else built once here (sharing its busy lanes and fold indexes).
std::shared_ptr<const core::DerivedCapture> derivedAt(const TimelineData &data, TimeNs minGapNs)
{
    if (data.derived && data.derived->minGapNs() == minGapNs && !data.derived->options().includeCopies)
        return data.derived;
    core::DerivedOptions options;
    options.minGapNs = minGapNs;
    return core::DerivedCapture::build(data.trace, options, nullptr, data.derived.get());
}

} // namespace

ReportBuilder::ReportBuilder(Request request)
    : m_request(std::move(request))
{
}

void ReportBuilder::build()
{
    m_images.clear();
    if (!m_request.capture || !m_request.capture->trace)
        return;
    m_derived = derivedAt(*m_request.capture, m_request.minGapNs);
    m_afterDerived
        = isComparison() && m_request.after->trace ? derivedAt(*m_request.after, m_request.minGapNs) : nullptr;
    if (isComparison())
        buildComparison();
    else
        buildCapture();
    const QImage pace = paceChart();
    if (!pace.isNull())
        m_images.insert(QStringLiteral("pace"), pace);
    const auto &before = m_request.capture;
    const QString title
        = isComparison() ? QString(QStringLiteral("Before: ") + fileList(*before->trace)) : fileList(*before->trace);
    m_images.insert(QStringLiteral("timeline"), timelinePicture(before, m_request.timelineRange, title, 2));
    if (!isComparison()) {
        m_intervals = IntervalsSection(*m_derived, m_request.chartSize);
        m_images.insert(m_intervals.images());
    }
    if (isComparison() && m_request.after && m_request.after->trace)
        m_images.insert(QStringLiteral("timeline-after"),
            timelinePicture(m_request.after, m_request.timelineRange,
                QStringLiteral("After: ") + fileList(*m_request.after->trace), 2));
}

void ReportBuilder::buildCapture()
{
    const auto &t = *m_request.capture->trace;
    core::CaptureSummaryOptions so;
    so.minGapNs = m_request.minGapNs;
    if (!m_request.stepRange.isEmpty())
        so.stepRange = m_request.stepRange.toStdString();
    m_summary = core::summarizeCapture(*m_derived, so);
    m_stepRange = QString::fromStdString(m_summary.stepRange);

    const auto kernels = core::summarizeKernels(t);
    m_kernels.clear();
    for (std::size_t i = 0; i < kernels.rows.size() && int(i) < m_request.topKernels; ++i) {
        const auto &r = kernels.rows[i];
        m_kernels.push_back({ QString::fromStdString(t.str(r.name)), r.stats.count, double(r.stats.totalNs),
            r.stats.avgNs, r.percent });
    }
    const core::BlameTotals &blame = m_derived->overallTotals();
    m_byCause.clear();
    m_byPhase.clear();
    for (const auto &b : blame.byCause)
        m_byCause.push_back({ QString::fromStdString(b.key), b.count, double(b.totalNs) });
    for (const auto &b : blame.byPhase)
        m_byPhase.push_back({ QString::fromStdString(b.key), b.count, double(b.totalNs) });
    m_byOsCall.clear();
    for (const auto &b : blame.byOsCall)
        if (b.name != core::kEmptyString)
            m_byOsCall.push_back({ QString::fromStdString(b.key), b.count, double(b.totalNs) });
    m_gapCount = blame.gapCount;
    m_gapNs = double(blame.totalGapNs);
    m_copyNs = double(blame.copyNs);
    core::RunAccountingOptions accounting;
    accounting.stepRange = m_summary.stepRange;
    m_scorecard = core::buildRunScorecard(t, core::computeRunAccounting(t, accounting), m_request.meta);
    collectLongestGaps();
}

void ReportBuilder::collectLongestGaps()
{
    const auto &t = m_derived->trace();
    std::vector<const core::GapBlame *> gaps;
    for (std::uint32_t g = 0; g < m_derived->gpuCount(); ++g)
        for (const auto &gap : m_derived->gaps(core::GpuIndex(g)).blame)
            gaps.push_back(&gap);
    const auto shown = std::min<std::size_t>(gaps.size(), kLongestGaps);
    std::partial_sort(gaps.begin(), gaps.begin() + std::ptrdiff_t(shown), gaps.end(), [](const auto *a, const auto *b) {
        return std::tuple(b->gap.duration(), a->gap.start) < std::tuple(a->gap.duration(), b->gap.start);
    });
    m_longestGaps.clear();
    for (std::size_t i = 0; i < shown; ++i) {
        const auto &gap = *gaps[i];
        QString launch;
        if (gap.launchThread != core::kNoIndex)
            launch = QStringLiteral("%1 (tid %2)")
                         .arg(QString::fromStdString(t.str(t.threads[gap.launchThread].name)))
                         .arg(gap.launchTid);
        QStringList phase;
        for (auto name : gap.phaseStack)
            phase << QString::fromStdString(t.str(name));
        m_longestGaps.push_back(
            { t.ranks[gap.rank].rank, t.gpus[gap.gpu].deviceId, double(gap.gap.start - t.span.start),
                double(gap.gap.duration()), QString::fromStdString(std::string(core::gapCauseKey(t, gap))),
                QString::fromStdString(core::gapCauseDetail(t, gap)), launch, phase.join(QStringLiteral(" > ")) });
    }
}

void ReportBuilder::buildComparison()
{
    m_comparison = m_request.comparison;
    if (!m_comparison) {
        core::CompareOptions options;
        options.rangeName = m_request.stepRange.toStdString();
        options.minGapNs = m_request.minGapNs;
        m_comparison
            = std::make_shared<const core::Comparison>(core::compareTraces(*m_derived, *m_afterDerived, options));
    }
    m_stepRange = QString::fromStdString(m_comparison->stepRange);
    core::CaptureSummaryOptions so;
    so.minGapNs = m_request.minGapNs;
    if (!m_stepRange.isEmpty())
        so.stepRange = m_stepRange.toStdString();
    m_summary = core::summarizeCapture(*m_derived, so);
    m_afterSummary = core::summarizeCapture(*m_afterDerived, so);
}

QImage ReportBuilder::paceChart() const
{
    // Step time per iteration: for a comparison the per-step medians across ranks that the
    // noise test used (core's figures, not recomputed); for a capture one line per rank.
    QChart chart;
    chart.setAnimationOptions(QChart::NoAnimation);
    chart.setBackgroundRoundness(0);
    auto *x = new QValueAxis;
    x->setTitleText(QStringLiteral("step"));
    x->setLabelFormat(QStringLiteral("%d"));
    auto *y = new QValueAxis;
    y->setTitleText(QStringLiteral("step time (ms)"));
    chart.addAxis(x, Qt::AlignBottom);
    chart.addAxis(y, Qt::AlignLeft);
    double maxY = 0;
    int maxX = 0;
    auto addSeries = [&](const QString &name, const std::vector<double> &ns, const QColor &colour, qreal width) {
        if (ns.empty())
            return;
        std::vector<double> ms(ns.size());
        std::transform(ns.begin(), ns.end(), ms.begin(), [](double v) { return v / 1e6; });
        QList<QPointF> points;
        for (const auto &p : core::downsampleMinMax(ms))
            points << QPointF(p.x + 1, p.y);
        auto *s = new QLineSeries;
        s->setName(name);
        s->replace(points);
        QPen pen(colour);
        pen.setWidthF(width);
        s->setPen(pen);
        chart.addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        maxY = std::max(maxY, *std::max_element(ms.begin(), ms.end()));
        maxX = std::max(maxX, int(ms.size()));
    };
    if (isComparison() && m_comparison) {
        if (!m_comparison->hasSteps)
            return {};
        chart.setTitle(QStringLiteral("Step time per iteration of %1 (median across ranks)").arg(m_stepRange));
        addSeries(QStringLiteral("before"), m_comparison->before.stepNs, QColor(120, 120, 120), 2.5);
        addSeries(QStringLiteral("after"), m_comparison->after.stepNs, QColor(31, 119, 180), 2.5);
    } else {
        if (m_stepRange.isEmpty())
            return {};
        core::PaceOptions po;
        po.rangeName = m_stepRange.toStdString();
        const auto pace = core::computePace(*m_request.capture->trace, po);
        if (pace.ranks.empty())
            return {};
        chart.setTitle(QStringLiteral("Step time per iteration of %1").arg(m_stepRange));
        static const QColor kColours[]
            = { QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44), QColor(214, 39, 40),
                  QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(188, 189, 34) };
        const auto &t = *m_request.capture->trace;
        for (std::size_t k = 0; k < pace.ranks.size() && k < 8; ++k) {
            std::vector<double> ns;
            for (const auto &it : pace.ranks[k].iterations)
                ns.push_back(double(it.durationNs));
            addSeries(QStringLiteral("rank %1").arg(t.ranks[pace.ranks[k].rank].rank), ns, kColours[k], 1.8);
        }
    }
    x->setRange(1, std::max(2, maxX));
    y->setRange(0, maxY * 1.1 + 1e-3);
    chart.legend()->setAlignment(Qt::AlignBottom);
    const QSize size = m_request.chartSize;
    return ViewExporter::paintImage(size, [&](QPainter &p, QSize s) {
        p.setRenderHint(QPainter::Antialiasing);
        ViewExporter::paintChart(p, QRect(QPoint(0, 0), s), &chart);
    });
}

QImage ReportBuilder::timelinePicture(const std::shared_ptr<const TimelineData> &data,
    std::optional<core::TimeRange> range, const QString &title, int alignOccurrence) const
{
    TimelineView source;
    source.setAttribute(Qt::WA_DontShowOnScreen);
    // The gaps drawn are the report's (its tables' derived capture), not built again.
    auto *derived = source.model()->derivedSource();
    derived->setGapThreshold(m_request.minGapNs);
    derived->setTrace(data->trace, data == m_request.after ? m_afterDerived : m_derived);
    source.setData(data);
    std::optional<core::TimeRange> window;
    if (range) {
        window = core::TimeRange { source.model()->origin() + range->start, source.model()->origin() + range->end };
    } else if (!m_stepRange.isEmpty()) {
        // Steps 2..4 (step 1 is often warm-up), both captures aligned on step 2 with the
        // before capture's duration, so the two pictures share one scale.
        const auto steps = source.model()->stepTable(m_stepRange);
        const auto first = CompareView::anchorOf(*steps, alignOccurrence);
        if (first && source.model()->alignOnNvtx(m_stepRange, alignOccurrence)) {
            const auto refSteps = m_derived->stepTable(m_stepRange.toStdString());
            const auto refStart = CompareView::anchorOf(*refSteps, alignOccurrence);
            const auto refEnd = CompareView::anchorOf(*refSteps, alignOccurrence + 3);
            TimeNs length = refStart && refEnd ? *refEnd - *refStart : 0;
            if (length <= 0) {
                const auto end = CompareView::anchorOf(*steps, alignOccurrence + 3);
                length = end ? *end - *first : source.model()->displaySpan().end - *first;
            }
            const TimeNs margin = length / 40;
            window = core::TimeRange { *first - margin, *first + length + margin };
        }
    }
    if (!window)
        window = source.model()->displaySpan();
    ViewExporter::TimelineOptions options;
    options.title = title;
    options.range = window;
    return ViewExporter::paintImage(
        m_request.timelineSize, [&](QPainter &p, QSize s) { ViewExporter::paintTimeline(p, s, source, options); });
}

QString ReportBuilder::body(const QString &imagePrefix, int imageWidth, bool inlineData) const
{
    auto image = [&](const QString &name, const QString &alt) -> QString {
        if (!m_images.contains(name))
            return {};
        const QString src = inlineData ? QString(QStringLiteral("data:image/png;base64,")
                                + QString::fromLatin1(pngBytes(m_images[name]).toBase64()))
                                       : QString(imagePrefix + name + QStringLiteral(".png"));
        return QStringLiteral("<p><img src=\"%1\" width=\"%2\" alt=\"%3\"></p>\n")
            .arg(src)
            .arg(imageWidth)
            .arg(esc(alt));
    };
    const auto &before = *m_request.capture->trace;
    QString h;
    const QString title = !m_request.title.isEmpty() ? m_request.title
        : isComparison()                             ? QStringLiteral("gaplens before/after report")
                                                     : QStringLiteral("gaplens capture report");
    h += QStringLiteral("<h1>%1</h1>\n").arg(esc(title));
    h += QStringLiteral("<p class=\"meta\">Generated %1 by gaplens.<br>")
             .arg(QDateTime::currentDateTime().toString(Qt::ISODate));
    if (isComparison()) {
        h += QStringLiteral("<b>Before:</b> %1 (%2 ranks, %3 GPUs)<br><b>After:</b> %4 (%5 ranks, %6 GPUs)")
                 .arg(esc(fileList(before)))
                 .arg(before.ranks.size())
                 .arg(before.gpus.size())
                 .arg(esc(fileList(*m_request.after->trace)))
                 .arg(m_request.after->trace->ranks.size())
                 .arg(m_request.after->trace->gpus.size());
    } else {
        h += QStringLiteral("<b>Capture:</b> %1 (%2 ranks, %3 GPUs)")
                 .arg(esc(fileList(before)))
                 .arg(before.ranks.size())
                 .arg(before.gpus.size());
    }
    h += QStringLiteral("<br>Idle gaps counted from %1; steps = NVTX range <b>%2</b>.</p>\n")
             .arg(dur(double(m_request.minGapNs)), esc(m_stepRange.isEmpty() ? QStringLiteral("(none)") : m_stepRange));

    // Headline.
    h += QStringLiteral("<h2>Headline</h2>\n");
    if (isComparison() && m_comparison) {
        const auto &c = *m_comparison;
        // The compare panel's colours; none for captures that may not be comparable.
        const bool comparable = c.notComparable.empty();
        const QColor colour = comparable && c.verdict == core::Verdict::Faster ? ComparisonModel::betterColor()
            : comparable && c.verdict == core::Verdict::Slower                 ? ComparisonModel::worseColor()
                                                                               : QColor(0x44, 0x44, 0x44);
        h += QStringLiteral("<p class=\"verdict\"><font size=\"+2\" color=\"%1\"><b>%2</b></font></p>\n")
                 .arg(colour.name(), esc(c.verdictText));
        if (!c.verdictDetail.empty())
            h += QStringLiteral("<p>%1</p>\n").arg(esc(c.verdictDetail));
        // What the figures are per, and the kernels that changed per call beyond the noise.
        QString perCall = QStringLiteral("<b>Figures:</b> ") + esc(c.work.text);
        for (const auto &[changes, tint] : { std::pair { &c.regressions, ComparisonModel::worseColor() },
                 std::pair { &c.improvements, ComparisonModel::betterColor() } })
            for (const auto &change : *changes)
                perCall += QStringLiteral("<br><font color=\"%1\">%2</font>").arg(tint.name(), esc(change.text));
        if (c.regressions.empty() && c.improvements.empty())
            perCall += QStringLiteral("<br>No kernel changed per call beyond the noise rule.");
        h += QStringLiteral("<p class=\"percall\">%1</p>\n").arg(perCall);
        if (!c.perCallRule.empty())
            h += QStringLiteral("<p class=\"note\"><i>Per-call rule: %1.</i></p>\n").arg(esc(c.perCallRule));
        std::vector<QStringList> rows;
        for (const auto &m : c.headline)
            rows.push_back({ QString::fromStdString(m.label), ComparisonModel::formatMetric(m.unit, m.before),
                ComparisonModel::formatMetric(m.unit, m.after), ComparisonModel::formatChange(m.changePercent),
                m.noisePercent ? QStringLiteral("±%1%").arg(*m.noisePercent, 0, 'f', 1) : QStringLiteral("-"),
                ComparisonModel::judgementText(m) });
        h += table({ QStringLiteral("metric"), QStringLiteral("before"), QStringLiteral("after"),
                       QStringLiteral("change"), QStringLiteral("noise"), QStringLiteral("judgement") },
            rows, { 1, 2, 3, 4 });
        h += QStringLiteral("<p class=\"note\"><i>Noise test: %1.</i></p>\n").arg(esc(c.noiseMethod));
        for (const auto &w : c.warnings)
            h += QStringLiteral("<p class=\"warning\">Warning: %1</p>\n").arg(esc(w));
    } else {
        std::vector<QStringList> rows;
        for (const auto &r : m_summary.rows) {
            const QString rank
                = r.rank < before.ranks.size() ? QString::number(before.ranks[r.rank].rank) : QStringLiteral("-");
            const QString gpu
                = r.gpu < before.gpus.size() ? QString::number(before.gpus[r.gpu].deviceId) : QStringLiteral("-");
            rows.push_back({ rank, gpu, QString::fromStdString(core::formatPercent(r.busyPercent)),
                dur(double(r.idleNs)), count(r.gapCount), QString::number(r.steps),
                r.medianStepNs ? dur(*r.medianStepNs) : QStringLiteral("-"),
                r.medianKernelNsPerStep ? dur(*r.medianKernelNsPerStep) : QStringLiteral("-"),
                r.medianStepBusyPercent ? QString::fromStdString(core::formatPercent(*r.medianStepBusyPercent))
                                        : QStringLiteral("-") });
        }
        h += table(
            { QStringLiteral("rank"), QStringLiteral("GPU"), QStringLiteral("GPU busy"), QStringLiteral("idle in gaps"),
                QStringLiteral("gaps"), QStringLiteral("steps"), QStringLiteral("median step"),
                QStringLiteral("kernel time / step"), QStringLiteral("busy in step") },
            rows, { 2, 3, 4, 5, 6, 7, 8 });
    }

    // Findings.
    h += QStringLiteral("<h2>Findings</h2>\n");
    auto findings = [&](const core::CaptureSummary &s, const QString &label) -> QString {
        QString out;
        if (!label.isEmpty())
            out += QStringLiteral("<p><b>%1</b></p>\n").arg(esc(label));
        if (s.findings.empty())
            return out + QStringLiteral("<p>No findings.</p>\n");
        out += QStringLiteral("<ul>\n");
        for (const auto &f : s.findings)
            out += QStringLiteral("<li>%1</li>\n").arg(esc(f.text));
        return out + QStringLiteral("</ul>\n");
    };
    h += findings(m_summary, isComparison() ? QStringLiteral("Before") : QString());
    if (isComparison())
        h += findings(m_afterSummary, QStringLiteral("After"));

    h += scorecardSection();

    // Pace chart and timeline picture.
    if (m_images.contains(QStringLiteral("pace"))) {
        h += QStringLiteral("<h2>Pace</h2>\n");
        h += image(QStringLiteral("pace"), QStringLiteral("step time per iteration"));
    }
    h += QStringLiteral("<h2>Timeline</h2>\n");
    h += image(QStringLiteral("timeline"), QStringLiteral("timeline"));
    h += image(QStringLiteral("timeline-after"), QStringLiteral("timeline after"));
    if (!isComparison())
        h += m_intervals.html(
            image, [](const QStringList &header, const std::vector<QStringList> &rows, const QList<int> &numeric) {
                return table(header, rows, numeric);
            });

    // Top kernels.
    h += QStringLiteral("<h2>Top kernels</h2>\n");
    if (isComparison() && m_comparison) {
        std::vector<QStringList> rows;
        for (std::size_t i = 0; i < m_comparison->kernels.size() && int(i) < m_request.topKernels; ++i) {
            const auto &k = m_comparison->kernels[i];
            rows.push_back(
                { QString::fromStdString(k.name), count(k.callsBefore), count(k.callsAfter), dur(double(k.totalBefore)),
                    dur(double(k.totalAfter)), k.callsBefore ? dur(k.avgBefore) : QStringLiteral("-"),
                    k.callsAfter ? dur(k.avgAfter) : QStringLiteral("-"), signedDur(double(k.deltaNs)),
                    presenceNote(k.presence) });
        }
        h += QStringLiteral("<p>Sorted by the change of total time.</p>\n");
        h += table({ QStringLiteral("kernel"), QStringLiteral("calls before"), QStringLiteral("calls after"),
                       QStringLiteral("total before"), QStringLiteral("total after"), QStringLiteral("avg before"),
                       QStringLiteral("avg after"), QStringLiteral("change"), QStringLiteral("note") },
            rows, { 1, 2, 3, 4, 5, 6, 7 });
    } else {
        std::vector<QStringList> rows;
        for (const auto &k : m_kernels)
            rows.push_back({ k.name, count(k.calls), dur(k.totalNs), dur(k.avgNs),
                QString::fromStdString(core::formatPercent(k.percent)) });
        h += table({ QStringLiteral("kernel"), QStringLiteral("calls"), QStringLiteral("total"), QStringLiteral("avg"),
                       QStringLiteral("share") },
            rows, { 1, 2, 3, 4 });
    }

    // Gap blame.
    h += QStringLiteral("<h2>Gap blame (idle gaps ≥ %1)</h2>\n").arg(dur(double(m_request.minGapNs)));
    if (isComparison() && m_comparison) {
        auto idle = [&](const std::vector<core::IdleChange> &list, const QString &what) {
            std::vector<QStringList> rows;
            for (const auto &r : list)
                rows.push_back({ QString::fromStdString(r.key), count(r.countBefore), count(r.countAfter),
                    dur(double(r.totalBefore)), dur(double(r.totalAfter)), signedDur(double(r.deltaNs)),
                    presenceNote(r.presence) });
            return table(
                { what, QStringLiteral("gaps before"), QStringLiteral("gaps after"), QStringLiteral("idle before"),
                    QStringLiteral("idle after"), QStringLiteral("change"), QStringLiteral("note") },
                rows, { 1, 2, 3, 4, 5 });
        };
        h += QStringLiteral("<h3>By cause</h3>\n") + idle(m_comparison->idleByCause, QStringLiteral("cause"));
        h += QStringLiteral("<h3>By NVTX phase</h3>\n") + idle(m_comparison->idleByPhase, QStringLiteral("phase"));
    } else {
        h += QStringLiteral("<p>%1 gaps, %2 idle in total%3.</p>\n")
                 .arg(count(m_gapCount), dur(m_gapNs),
                     m_copyNs > 0 ? QStringLiteral(", of which copies or memsets ran %1").arg(dur(m_copyNs))
                                  : QString());
        auto blame = [&](const std::vector<BlameRow> &list, const QString &what) {
            std::vector<QStringList> rows;
            for (const auto &r : list)
                rows.push_back({ r.key, count(r.count), dur(r.totalNs),
                    QString::fromStdString(core::formatPercent(m_gapNs > 0 ? r.totalNs / m_gapNs * 100 : 0)) });
            return table(
                { what, QStringLiteral("gaps"), QStringLiteral("idle"), QStringLiteral("share") }, rows, { 1, 2, 3 });
        };
        h += QStringLiteral("<h3>By cause</h3>\n") + blame(m_byCause, QStringLiteral("cause"));
        h += QStringLiteral("<h3>By NVTX phase</h3>\n") + blame(m_byPhase, QStringLiteral("phase"));
        if (!m_byOsCall.empty())
            h += QStringLiteral("<h3>By OS call the host was in (gaps with no CUDA call)</h3>\n")
                + blame(m_byOsCall, QStringLiteral("OS call"));
        if (!m_longestGaps.empty()) {
            std::vector<QStringList> rows;
            for (const auto &g : m_longestGaps)
                rows.push_back(
                    { QString::number(g.rank), QString::number(g.device), QStringLiteral("+") + dur(g.startNs),
                        dur(g.lengthNs), g.cause, g.detail, g.launchThread, g.phase });
            h += QStringLiteral("<h3>Longest gaps</h3>\n")
                + table({ QStringLiteral("rank"), QStringLiteral("GPU"), QStringLiteral("start"),
                            QStringLiteral("length"), QStringLiteral("cause"), QStringLiteral("detail"),
                            QStringLiteral("launched by"), QStringLiteral("NVTX phase") },
                    rows, { 0, 1, 2, 3 });
        }
    }
    return h;
}

QString ReportBuilder::scorecardSection() const
{
    QString h = QStringLiteral("<h2>Run scorecard</h2>\n");
    auto meta = [&] {
        std::vector<QStringList> rows;
        for (const auto &m : m_request.meta)
            rows.push_back({ QString::fromStdString(m.key), QString::fromStdString(m.value) });
        return rows.empty() ? QString()
                            : QStringLiteral("<h3>%1</h3>\n").arg(esc(std::string(core::kScorecardSupplied)))
                + table({ QStringLiteral("item"), QStringLiteral("value") }, rows);
    };
    if (isComparison()) {
        if (!m_comparison)
            return {};
        const auto &c = *m_comparison;
        if (c.sustained.empty())
            return h + QStringLiteral("<p>No run accounting to compare: %1.</p>\n").arg(esc(c.sustainedError)) + meta();
        h += QStringLiteral("<p>Work per second of step time (active) and of wall time (sustained) over each "
                            "capture's default window, and where that window went (docs/run-accounting.md).</p>\n");
        std::vector<QStringList> rows;
        for (const auto &m : c.sustained)
            rows.push_back({ QString::fromStdString(m.label), ComparisonModel::formatMetric(m.unit, m.before),
                ComparisonModel::formatMetric(m.unit, m.after), ComparisonModel::formatChange(m.changePercent) });
        return h
            + table({ QStringLiteral("metric"), QStringLiteral("before"), QStringLiteral("after"),
                        QStringLiteral("change") },
                rows, { 1, 2, 3 })
            + meta();
    }
    if (!m_scorecard.unavailable.empty())
        h += QStringLiteral("<p>No run scorecard: %1.</p>\n").arg(esc(m_scorecard.unavailable));
    for (const auto &section : m_scorecard.sections) {
        // A section that says nothing about how (the --meta facts) has no such column.
        const bool how
            = std::any_of(section.rows.begin(), section.rows.end(), [](const auto &r) { return !r.how.empty(); });
        std::vector<QStringList> rows;
        for (const auto &r : section.rows) {
            rows.push_back({ QString::fromStdString(r.item), QString::fromStdString(r.value) });
            if (how)
                rows.back() << QString::fromStdString(r.how);
        }
        QStringList header { QStringLiteral("item"), QStringLiteral("value") };
        if (how)
            header << QStringLiteral("how");
        h += QStringLiteral("<h3>%1</h3>\n").arg(esc(section.title))
            + table(header, rows, {}, how ? QList<int> { 20, 25, 55 } : QList<int> { 20, 80 });
    }
    return h;
}

QString ReportBuilder::html() const
{
    if (!m_request.capture || !m_request.capture->trace)
        return {};
    const QString style
        = QStringLiteral("body { font-family: sans-serif; max-width: 1200px; margin: 2em auto; color: #222; }\n"
                         "table { border-collapse: collapse; margin-bottom: 1em; font-size: 0.95em; }\n"
                         "th { background: #e3e6ec; } td, th { border: 1px solid #c8ccd4; padding: 3px 6px; }\n"
                         "img { max-width: 100%; height: auto; border: 1px solid #c8ccd4; }\n"
                         ".meta { color: #555; } .warning { color: #b35c00; }\n");
    return QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gaplens "
                          "report</title>\n<style>\n%1</style></head>\n<body>\n%2</body></html>\n")
        .arg(style, body({}, 1200, true));
}

bool ReportBuilder::writeHtml(const QString &path, QString *error) const
{
    QSaveFile file(path);
    const QByteArray bytes = html().toUtf8();
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool ReportBuilder::writePdf(const QString &path, QString *error) const
{
    QPdfWriter writer(path);
    writer.setTitle(m_request.title.isEmpty() ? QStringLiteral("gaplens report") : m_request.title);
    writer.setCreator(QStringLiteral("gaplens"));
    writer.setPageLayout(QPageLayout(
        QPageSize(QPageSize::A4), QPageLayout::Landscape, QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter));
    writer.setResolution(110);
    QTextDocument doc;
    // QTextDocument does not read data: URIs; the pictures go in as resources instead.
    for (auto it = m_images.cbegin(); it != m_images.cend(); ++it)
        doc.addResource(QTextDocument::ImageResource,
            QUrl(QStringLiteral("report:") + it.key() + QStringLiteral(".png")), it.value());
    QFont font = doc.defaultFont();
    font.setPointSizeF(9);
    doc.setDefaultFont(font);
    doc.setDefaultStyleSheet(QStringLiteral("th { background-color: #e3e6ec; } .meta { color: #555555; }"));
    // The page's text width in the writer's pixels; pictures take the full width.
    const QRectF page = writer.pageLayout().paintRectPixels(writer.resolution());
    doc.setHtml(QStringLiteral("<html><body>%1</body></html>")
                    .arg(body(QStringLiteral("report:"), int(page.width() * 0.95), false)));
    doc.setPageSize(page.size());
    paginate(doc); // headings kept with what they head, no page left mostly blank
    doc.print(&writer);
    if (!QFileInfo::exists(path) || QFileInfo(path).size() == 0) {
        if (error)
            *error = QStringLiteral("%1: cannot write the PDF").arg(path);
        return false;
    }
    return true;
}

bool ReportBuilder::write(const QString &path, QString *error) const
{
    return path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive) ? writePdf(path, error) : writeHtml(path, error);
}

} // namespace gaplens::ui
