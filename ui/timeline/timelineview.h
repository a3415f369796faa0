// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/kernel_histogram.h"
#include "ui/timeline/hitresult.h"
#include "ui/timeline/trackpainter.h"

#include <QAbstractScrollArea>

#include <memory>
#include <vector>

class QMenu;

namespace gaplens::ui {

class GapLegend;
class TimeRuler;
class TimelineModel;
class TrackLabels;
class ZoomControl;
struct TimelineData;

// The timeline: ruler on top, labels on the left, and all visible rows painted into the
// viewport by one TrackPainter. Navigation: wheel / Ctrl+wheel zoom around the cursor,
// Shift+wheel scrolls rows, drag pans, Shift+drag or right-drag zooms to a range, W/S zoom,
// A/D pan, Home fits all, Backspace / Alt+Left goes back. Click selects, double-click on a
// fold or gap zooms to it, a right click without a drag opens a kernel's context menu.
class TimelineView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    static constexpr int kLabelWidth = 270;
    static constexpr int kRulerHeight = 24;
    // Resolution of the horizontal scroll bar over the capture's time range.
    static constexpr int kScrollSteps = 1'000'000;

    explicit TimelineView(QWidget *parent = nullptr);
    ~TimelineView() override;

    void setData(std::shared_ptr<const TimelineData> data);
    TimelineModel *model() const { return m_model; }
    ZoomControl *zoom() const { return m_zoom; }
    TimeRuler *ruler() const { return m_ruler; }
    TrackPainter &trackPainter() { return m_painter; }

    // Viewport (track area) coordinates.
    HitResult hitTest(QPoint viewportPos) const;
    QRectF itemRect(const HitResult &hit) const;
    void scrollToRow(int row);

    // A right click without a drag opens it: "Copy Nsight Compute command" on a kernel;
    // nullptr for anything else.
    std::unique_ptr<QMenu> contextMenu(const HitResult &hit);
    // The Nsight Compute command (core::ncuCommandText) of a kernel hit: that launch, counted
    // in its process; empty for anything else.
    QString ncuCommand(const HitResult &hit) const;

    const HitResult &selection() const { return m_overlay.selected; }
    const HitResult &linkedItem() const { return m_overlay.linked; }
    void setSelection(const HitResult &hit);

    // Find over kernel and NVTX names (case-insensitive substring, or a regular expression).
    // Returns the number of matches; findNext/Previous select the match and bring it into view.
    int find(const QString &pattern, bool regex);
    void findNext();
    void findPrevious();
    int findMatchCount() const { return int(m_matches.size()); }
    // Highlights every kernel (and NVTX range) named exactly `name`; findNext/Previous then
    // step through them. Returns the number of instances.
    int findName(core::StringId name);
    // Highlights the events of `targets` (FindTarget flags) named one of `names`, for the NVTX
    // and CUDA API summaries; findNext/Previous step through them. Returns their number.
    enum FindTarget { FindKernels = 1, FindNvtx = 2, FindApi = 4 };
    int findNames(const std::vector<core::StringId> &names, int targets);
    // Highlights exactly `instances` (launches of the kernel `name`: a histogram bin, the
    // slowest) and makes them the matches findNext/Previous step through: in time order, or in the given order when
    // `timeOrder` is false (the slowest first). Returns their count.
    int findKernelInstances(
        core::StringId name, const std::vector<core::KernelInstance> &instances, bool timeOrder = true);

    // Navigation hooks for the side panels (absolute times; rank offsets are applied here).
    // Zooms to the gap of `gpu` overlapping `gap` at the current threshold and selects it;
    // false when no such gap is shown (e.g. a threshold mismatch).
    bool showGap(core::GpuIndex gpu, core::TimeRange gap);
    // Zooms to the gap `id` of `derived` and selects it; false when the timeline does not
    // show that derived capture (another threshold) or the id is out of range.
    bool showGap(const core::DerivedCapture &derived, core::GapId id);
    // Shows [range) of `rank` with a small margin, expands the rank and scrolls to it; when
    // thread/nvtxIndex name an NVTX range it is selected too.
    void showRankRange(core::RankIndex rank, core::TimeRange range, core::ThreadIndex thread = {},
        std::uint32_t nvtxIndex = core::kNoIndex);
    // Frames span `index` of `rank`'s state lane (model()->stateLanes()), scrolls to it and
    // selects it; false when the lane shows no such span.
    bool showStateSpan(core::RankIndex rank, std::uint32_t index);
    // Expands the rank and scrolls its header to the top.
    void scrollToRank(core::RankIndex rank);

    // Paint statistics of the last viewport repaint.
    qint64 lastPaintNs() const { return m_lastPaintNs; }
    std::size_t lastItemCount() const { return m_painter.lastItemCount(); }
    void setShowFrameTime(bool on);

    // While non-empty the view says it is loading ("Loading… 45%: reading kernels"): in the
    // middle of an empty view, or in a banner over the capture it still shows.
    void setLoadingText(const QString &text);
    const QString &loadingText() const { return m_loadingText; }

    // The keyboard's navigation (W/S zoom at the cursor, A/D pan, Home fits all), also run by
    // the windows' View > Navigate actions whatever widget has the focus.
    void zoomIn();
    void zoomOut();
    void panLeft();
    void panRight();
    void showAll();

signals:
    void selectionChanged(const gaplens::ui::HitResult &hit);
    void timeSelectionChanged(gaplens::core::TimeRange range);
    void timeSelectionCleared();
    void findPositionChanged(int current, int total); // current is 1-based, 0 = none
    void viewChanged();

protected:
    void paintEvent(QPaintEvent *) override;
    void resizeEvent(QResizeEvent *) override;
    void mousePressEvent(QMouseEvent *) override;
    void mouseMoveEvent(QMouseEvent *) override;
    void mouseReleaseEvent(QMouseEvent *) override;
    void mouseDoubleClickEvent(QMouseEvent *) override;
    void wheelEvent(QWheelEvent *) override;
    void keyPressEvent(QKeyEvent *) override;
    void leaveEvent(QEvent *) override;
    bool viewportEvent(QEvent *) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    // Jumps (find, Top kernels' Previous/Next, Gap Blame rows): the item in the middle third
    // of the window, whatever the zoom was.
    void frameItem(const HitResult &hit);
    void layoutChildren();
    void updateScrollRange();
    // The horizontal scroll bar shows the window inside the trace range (kScrollSteps steps).
    void syncHorizontalScrollBar();
    void onHorizontalScroll(int value);
    void computeLinked();
    void jumpToMatch(int index);
    void collectMatches();
    void zoomToItem(const HitResult &hit);
    double cursorXOrCenter() const;

    TimelineModel *m_model;
    ZoomControl *m_zoom;
    TimeRuler *m_ruler;
    TrackLabels *m_labels;
    GapLegend *m_legend;
    TrackPainter m_painter;
    TrackPainter::Overlay m_overlay;
    QString m_loadingText;
    bool m_syncingScrollBar = false;

    enum class Drag { None, Pan, RubberBand };
    Drag m_drag = Drag::None;
    QPoint m_pressPos, m_lastPos;
    bool m_moved = false;
    std::vector<HitResult> m_matches;
    int m_matchIndex = -1;
    int m_findTargets = FindKernels | FindNvtx; // what find's matches are collected from
    qint64 m_lastPaintNs = 0;
    bool m_showFrameTime = false;
};

} // namespace gaplens::ui
