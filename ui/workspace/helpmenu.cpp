// SPDX-License-Identifier: MIT
#include "ui/workspace/helpmenu.h"

#include <QAction>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QTextBrowser>
#include <QToolBar>
#include <QVBoxLayout>

namespace gaplens::ui {

namespace {

// The timeline's mouse: not actions, so told here (TimelineView, TimeRuler, TrackLabels).
constexpr std::pair<const char *, const char *> kMouseGestures[] = {
    { "Wheel", "Zoom in or out at the cursor" },
    { "Shift+Wheel", "Scroll the rows" },
    { "Drag", "Pan the timeline" },
    { "Shift+Drag, Right-drag", "Zoom to the dragged time range" },
    { "Drag on the ruler", "Analyse that time range in the panels" },
    { "Click on the ruler", "Analyse the whole capture again" },
    { "Double-click a fold or gap", "Zoom to it" },
    { "Right-click a kernel", "Copy the Nsight Compute command for that launch" },
    { "Click a row label", "Collapse or expand the row" },
    { "Backspace", "Back to the previous view (timeline focused)" },
    { "Escape", "Clear the selection (timeline focused)" },
};

QString plainText(QString text)
{
    return text.remove(QLatin1Char('&')).toHtmlEscaped();
}

// A tool button's text may be a symbol ("▶"): its tooltip says what it does.
QString actionName(const QAction &action)
{
    const QString text = plainText(action.text());
    return text.size() > 2 ? text : plainText(action.toolTip());
}

void addRows(const QList<QAction *> &actions, const QString &path, QString &rows)
{
    for (QAction *action : actions) {
        if (action->menu()) {
            addRows(action->menu()->actions(), path + QStringLiteral(" › ") + plainText(action->text()), rows);
            continue;
        }
        if (action->shortcuts().isEmpty() || actionName(*action).isEmpty())
            continue;
        QStringList keys;
        for (const auto &k : action->shortcuts())
            keys << k.toString(QKeySequence::NativeText).toHtmlEscaped();
        rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2%3</td></tr>")
                    .arg(keys.join(QStringLiteral(", ")), path.isEmpty() ? QString() : path + QStringLiteral(" › "),
                        actionName(*action));
    }
}

void showShortcuts(QMainWindow &window)
{
    QDialog dialog(&window);
    dialog.setWindowTitle(QStringLiteral("Keyboard shortcuts"));
    auto *text = new QTextBrowser(&dialog);
    text->setHtml(shortcutsHtml(window));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(text);
    layout->addWidget(buttons);
    dialog.resize(560, 640);
    dialog.exec();
}

} // namespace

QString shortcutsHtml(const QMainWindow &window)
{
    QString rows;
    for (QAction *top : window.menuBar()->actions())
        if (top->menu())
            addRows(top->menu()->actions(), plainText(top->text()), rows);
    for (const QToolBar *bar : window.findChildren<QToolBar *>())
        addRows(bar->actions(), plainText(bar->windowTitle()) + QStringLiteral(" toolbar"), rows);
    addRows(window.actions(), QString(), rows); // window-wide keys that are in no menu
    QString mouse;
    for (const auto &[gesture, what] : kMouseGestures)
        mouse += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                     .arg(QString::fromUtf8(gesture).toHtmlEscaped(), QString::fromUtf8(what).toHtmlEscaped());
    return QStringLiteral("<h3>Keys</h3><table cellspacing=4>%1</table><h3>Timeline mouse</h3>"
                          "<table cellspacing=4>%2</table>")
        .arg(rows, mouse);
}

void addHelpMenu(QMainWindow &window)
{
    QMenu *help = window.menuBar()->addMenu(QStringLiteral("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction *shortcuts
        = help->addAction(QStringLiteral("&Keyboard Shortcuts"), &window, [&window] { showShortcuts(window); });
    shortcuts->setObjectName(QStringLiteral("keyboardShortcutsAction"));
    shortcuts->setShortcuts({ QKeySequence::HelpContents, QKeySequence(Qt::Key_Question) });
    help->addAction(QStringLiteral("&About gaplens"), &window, [&window] {
        QMessageBox::about(&window, QStringLiteral("About gaplens"),
            QStringLiteral("<b>gaplens %1</b><p>Where the GPU is idle, and why: a viewer for Nsight Systems SQLite "
                           "exports.</p>")
                .arg(QCoreApplication::applicationVersion().toHtmlEscaped()));
    });
}

} // namespace gaplens::ui
