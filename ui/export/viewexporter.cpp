// SPDX-License-Identifier: MIT
#include "ui/export/viewexporter.h"

#include "ui/theme/theme.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QAbstractAxis>
#include <QAbstractItemModel>
#include <QBuffer>
#include <QChart>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QLegend>
#include <QPainter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScrollBar>
#include <QSvgGenerator>

#include <algorithm>
#include <map>
#include <memory>

namespace gaplens::ui::ViewExporter {

using core::TimeNs;

Format formatFor(const QString &path)
{
    return path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ? Format::Svg : Format::Png;
}

int textPixelSize(int height)
{
    // ~1/40 of the picture: 22 px on a 900 px slide, never below 12 px.
    return std::clamp(height / 40, 12, 40);
}

QImage paintImage(QSize size, const PaintFunction &paint)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(1);
    image.fill(Theme::current().emptyBackground);
    QPainter p(&image);
    paint(p, size);
    p.end();
    return image;
}

QByteArray paintSvg(QSize size, const QString &title, const PaintFunction &paint)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setResolution(96);
        svg.setTitle(title.isEmpty() ? QStringLiteral("gaplens") : title);
        svg.setDescription(QStringLiteral("Exported by gaplens"));
        QPainter p(&svg);
        p.fillRect(QRect(QPoint(0, 0), size), Theme::current().emptyBackground);
        paint(p, size);
        p.end();
    }
    QByteArray out = buffer.data();
    // QSvgGenerator gives the size in millimetres; viewers should open it at the requested
    // pixel size, so the root element's width/height are rewritten in px.
    const qsizetype root = out.indexOf("<svg");
    const qsizetype rootEnd = root < 0 ? -1 : out.indexOf('>', root);
    if (rootEnd > root) {
        QString head = QString::fromUtf8(out.mid(root, rootEnd - root));
        static const QRegularExpression w(QStringLiteral("\\swidth=\"[^\"]*\"")),
            h(QStringLiteral("\\sheight=\"[^\"]*\""));
        head.replace(w, QStringLiteral(" width=\"%1\"").arg(size.width()));
        head.replace(h, QStringLiteral(" height=\"%1\"").arg(size.height()));
        out = out.left(root) + head.toUtf8() + out.mid(rootEnd);
    }
    return out;
}

bool writeFile(const QString &path, QSize size, const QString &title, const PaintFunction &paint, QString *error)
{
    auto fail = [&](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    if (size.width() <= 0 || size.height() <= 0)
        return fail(QStringLiteral("invalid size %1x%2").arg(size.width()).arg(size.height()));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(QStringLiteral("%1: %2").arg(path, file.errorString()));
    if (formatFor(path) == Format::Svg) {
        file.write(paintSvg(size, title, paint));
    } else {
        const QImage image = paintImage(size, paint);
        if (!image.save(&file, "PNG"))
            return fail(QStringLiteral("%1: cannot encode the PNG").arg(path));
    }
    if (!file.commit())
        return fail(QStringLiteral("%1: %2").arg(path, file.errorString()));
    return true;
}

TimelineLayout timelineLayout(QSize size, bool decorated)
{
    TimelineLayout l;
    if (!decorated) {
        l.view = QRect(QPoint(0, 0), size);
        return l;
    }
    const int px = textPixelSize(size.height());
    const int titleH = px * 2;
    const int legendH = px * 2;
    l.title = QRect(0, 0, size.width(), titleH);
    l.legend = QRect(0, size.height() - legendH, size.width(), legendH);
    l.view = QRect(0, titleH, size.width(), std::max(1, size.height() - titleH - legendH));
    return l;
}

namespace {

// The capture as its user named it: its file, or the folder holding all its reports.
QString captureName(const TimelineModel &model)
{
    const auto *t = model.trace();
    if (!t || t->reports.empty())
        return QStringLiteral("gaplens");
    QStringList names;
    QString folder = QFileInfo(QString::fromStdString(t->reports.front().path)).absolutePath();
    for (const auto &r : t->reports) {
        const QFileInfo file(QString::fromStdString(r.path));
        names << file.fileName();
        if (file.absolutePath() != folder)
            folder.clear();
    }
    if (names.size() == 1)
        return names.front();
    if (!folder.isEmpty())
        return QStringLiteral("%1 (%2 reports)").arg(QFileInfo(folder).fileName()).arg(names.size());
    return names.size() <= 3 ? names.join(QStringLiteral(", ")) : QStringLiteral("%1 reports").arg(names.size());
}

// The kernels with most time inside the window (display ns), most first.
std::vector<std::pair<core::StringId, TimeNs>> topKernelsIn(
    const TimelineModel &model, core::TimeRange window, std::size_t n)
{
    std::map<core::StringId, TimeNs> byName;
    const auto *t = model.trace();
    if (!t)
        return {};
    for (const auto &gpu : t->gpus)
        for (const auto &s : gpu.streams) {
            const TimeNs off = model.rankOffset(core::RankIndex(s.rank));
            const auto &k = s.kernels;
            // Kernels are sorted by start: only those starting inside the window are summed.
            auto it = std::lower_bound(k.start.begin(), k.start.end(), window.start - off);
            const auto last = std::lower_bound(it, k.start.end(), window.end - off);
            for (; it != last; ++it) {
                const auto i = std::size_t(it - k.start.begin());
                byName[k.shortName[i]] += k.end[i] - k.start[i];
            }
        }
    std::vector<std::pair<core::StringId, TimeNs>> out(byName.begin(), byName.end());
    std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    if (out.size() > n)
        out.resize(n);
    return out;
}

void drawSwatch(QPainter &p, int &x, int y, int h, const QColor &c, const QString &label, int maxRight)
{
    const QFontMetrics fm(p.font());
    const int box = h * 6 / 10;
    const int width = box + 6 + fm.horizontalAdvance(label) + h;
    if (x + width > maxRight)
        return;
    p.fillRect(QRect(x, y + (h - box) / 2, box, box), QColor(c.red(), c.green(), c.blue()));
    p.setPen(Theme::current().rulerText);
    p.drawText(QRect(x + box + 6, y, width, h), Qt::AlignVCenter | Qt::AlignLeft, label);
    x += width;
}

QFont pixelFont(int px, bool bold = false)
{
    QFont f;
    f.setPixelSize(std::max(8, px));
    f.setBold(bold);
    return f;
}

} // namespace

QSize timelinePictureSize(const TimelineView &source, QSize requested, const TimelineOptions &options)
{
    if (options.fit != Fit::Grow)
        return requested;
    // The rows' height at the options' detail, measured on a model of the same data.
    TimelineModel rows;
    rows.setDerivedSource(source.model()->derivedSource());
    rows.setData(source.model()->sharedData());
    rows.copyViewStateFrom(*source.model());
    rows.setRowScale(1);
    if (options.detail)
        rows.setDetail(*options.detail);
    const int content = rows.totalHeight() + TimelineView::kRulerHeight;
    // The bands grow with the picture's height (textPixelSize), so settle on a height.
    int height = requested.height();
    for (int i = 0; i < 8; ++i) { // settles in a few steps: the bands stop growing at 40 px text
        const TimelineLayout l = timelineLayout(QSize(requested.width(), height), options.decorated);
        const int next = std::max(requested.height(), content + height - l.view.height());
        if (next == height)
            break;
        height = next;
    }
    return QSize(requested.width(), height);
}

QString fitNote(const TimelineModel::RowFit &fit, RowDetail requested)
{
    if (fit.ranksShown < fit.rankCount)
        return QStringLiteral("%1 of %2 ranks fit: grow the picture").arg(fit.ranksShown).arg(fit.rankCount);
    if (fit.scale < 1)
        return QStringLiteral("rows shrunk to fit");
    if (fit.detail < requested)
        return fit.detail == RowDetail::GpuLanes ? QStringLiteral("GPU lanes only, to fit")
                                                 : QStringLiteral("detail rows hidden to fit");
    return {};
}

TimelineModel::RowFit paintTimeline(
    QPainter &painter, QSize size, const TimelineView &source, const TimelineOptions &options)
{
    const Theme &theme = Theme::current();
    const TimelineLayout l = timelineLayout(size, options.decorated);

    TimelineView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    // The picture uses the full width and height: no scroll bars.
    view.setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view.setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view.resize(l.view.size());
    // The screen's derived capture, shared: the picture shows its gaps and builds nothing.
    view.model()->setDerivedSource(source.model()->derivedSource());
    view.setData(source.model()->sharedData());
    view.model()->copyViewStateFrom(*source.model());
    view.model()->setRowScale(1);
    if (options.detail)
        view.model()->setDetail(*options.detail);
    const RowDetail requested = view.model()->detail();
    view.show();
    view.resize(l.view.size());
    // Every rank from the first row: the picture never depends on where the screen scrolled.
    TimelineModel::RowFit fit;
    fit.detail = requested;
    fit.rankCount = view.model()->trace() ? int(view.model()->trace()->ranks.size()) : 0;
    fit.ranksShown = fit.rankCount;
    if (options.fit == Fit::Shrink)
        fit = view.model()->fitToHeight(view.viewport()->height());
    view.verticalScrollBar()->setValue(0);
    view.zoom()->setWidth(view.viewport()->width());
    view.zoom()->setTraceRange(source.zoom()->traceRange());
    const core::TimeRange window
        = options.range.value_or(core::TimeRange { source.zoom()->windowStart(), source.zoom()->windowEnd() });
    view.zoom()->setWindow(window.start, window.end, false);
    if (source.selection().isValid())
        view.setSelection(source.selection());

    painter.save();
    painter.translate(l.view.topLeft());
    view.render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.restore();
    if (!options.decorated)
        return fit;

    const int px = textPixelSize(size.height());
    // Title band: what and which time range, in the ruler's time base (capture start = 0).
    painter.fillRect(l.title, theme.headerBackground);
    painter.setFont(pixelFont(px, true));
    painter.setPen(theme.labelText);
    const QString title = options.title.isEmpty() ? captureName(*view.model()) : options.title;
    const QRect titleText = l.title.adjusted(px / 2, 0, -px / 2, 0);
    const TimeNs origin = view.model()->origin();
    QString range = QStringLiteral("%1 – %2  (%3)  ·  gaps ≥ %4")
                        .arg(formatDuration(view.zoom()->windowStart() - origin),
                            formatDuration(view.zoom()->windowEnd() - origin),
                            formatDuration(view.zoom()->windowEnd() - view.zoom()->windowStart()),
                            formatDuration(view.model()->gapThreshold(), 0));
    if (const QString note = fitNote(fit, requested); !note.isEmpty())
        range += QStringLiteral("  ·  ") + note;
    painter.setFont(pixelFont(px * 85 / 100));
    const int rangeWidth = QFontMetrics(painter.font()).horizontalAdvance(range);
    painter.drawText(titleText, Qt::AlignVCenter | Qt::AlignRight, range);
    painter.setFont(pixelFont(px, true));
    painter.drawText(titleText.adjusted(0, 0, -rangeWidth - px, 0), Qt::AlignVCenter | Qt::AlignLeft,
        QFontMetrics(painter.font()).elidedText(title, Qt::ElideMiddle, titleText.width() - rangeWidth - px));

    // Legend band: gap causes (the bands' colours) and the kernels with most time in view.
    painter.fillRect(l.legend, theme.rulerBackground);
    painter.setPen(theme.separator);
    painter.drawLine(l.legend.topLeft(), l.legend.topRight());
    painter.setFont(pixelFont(px * 8 / 10));
    int x = l.legend.left() + px / 2;
    const int y = l.legend.top(), h = l.legend.height();
    const QString gapsHead = QStringLiteral("Idle gaps ≥ %1:").arg(formatDuration(view.model()->gapThreshold(), 0));
    painter.setPen(theme.rulerText);
    painter.drawText(QRect(x, y, size.width(), h), Qt::AlignVCenter | Qt::AlignLeft, gapsHead);
    x += QFontMetrics(painter.font()).horizontalAdvance(gapsHead) + px / 2;
    for (auto c : { core::GapCause::QueuedDependencyWait, core::GapCause::ApiCall, core::GapCause::NoCudaCall,
             core::GapCause::Copy })
        drawSwatch(painter, x, y, h, gapCauseColor(c), gapCauseShortLabel(c), l.legend.right());
    x += px;
    const auto kernels = topKernelsIn(*view.model(), { view.zoom()->windowStart(), view.zoom()->windowEnd() }, 8);
    if (!kernels.empty()) {
        const QString head = QStringLiteral("Kernels:");
        painter.drawText(QRect(x, y, size.width(), h), Qt::AlignVCenter | Qt::AlignLeft, head);
        x += QFontMetrics(painter.font()).horizontalAdvance(head) + px / 2;
        for (const auto &[name, ns] : kernels) {
            QString label = view.model()->str(name);
            if (label.size() > 28)
                label = label.left(26) + QStringLiteral("…");
            drawSwatch(painter, x, y, h, view.model()->kernelColor(name), label, l.legend.right());
        }
    }
    return fit;
}

bool exportTimeline(
    const TimelineView &source, const QString &path, QSize size, const TimelineOptions &options, QString *error)
{
    const QString title = options.title.isEmpty() ? captureName(*source.model()) : options.title;
    return writeFile(
        path, timelinePictureSize(source, size, options), title,
        [&](QPainter &p, QSize s) { paintTimeline(p, s, source, options); }, error);
}

void paintChart(QPainter &painter, QRect target, QChart *chart)
{
    if (!chart || target.isEmpty())
        return;
    std::unique_ptr<QGraphicsScene> own;
    QGraphicsScene *scene = chart->scene();
    if (!scene) {
        own = std::make_unique<QGraphicsScene>();
        own->addItem(chart);
        scene = own.get();
    }
    // Fonts scaled for the picture's height (a 160 px panel chart's 8 pt labels would be
    // unreadable on a 900 px slide), restored afterwards with the geometry.
    const double scale = std::clamp(target.height() / 300.0, 1.0, 3.0);
    struct SavedFont
    {
        QAbstractAxis *axis;
        QFont labels, title;
    };
    std::vector<SavedFont> axes;
    for (QAbstractAxis *a : chart->axes()) {
        axes.push_back({ a, a->labelsFont(), a->titleFont() });
        QFont f = a->labelsFont();
        f.setPointSizeF(f.pointSizeF() * scale);
        a->setLabelsFont(f);
        QFont t = a->titleFont();
        t.setPointSizeF(t.pointSizeF() * scale);
        a->setTitleFont(t);
    }
    const QFont legendFont = chart->legend()->font();
    const QFont titleFont = chart->titleFont();
    QFont lf = legendFont;
    lf.setPointSizeF(lf.pointSizeF() * scale);
    chart->legend()->setFont(lf);
    QFont tf = titleFont;
    tf.setPointSizeF(tf.pointSizeF() * scale);
    chart->setTitleFont(tf);

    const QRectF oldGeometry = chart->geometry();
    chart->setGeometry(QRectF(oldGeometry.topLeft(), QSizeF(target.size())));
    if (chart->layout())
        chart->layout()->activate();
    QCoreApplication::sendPostedEvents(); // QChart lays out its plot area on a posted event
    if (chart->layout())
        chart->layout()->activate();
    scene->render(&painter, QRectF(target), chart->mapRectToScene(chart->rect()));

    chart->setTitleFont(titleFont);
    chart->legend()->setFont(legendFont);
    for (const auto &s : axes) {
        s.axis->setLabelsFont(s.labels);
        s.axis->setTitleFont(s.title);
    }
    chart->setGeometry(oldGeometry);
    if (own)
        own->removeItem(chart);
}

bool exportChart(QChart *chart, const QString &path, QSize size, QString *error)
{
    return writeFile(
        path, size, chart ? chart->title() : QString(),
        [&](QPainter &p, QSize s) { paintChart(p, QRect(QPoint(0, 0), s), chart); }, error);
}

void paintTable(QPainter &painter, QRect target, const QAbstractItemModel &model, const QString &title)
{
    const Theme &theme = Theme::current();
    const int px = std::max(11, textPixelSize(target.height()) * 8 / 10);
    const int rowH = px * 17 / 10;
    const int pad = px / 2;
    int y = target.top();
    painter.save();
    painter.setClipRect(target);
    painter.fillRect(target, theme.rowBackground);
    if (!title.isEmpty()) {
        painter.setFont(pixelFont(px * 12 / 10, true));
        painter.setPen(theme.labelText);
        painter.drawText(QRect(target.left() + pad, y, target.width() - 2 * pad, rowH * 13 / 10),
            Qt::AlignVCenter | Qt::AlignLeft, title);
        y += rowH * 13 / 10;
    }
    const int columns = model.columnCount();
    const int rows = model.rowCount();
    const int fitRows = std::max(0, (target.bottom() - y) / rowH - 1); // minus the header
    const bool more = rows > fitRows;
    const int shown = more ? std::max(0, fitRows - 1) : rows;

    // Column widths from the header and the shown cells, shrunk proportionally to fit.
    const QFont normal = pixelFont(px), bold = pixelFont(px, true);
    const QFontMetrics fm(normal), fmb(bold);
    std::vector<int> widths(columns, 0);
    for (int c = 0; c < columns; ++c) {
        widths[c] = fmb.horizontalAdvance(model.headerData(c, Qt::Horizontal).toString()) + 2 * pad
            + 4; // +4: elision rounding
        for (int r = 0; r < shown; ++r)
            widths[c] = std::max(widths[c], fm.horizontalAdvance(model.index(r, c).data().toString()) + 2 * pad + 4);
    }
    int total = 0;
    for (int w : widths)
        total += w;
    if (total > target.width() && total > 0)
        for (int &w : widths)
            w = w * target.width() / total;

    auto drawRow = [&](int top, bool header, int r, const QColor &bg) {
        painter.fillRect(QRect(target.left(), top, target.width(), rowH), bg);
        int x = target.left();
        for (int c = 0; c < columns; ++c) {
            const QRect cell(x + pad, top, widths[c] - 2 * pad, rowH);
            QString text;
            int align = Qt::AlignLeft;
            if (header) {
                text = model.headerData(c, Qt::Horizontal).toString();
            } else {
                const QModelIndex index = model.index(r, c);
                text = index.data().toString();
                const QVariant a = index.data(Qt::TextAlignmentRole);
                if (a.isValid())
                    align = a.toInt() & Qt::AlignHorizontal_Mask;
                const QVariant fg = index.data(Qt::ForegroundRole);
                painter.setPen(fg.canConvert<QBrush>() && fg.value<QBrush>().style() != Qt::NoBrush
                        ? fg.value<QBrush>().color()
                        : theme.labelText);
            }
            if (header)
                painter.setPen(theme.labelText);
            painter.drawText(cell, align | Qt::AlignVCenter,
                QFontMetrics(painter.font()).elidedText(text, Qt::ElideMiddle, cell.width()));
            x += widths[c];
        }
    };
    painter.setFont(bold);
    drawRow(y, true, -1, theme.headerBackground);
    y += rowH;
    painter.setFont(normal);
    for (int r = 0; r < shown; ++r, y += rowH)
        drawRow(y, false, r, (r % 2) ? theme.rowBackgroundAlt : theme.rowBackground);
    if (more) {
        painter.setPen(theme.labelText);
        painter.drawText(QRect(target.left() + pad, y, target.width() - 2 * pad, rowH),
            Qt::AlignVCenter | Qt::AlignLeft, QStringLiteral("… %1 more rows").arg(rows - shown));
    }
    painter.restore();
}

bool exportTable(const QAbstractItemModel &model, const QString &path, QSize size, const QString &title, QString *error)
{
    return writeFile(
        path, size, title, [&](QPainter &p, QSize s) { paintTable(p, QRect(QPoint(0, 0), s), model, title); }, error);
}

} // namespace gaplens::ui::ViewExporter
