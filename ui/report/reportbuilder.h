// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/analysis/run_scorecard.h"
#include "ui/report/intervalssection.h"
#include "ui/timeline/timelinedata.h"

#include <QImage>
#include <QMap>
#include <QString>

#include <memory>
#include <optional>

namespace gaplens::ui {

// A one-file review report of a capture, or of a before/after comparison: headline numbers
// (and the verdict with its noise method), findings in plain words, the run scorecard (or the
// sustained rate side by side), top kernels, gap blame by cause and phase, the pace chart and
// a timeline picture of a chosen range. HTML with the
// pictures inline (data: URIs), or PDF through QTextDocument + QPdfWriter. Analyses come from
// core (the comparison is core::compareTraces, reused when given); pictures are painted with
// widgets, so build() runs on the GUI thread.
class ReportBuilder
{
public:
    struct Request
    {
        std::shared_ptr<const TimelineData> capture; // the capture, or "before"
        std::shared_ptr<const TimelineData> after; // set for a comparison report
        std::shared_ptr<const core::Comparison> comparison; // reused when set, else computed
        core::TimeNs minGapNs = core::kDefaultMinGapNs;
        QString stepRange; // "" = proposed / the comparison's
        // Timeline picture range, relative to the capture start; default: steps 2-4 of the
        // step range (aligned on step 2 in both captures), else the whole capture.
        std::optional<core::TimeRange> timelineRange;
        QString title;
        std::vector<core::RunMeta> meta; // --meta facts for the run scorecard
        int topKernels = 15;
        QSize chartSize { 1200, 420 };
        QSize timelineSize { 1400, 560 };
    };

    explicit ReportBuilder(Request request);

    // Runs the analyses and paints the pictures.
    void build();
    // One self-contained HTML file (pictures as data: URIs).
    QString html() const;
    bool writeHtml(const QString &path, QString *error = nullptr) const;
    bool writePdf(const QString &path, QString *error = nullptr) const;
    // Writes HTML or PDF by the suffix (.pdf = PDF).
    bool write(const QString &path, QString *error = nullptr) const;

    bool isComparison() const { return bool(m_request.after); }
    const core::Comparison *comparison() const { return m_comparison.get(); }
    const core::CaptureSummary &summary() const { return m_summary; }
    const QMap<QString, QImage> &images() const { return m_images; } // "pace", "timeline", "timeline-after"
    // The capture report's run scorecard (core::buildRunScorecard); empty for a comparison.
    const core::RunScorecard &scorecard() const { return m_scorecard; }

private:
    // The document body; images referenced as <img src="prefix + name.png">.
    QString body(const QString &imagePrefix, int imageWidth, bool inlineData) const;
    void buildCapture();
    void collectLongestGaps(); // of m_derived, into m_longestGaps
    static constexpr std::size_t kLongestGaps = 10;
    void buildComparison();
    QImage paceChart() const;
    // The run scorecard section (a capture), or the sustained rate side by side (a comparison).
    QString scorecardSection() const;
    QImage timelinePicture(const std::shared_ptr<const TimelineData> &data, std::optional<core::TimeRange> range,
        const QString &title, int alignOccurrence) const;

    Request m_request;
    // Each capture's derived capture at the request's threshold: every table and picture reads it.
    std::shared_ptr<const core::DerivedCapture> m_derived, m_afterDerived;
    std::shared_ptr<const core::Comparison> m_comparison;
    core::CaptureSummary m_summary, m_afterSummary;
    core::RunScorecard m_scorecard;
    QString m_stepRange;
    struct KernelRow
    {
        QString name;
        std::uint64_t calls = 0;
        double totalNs = 0, avgNs = 0, percent = 0;
    };
    std::vector<KernelRow> m_kernels;
    struct BlameRow
    {
        QString key;
        std::uint64_t count = 0;
        double totalNs = 0;
    };
    std::vector<BlameRow> m_byCause, m_byPhase, m_byOsCall; // m_byOsCall empty without OS calls
    // The longest gaps with what each one's blame says, as the CLI's gaps table lists them.
    struct GapRow
    {
        std::int32_t rank = 0, device = 0;
        double startNs = 0, lengthNs = 0; // start relative to the capture's first event
        QString cause, detail, launchThread, phase;
    };
    std::vector<GapRow> m_longestGaps;
    std::uint64_t m_gapCount = 0;
    double m_gapNs = 0;
    double m_copyNs = 0; // of m_gapNs, the time copies or memsets ran
    QMap<QString, QImage> m_images;
    IntervalsSection m_intervals; // a capture report's Intervals section
};

} // namespace gaplens::ui
