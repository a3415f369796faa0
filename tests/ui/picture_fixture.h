// SPDX-License-Identifier: MIT
#pragma once
// Timeline pictures in the ui tests: grabbing a view and finding times and rows in its picture,
// and checks on exported pictures of the fixture's capture.
#include "ui/timeline/colors.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"
#include "ui_fixture.h"

#include <QImage>
#include <QPoint>
#include <QRect>
#include <QTest>

#include <cmath>

namespace fixture {

// The view's picture as on screen; also saved as GAPLENS_SCREENSHOT_DIR/fileName when that is
// set, to look at.
inline QImage grabTimeline(gaplens::ui::TimelineView &view, const QString &fileName)
{
    QImage image = view.grab().toImage();
    if (qEnvironmentVariableIsSet("GAPLENS_SCREENSHOT_DIR"))
        image.save(qEnvironmentVariable("GAPLENS_SCREENSHOT_DIR") + QLatin1Char('/') + fileName);
    return image;
}

// The x of time t (absolute ns) in the view's picture.
inline int imageX(const gaplens::ui::TimelineView &view, TimeNs t)
{
    return view.viewport()->geometry().left() + int(std::lround(view.zoom()->timeToX(t)));
}

// A row's band, the picture's width, in the view's picture.
inline QRect rowBand(const gaplens::ui::TimelineView &view, const gaplens::ui::TimelineRow &row)
{
    const QRect vp = view.viewport()->geometry();
    return { vp.left(), vp.top() + row.y, vp.width(), row.height };
}

// The middle of `row` at time t (absolute ns), dy pixels lower, in the view's picture.
inline QPoint imagePoint(
    const gaplens::ui::TimelineView &view, const gaplens::ui::TimelineRow &row, TimeNs t, int dy = 0)
{
    return { imageX(view, t), rowBand(view, row).top() + row.height / 2 + dy };
}

// What the view shows at a point of its picture.
inline gaplens::ui::HitResult hitAtImage(const gaplens::ui::TimelineView &view, QPoint image)
{
    return view.hitTest(image - view.viewport()->geometry().topLeft());
}

// The x of 1000 us in a timeline picture of buildTrace() spanning its 3.2 ms: sgemm_kernel
// alone runs there on every rank.
inline int sgemmColumn(const QImage &picture)
{
    using gaplens::ui::TimelineView;
    return TimelineView::kLabelWidth + int(1000 / 3200.0 * (picture.width() - TimelineView::kLabelWidth));
}

// Checks that `picture` shows sgemm_kernel's colour at sgemmColumn() on each merged-kernel row
// of `rows` (laid out in the picture's view area `view`), and that there are `lanes` of them.
inline void checkSgemmOnEveryLane(
    const QImage &picture, const QRect &view, const gaplens::ui::TimelineModel &rows, int lanes)
{
    using gaplens::ui::TimelineView;
    const int x = sgemmColumn(picture);
    int seen = 0;
    for (const auto &row : rows.rows()) {
        if (row.kind != gaplens::ui::RowKind::MergedKernels)
            continue;
        ++seen;
        const int y = view.top() + TimelineView::kRulerHeight + row.y + 4;
        QVERIFY2(near(picture.pixelColor(x, y), gaplens::ui::kernelColor("sgemm_kernel")),
            qPrintable(QStringLiteral("rank %1 at (%2,%3): %4")
                           .arg(row.rank.value())
                           .arg(x)
                           .arg(y)
                           .arg(picture.pixelColor(x, y).name())));
    }
    QCOMPARE(seen, lanes);
}

} // namespace fixture
