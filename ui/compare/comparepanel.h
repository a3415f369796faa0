// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/compare.h"
#include "ui/compare/comparisonmodel.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QTabWidget;
class QTableView;

namespace gaplens::ui {

// The compare panel: the plain verdict ("after is 7.9% faster per step (noise ±1.2%)") with
// the numbers behind it and the noise method in words, the headline table (before, after,
// change, noise, judgement), and tabs of kernels, idle time by cause and by NVTX phase, NVTX
// ranges, and the sustained rate with its partition side by side. Clicking a row asks for
// it to be highlighted on both timelines.
class ComparePanel : public QWidget
{
    Q_OBJECT
public:
    explicit ComparePanel(QWidget *parent = nullptr);

    void setComparison(std::shared_ptr<const core::Comparison> comparison);
    void setBusy(bool busy);
    // Names offered as the step range (the comparison's own range is always offered).
    void setRangeNames(const QStringList &names);

    ComparisonModel *model(ComparisonModel::Table table) const;
    QTableView *tableView(ComparisonModel::Table table) const;
    QTableView *currentTableView() const; // the visible tab's table
    QString verdictText() const;
    QString noiseText() const;
    QLabel *verdictLabel() const { return m_verdict; }
    // The kernels slower or faster per call beyond the noise, and which denominator the
    // headline uses: core's sentences, slower in the worse colour and faster in the better.
    QLabel *perCallLabel() const { return m_perCall; }
    QTabWidget *tabs() const { return m_tabs; }
    // What a click on row `row` (source order) of `table` does.
    void activateRow(ComparisonModel::Table table, int row);
    // The width a table needs to show every number column uncut beside a name column of
    // kMinimumNameChars characters; the panel is never narrower than its widest table's.
    static int tableWidthHint(const QTableView *view);
    static constexpr int kMinimumNameChars = 22;
    // The dock's frame and the splitter handle beside the panel, and the least width it takes.
    static constexpr int kDockFramePixels = 40;
    static constexpr int kMinimumPanelPixels = 320;

signals:
    void kernelActivated(const QString &name);
    // "Duration histogram" on a kernel row's context menu: before and after over one axis.
    void kernelHistogramRequested(const QString &name);
    void causeActivated(const QString &key);
    void phaseActivated(const QString &key);
    void nvtxActivated(const QString &name);
    void stepRangeRequested(const QString &name); // "" = proposed

private:
    static QString perCallHtml(const core::Comparison &c);
    void fitTablesWidth();
    QTableView *addTable(ComparisonModel::Table table);

    QLabel *m_verdict;
    QLabel *m_detail;
    QLabel *m_perCall;
    QLabel *m_noise;
    QComboBox *m_stepRange;
    QTabWidget *m_tabs;
    QList<ComparisonModel *> m_models; // indexed by Table
    QList<QTableView *> m_views; // indexed by Table
    std::shared_ptr<const core::Comparison> m_comparison;
};

} // namespace gaplens::ui
