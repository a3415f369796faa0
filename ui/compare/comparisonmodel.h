// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/compare.h"

#include <QAbstractTableModel>
#include <QColor>

#include <memory>

namespace gaplens::ui {

// One table of a core::Comparison (no number is recomputed here): the headline, kernels,
// idle time by blame cause or by NVTX phase, or NVTX ranges. Rows keep core's order (kernels,
// idle and NVTX sorted by |delta|). DisplayRole is the text core::formatDuration & co. give
// the CLI; SortRole is the raw number (ns, percent, count; NaN for "-"), KeyRole the row's
// name/key, PresenceRole the core::Presence (new and vanished rows are coloured and noted).
class ComparisonModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // Sustained: core's run accounting side by side (Comparison::sustained), in the
    // headline's columns (noise and judgement "-": one value per capture).
    enum class Table { Headline, Kernels, IdleByCause, IdleByPhase, Nvtx, Sustained };
    enum Role { SortRole = Qt::UserRole + 1, KeyRole, PresenceRole };
    enum HeadlineColumn {
        MetricColumn,
        BeforeColumn,
        AfterColumn,
        ChangeColumn,
        NoiseColumn,
        JudgementColumn,
        HeadlineColumnCount
    };
    enum KernelColumn {
        KernelNameColumn,
        CallsBeforeColumn,
        CallsAfterColumn,
        TotalBeforeColumn,
        TotalAfterColumn,
        AvgBeforeColumn,
        AvgAfterColumn,
        KernelDeltaColumn,
        AvgRatioColumn,
        KernelNoteColumn,
        KernelColumnCount
    };
    enum IdleColumn {
        IdleKeyColumn,
        GapsBeforeColumn,
        GapsAfterColumn,
        IdleBeforeColumn,
        IdleAfterColumn,
        IdleDeltaColumn,
        IdleNoteColumn,
        IdleColumnCount
    };
    enum NvtxColumn {
        NvtxNameColumn,
        InstancesBeforeColumn,
        InstancesAfterColumn,
        NvtxTotalBeforeColumn,
        NvtxTotalAfterColumn,
        NvtxAvgBeforeColumn,
        NvtxAvgAfterColumn,
        NvtxDeltaColumn,
        NvtxNoteColumn,
        NvtxColumnCount
    };

    explicit ComparisonModel(Table table, QObject *parent = nullptr);

    Table table() const { return m_table; }
    void setComparison(std::shared_ptr<const core::Comparison> comparison);
    const core::Comparison *comparison() const { return m_comparison.get(); }
    // The name or key of a row ("" when out of range).
    QString key(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Display text of a metric value in its unit ("12.50 ms", "87.3%", "1,234"), "-" when missing.
    static QString formatMetric(core::MetricUnit unit, std::optional<double> value);
    static QString formatChange(std::optional<double> percent); // "+7.9%" / "-"
    static QString judgementText(const core::MetricChange &m); // "exceeds noise", "within noise", "-"
    // The compare view's two meanings of colour: better and worse, readable on light and dark.
    static QColor betterColor();
    static QColor worseColor();

private:
    QVariant headlineData(const core::MetricChange &m, int column, int role) const;
    QVariant cell(int row, int column, int role) const;

    Table m_table;
    std::shared_ptr<const core::Comparison> m_comparison;
};

} // namespace gaplens::ui
