// SPDX-License-Identifier: MIT
#include "ui/workspace/reviewactions.h"

#include "ui/bookmarks/bookmarkpanel.h"
#include "ui/export/exportsizedialog.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"
#include "ui/workspace/windowrouter.h"
#include "ui/workspace/workspace.h"

#include <QAction>
#include <QActionGroup>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>

namespace gaplens::ui {

namespace ReviewActions {

namespace {
QAction *addNamed(
    QMenu *menu, const QString &text, const char *objectName, const QObject *context, std::function<void()> slot)
{
    QAction *a = menu->addAction(text, context, std::move(slot));
    a->setObjectName(QString::fromLatin1(objectName));
    return a;
}
} // namespace

void addSessionActions(QMenu *file, Workspace &workspace)
{
    QWidget *window = workspace.window();
    addNamed(file, QStringLiteral("Open &Session…"), "openSessionAction", &workspace, [&workspace, window] {
        const QString path = QFileDialog::getOpenFileName(window, QStringLiteral("Open session"), QString(),
            QStringLiteral("gaplens session (*.gaplens.json *.json)"));
        if (path.isEmpty())
            return;
        QString error;
        if (!WindowRouter::openSession(path, askWhereMovedFilesAre(window), &workspace, &error))
            QMessageBox::warning(window, QStringLiteral("Open session"), error);
    });
    QAction *save
        = addNamed(file, QStringLiteral("Save Session &As…"), "saveSessionAction", &workspace, [&workspace, window] {
              const QString path = QFileDialog::getSaveFileName(window, QStringLiteral("Save session"),
                  QStringLiteral("review.gaplens.json"), QStringLiteral("gaplens session (*.gaplens.json)"));
              QString error;
              if (!path.isEmpty() && !workspace.saveSession(path, &error))
                  QMessageBox::warning(window, QStringLiteral("Save session"), error);
          });
    save->setShortcut(QKeySequence::SaveAs);
}

void addReportAction(QMenu *file, Workspace &workspace)
{
    QWidget *window = workspace.window();
    addNamed(file, QStringLiteral("Export &Report…"), "exportReportAction", &workspace, [&workspace, window] {
        if (!workspace.canExportReport())
            return;
        const QString path = QFileDialog::getSaveFileName(window, QStringLiteral("Export report"),
            QStringLiteral("report.html"), QStringLiteral("HTML (*.html);;PDF (*.pdf)"));
        QString error;
        if (!path.isEmpty() && !workspace.exportReport(path, &error))
            QMessageBox::warning(window, QStringLiteral("Export report"), error);
    });
}

void addThemeActions(QMenu *view)
{
    QMenu *themes = view->addMenu(QStringLiteral("&Theme"));
    themes->setObjectName(QStringLiteral("themeMenu"));
    auto *group = new QActionGroup(themes);
    for (auto kind :
        { Theme::Kind::Light, Theme::Kind::Dark, Theme::Kind::PresentationLight, Theme::Kind::PresentationDark }) {
        static const char *const kTitles[] = { "Light", "Dark", "Presentation (light)", "Presentation (dark)" };
        QAction *a = themes->addAction(QString::fromLatin1(kTitles[int(kind)]), themes, [kind] { Theme::apply(kind); });
        a->setCheckable(true);
        a->setChecked(Theme::current().kind == kind);
        a->setData(int(kind));
        group->addAction(a);
    }
    // Another window, a session or Presentation Mode may switch the theme: keep the check truthful.
    QObject::connect(ThemeNotifier::instance(), &ThemeNotifier::themeChanged, group, [group] {
        for (QAction *a : group->actions())
            a->setChecked(a->data().toInt() == int(Theme::current().kind));
    });
    QAction *present = addNamed(view, QStringLiteral("Presentation Mode"), "presentationModeAction", view, [] {
        const bool dark = Theme::current().isDark();
        Theme::apply(Theme::current().isPresentation()
                ? (dark ? Theme::Kind::Dark : Theme::Kind::Light)
                : (dark ? Theme::Kind::PresentationDark : Theme::Kind::PresentationLight));
    });
    present->setShortcut(QKeySequence(Qt::Key_F11));
}

void addBookmarkActions(QMenu *view, Workspace &workspace)
{
    addNamed(view, QStringLiteral("Add Bookmark"), "addBookmarkAction", &workspace, [&workspace] {
        workspace.addBookmark();
    })->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    BookmarkPanel *panel = workspace.bookmarkPanel();
    addNamed(view, QStringLiteral("Next Bookmark"), "nextBookmarkAction", panel, [panel] {
        panel->jumpNext();
    })->setShortcut(QKeySequence(Qt::Key_F2));
    addNamed(view, QStringLiteral("Previous Bookmark"), "previousBookmarkAction", panel, [panel] {
        panel->jumpPrevious();
    })->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F2));
}

void addNavigationActions(QMenu *view, std::function<TimelineView *()> target)
{
    QMenu *navigate = view->addMenu(QStringLiteral("&Navigate"));
    navigate->setObjectName(QStringLiteral("navigateMenu"));
    const struct
    {
        const char *text;
        QKeySequence key;
        void (TimelineView::*run)();
    } entries[] = {
        { "Fit All", QKeySequence(Qt::Key_Home), &TimelineView::showAll },
        { "Zoom In", QKeySequence(Qt::Key_W), &TimelineView::zoomIn },
        { "Zoom Out", QKeySequence(Qt::Key_S), &TimelineView::zoomOut },
        { "Pan Left", QKeySequence(Qt::Key_A), &TimelineView::panLeft },
        { "Pan Right", QKeySequence(Qt::Key_D), &TimelineView::panRight },
    };
    for (const auto &e : entries) {
        QAction *action = navigate->addAction(QString::fromUtf8(e.text), view, [target, run = e.run] {
            if (TimelineView *t = target())
                (t->*run)();
        });
        action->setShortcut(e.key);
    }
    QAction *back = navigate->addAction(QStringLiteral("Back"), view, [target] {
        if (TimelineView *t = target())
            t->zoom()->back();
    });
    back->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
}

void addRowActions(QMenu *view, const QObject *context, const std::function<QList<TimelineView *>()> &views)
{
    addNamed(view, QStringLiteral("Collapse All Ranks"), "collapseAllAction", context, [views] {
        for (TimelineView *v : views())
            v->model()->collapseAll();
    })->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    addNamed(view, QStringLiteral("Expand All Ranks"), "expandAllAction", context, [views] {
        for (TimelineView *v : views())
            v->model()->expandAll();
    })->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    QAction *gpuOnly = view->addAction(QStringLiteral("GPU Lanes Only"));
    gpuOnly->setObjectName(QStringLiteral("gpuLanesOnlyAction"));
    gpuOnly->setCheckable(true);
    gpuOnly->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
    QObject::connect(gpuOnly, &QAction::toggled, context, [views](bool on) {
        for (TimelineView *v : views())
            v->model()->setDetail(on ? RowDetail::GpuLanes : RowDetail::All);
    });
}

namespace {
void askAndExport(
    QWidget *parent, const QString &title, const QString &fileName, bool timeline, const TimelinePictureWriter &write)
{
    const QString path
        = QFileDialog::getSaveFileName(parent, title, fileName, QStringLiteral("PNG (*.png);;SVG (*.svg)"));
    if (path.isEmpty())
        return;
    ExportSizeDialog dialog({ 1920, 1080 }, parent, timeline);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QString error;
    if (!write(path, dialog.size(), dialog.growHeight(), &error))
        QMessageBox::warning(parent, QStringLiteral("Export"), error);
}
} // namespace

void exportPicture(QWidget *parent, const QString &title, const QString &fileName, const PictureWriter &write)
{
    askAndExport(parent, title, fileName, false,
        [&write](const QString &path, QSize size, bool, QString *error) { return write(path, size, error); });
}

void exportTimelinePicture(
    QWidget *parent, const QString &title, const QString &fileName, const TimelinePictureWriter &write)
{
    askAndExport(parent, title, fileName, true, write);
}

SessionFile::Resolver askWhereMovedFilesAre(QWidget *parent)
{
    return [parent](const QString &missing) {
        return QFileDialog::getOpenFileName(parent,
            QStringLiteral("Where is %1 now?").arg(QFileInfo(missing).fileName()), QString(),
            QStringLiteral("Nsight Systems SQLite (*.sqlite);;All files (*)"));
    };
}

} // namespace ReviewActions

} // namespace gaplens::ui
