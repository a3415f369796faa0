// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/trace.h"
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"

#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QSplitter;

namespace gaplens::ui {

class ComparisonController;
class TimelineSync;
class TimelineView;

// Before above after: two timelines with one synchronised zoom and pan (TimelineSync),
// aligned on absolute time (each capture's start) or on the k-th iteration of an NVTX range
// (default: the comparison's step range), so step k of both starts at the same x. Owns the
// ComparisonController that computes core::compareTraces off the GUI thread.
class CompareView : public QWidget
{
    Q_OBJECT
public:
    enum class AlignMode { AbsoluteTime, NvtxOccurrence };

    explicit CompareView(QWidget *parent = nullptr);
    ~CompareView() override;

    // Shows both captures and starts the comparison (either may be null: that side stays empty).
    void setCaptures(std::shared_ptr<const TimelineData> before, std::shared_ptr<const TimelineData> after);
    const std::shared_ptr<const TimelineData> &beforeData() const { return m_beforeData; }
    const std::shared_ptr<const TimelineData> &afterData() const { return m_afterData; }
    TimelineView *beforeView() const { return m_before; }
    TimelineView *afterView() const { return m_after; }
    TimelineSync *sync() const { return m_sync; }
    ComparisonController *controller() const { return m_controller; }
    QSplitter *splitter() const { return m_splitter; }

    // Alignment. An empty name means the comparison's step range (once it is known).
    // applyAlignment returns false (and aligns on absolute time) when a capture lacks the range.
    void setAlignment(AlignMode mode, const QString &rangeName = {}, int occurrence = 1);
    AlignMode alignMode() const;
    QString alignRangeName() const; // as typed (may be empty)
    int alignOccurrence() const;
    // The NVTX range actually used: the typed name, else the comparison's step range.
    QString effectiveRangeName() const;
    bool applyAlignment();

    // Idle-gap threshold of both timelines and of the comparison (recomputed).
    void setGapThreshold(core::TimeNs ns);
    core::TimeNs gapThreshold() const;
    // Recomputes the comparison with another step range ("" = proposed).
    void setStepRange(const QString &name);
    QString stepRange() const { return m_stepRange; }

    // Highlights on both timelines; each returns the (before, after) instance counts.
    std::pair<int, int> highlightKernel(const QString &name);
    std::pair<int, int> highlightNvtx(const QString &name);
    std::pair<int, int> highlightGaps(TimelineModel::GapHighlight kind, const QString &key);
    void clearHighlight();
    QString highlightText() const;
    // What is highlighted: "kernel", "nvtx", "cause", "phase" or "" and its name/key.
    QString highlightKind() const { return m_highlightKind; }
    QString highlightKey() const { return m_highlightKey; }

    // Start (display ns) of the k-th (1-based) NVTX range `name` on the first rank having it,
    // in the order alignOnNvtx uses; nullopt when no rank has that many.
    static std::optional<core::TimeNs> nvtxOccurrenceStart(
        const core::TraceSet &trace, const QString &name, int occurrence);
    // The same anchor read from a step table (core::StepTable::firstRankOccurrence).
    static std::optional<core::TimeNs> anchorOf(const core::StepTable &steps, int occurrence);

signals:
    void alignmentChanged();
    void statusMessage(const QString &text);
    void highlightChanged(const QString &text);

private:
    // Asks for a comparison; it starts once both timelines' derived captures are for the
    // current threshold (startPendingComparison, also called when their gaps change).
    void startComparison();
    void startPendingComparison();
    void onComparison();
    void updateCaptions();
    // highlightKernel / highlightNvtx: finds `name` on both timelines; `label` starts the text.
    std::pair<int, int> highlightName(const QString &label, const QString &kind, const QString &name);
    // Shows and announces what is highlighted (highlightText, highlightKind, highlightKey).
    void showHighlight(const QString &text, const QString &kind, const QString &key);

    TimelineView *m_before;
    TimelineView *m_after;
    QLabel *m_beforeCaption;
    QLabel *m_afterCaption;
    QSplitter *m_splitter;
    TimelineSync *m_sync;
    ComparisonController *m_controller;
    bool m_comparisonPending = false;
    QComboBox *m_alignMode;
    QLineEdit *m_alignName;
    QSpinBox *m_alignOccurrence;
    QLabel *m_highlight;
    QString m_stepRange;
    QString m_highlightText;
    QString m_highlightKind, m_highlightKey;
    std::shared_ptr<const TimelineData> m_beforeData, m_afterData;
};

} // namespace gaplens::ui
