// SPDX-License-Identifier: MIT
#pragma once
// A digest (`gaplens-cli digest`, docs/digest.md) opened as an overview of all ranks: the
// per-rank table, the interval heat map, the pace matrix and the findings, from the file
// alone. Selected ranks open on the timeline in a main window, which loads their reports.
// DigestOpener reads the file (off the GUI thread) and makes the window.
#include "gaplens/core/read/digest.h"

#include <QMainWindow>

#include <vector>

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTabWidget;

namespace gaplens::ui {

class IntervalHeatMap;
class MainWindow;
class PanelTable;

// Whether a path names a digest (by its .gldigest suffix).
bool isDigestPath(const QString &path);

class DigestWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit DigestWindow(core::Digest digest, QString path, QWidget *parent = nullptr);

    const core::Digest &digest() const { return m_digest; }
    PanelTable *rankTable() const { return m_ranks; }
    PanelTable *paceMatrix() const { return m_pace; }
    IntervalHeatMap *heatMap() const { return m_heatMap; }
    QListWidget *findings() const { return m_findings; }
    QComboBox *metricChooser() const { return m_metric; }
    QPushButton *openButton() const { return m_open; }
    QString headerText() const;

    // Indices into digest().ranks of the selected table rows, in rank order.
    std::vector<std::size_t> selectedRanks() const;
    // The reports of these ranks that no longer exist, by path.
    QStringList missingReports(const std::vector<std::size_t> &ranks) const;
    // Opens the ranks' reports as one capture in a new main window, each rank keeping its
    // number; says which reports are missing instead when any is. The window, or null.
    MainWindow *openOnTimeline(const std::vector<std::size_t> &ranks);

private:
    core::Digest m_digest;
    QString m_path;
    QLabel *m_header;
    PanelTable *m_ranks;
    PanelTable *m_pace;
    IntervalHeatMap *m_heatMap;
    QComboBox *m_metric;
    QListWidget *m_findings;
    QTabWidget *m_tabs;
    QPushButton *m_open;
};

} // namespace gaplens::ui
