// SPDX-License-Identifier: MIT
#pragma once
#include "ui/session/session.h"

#include <QList>
#include <QSize>

#include <functional>

class QMenu;
class QWidget;

namespace gaplens::ui {

class TimelineView;
class Workspace;

// The menu entries both windows share, with their dialogs, each added where the window's
// menu wants it. Every action has an objectName ("openSessionAction", …) besides its text.
namespace ReviewActions {

// Open Session… (the session opens in the window it describes: WindowRouter::openSession)
// and Save Session As… (Ctrl+Shift+S).
void addSessionActions(QMenu *file, Workspace &workspace);
// Export Report… (HTML or PDF); does nothing while no capture is loaded.
void addReportAction(QMenu *file, Workspace &workspace);
// Theme > Light, Dark, Presentation (light), Presentation (dark), and Presentation Mode (F11)
// which toggles between a theme and its presentation variant.
void addThemeActions(QMenu *view);
// Add Bookmark (Ctrl+B), Next Bookmark (F2), Previous Bookmark (Shift+F2).
void addBookmarkActions(QMenu *view, Workspace &workspace);

// Navigate > Fit All (Home), Zoom In (W), Zoom Out (S), Pan Left (A), Pan Right (D), Back
// (Alt+Left) on the timeline `target` returns: window shortcuts, so the keys work whatever
// widget has the focus (a line edit still types its letters; it takes them first).
void addNavigationActions(QMenu *view, std::function<TimelineView *()> target);

// Collapse All Ranks (Ctrl+Shift+C: each rank keeps its header and merged GPU lane), Expand
// All Ranks (Ctrl+Shift+E) and the checkable GPU Lanes Only (Ctrl+Shift+G: RowDetail::GpuLanes),
// applied to every timeline `views` returns.
void addRowActions(QMenu *view, const QObject *context, const std::function<QList<TimelineView *>()> &views);

// Asks for a PNG or SVG file (`fileName` proposed) and the size, then calls `write`; a
// failure is shown in a message box. Cancelling either dialog writes nothing.
using PictureWriter = std::function<bool(const QString &path, QSize size, QString *error)>;
void exportPicture(QWidget *parent, const QString &title, const QString &fileName, const PictureWriter &write);

// The same for a timeline picture: the size dialog also offers to grow the height so that
// every row fits (ViewExporter::Fit::Grow instead of Shrink).
using TimelinePictureWriter = std::function<bool(const QString &path, QSize size, bool growHeight, QString *error)>;
void exportTimelinePicture(
    QWidget *parent, const QString &title, const QString &fileName, const TimelinePictureWriter &write);

// A session's resolver that asks with a file dialog where a moved capture file is now.
SessionFile::Resolver askWhereMovedFilesAre(QWidget *parent);

} // namespace ReviewActions

} // namespace gaplens::ui
