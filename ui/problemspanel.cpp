// SPDX-License-Identifier: MIT
#include "ui/problemspanel.h"

#include <QFileInfo>
#include <QHeaderView>

namespace gaplens::ui {

ProblemsPanel::ProblemsPanel(QWidget *parent)
    : QTreeWidget(parent)
{
    setColumnCount(2);
    setHeaderLabels({ QStringLiteral("File"), QStringLiteral("Problem") });
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    setRootIsDecorated(true);
    setWordWrap(true);
}

int ProblemsPanel::showProblems(const core::TraceSet &trace)
{
    clear();
    m_count = 0;
    auto fileName = [](const std::string &path) { return QFileInfo(QString::fromStdString(path)).fileName(); };
    for (const auto &e : trace.errors) {
        auto *item = new QTreeWidgetItem(
            this, { fileName(e.path), QStringLiteral("Not loaded: ") + QString::fromStdString(e.message) });
        item->setToolTip(0, QString::fromStdString(e.path));
        item->setToolTip(1, QString::fromStdString(e.message));
        item->setForeground(1, QColor(180, 0, 0));
        ++m_count;
    }
    for (const auto &w : trace.warnings) {
        new QTreeWidgetItem(this, { QStringLiteral("(capture)"), QString::fromStdString(w) });
        ++m_count;
    }
    for (const auto &r : trace.reports) {
        const auto &p = r.problems;
        if (p.total() == 0 && r.warnings.empty())
            continue;
        auto *item = new QTreeWidgetItem(this,
            { fileName(r.path),
                QStringLiteral("%1 data problem(s), %2 warning(s)").arg(p.total()).arg(r.warnings.size()) });
        item->setToolTip(0, QString::fromStdString(r.path));
        auto add = [&](std::uint64_t n, const char *what) {
            if (n)
                new QTreeWidgetItem(item, { QString(), QStringLiteral("%1 × %2").arg(n).arg(QString::fromUtf8(what)) });
        };
        add(p.nullEnd, "range or activity without an end (open)");
        add(p.endBeforeStart, "end before start (row skipped)");
        add(p.nullStart, "no start (row skipped)");
        add(p.unknownStringId, "unknown string id (shown as <unknown #id>)");
        add(p.timeNotInteger, "start or end is text, a blob or a fractional number (row skipped)");
        add(p.timeOutOfRange,
            "start or end cannot be represented once the time offset is added (beyond ±146 years around 1970; row "
            "skipped)");
        add(p.deviceIdOutOfRange, "deviceId does not fit in 32 bits (row skipped)");
        add(p.badMemoryEvent, "GPU memory event with a missing or invalid value (row skipped)");
        for (const auto &w : r.warnings)
            new QTreeWidgetItem(item, { QString(), QString::fromStdString(w) });
        item->setExpanded(true);
        ++m_count;
    }
    return m_count;
}

} // namespace gaplens::ui
