// SPDX-License-Identifier: MIT
#include "ui/compare/comparisonmodel.h"

#include "gaplens/core/util/units.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QLocale>

#include <cmath>
#include <limits>

namespace gaplens::ui {

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

QString dur(double ns)
{
    return QString::fromStdString(core::formatDuration(ns));
}

QString signedDur(double ns)
{
    return (ns > 0 ? QStringLiteral("+") : QString()) + dur(ns);
}

QString count(std::uint64_t n)
{
    return QLocale(QLocale::English).toString(qulonglong(n));
}

QString presenceNote(core::Presence p)
{
    return p == core::Presence::Both ? QString() : QString::fromLatin1(core::presenceName(p));
}

// One cell: text shown and the raw number behind it.
struct Cell
{
    QString text;
    double raw = kNaN;
    bool numeric = true;
};

Cell durCell(double ns)
{
    return { dur(ns), ns };
}
Cell countCell(std::uint64_t n)
{
    return { count(n), double(n) };
}
Cell textCell(const QString &s)
{
    return { s, kNaN, false };
}
// No number: "-" (sorted below every number).
Cell noneCell()
{
    return { QStringLiteral("-"), kNaN };
}
// The average of `n` instances; none without instances.
Cell avgCell(std::uint64_t n, double avgNs)
{
    return n ? durCell(avgNs) : noneCell();
}

} // namespace

ComparisonModel::ComparisonModel(Table table, QObject *parent)
    : QAbstractTableModel(parent)
    , m_table(table)
{
}

void ComparisonModel::setComparison(std::shared_ptr<const core::Comparison> comparison)
{
    beginResetModel();
    m_comparison = std::move(comparison);
    endResetModel();
}

int ComparisonModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_comparison)
        return 0;
    const auto &c = *m_comparison;
    switch (m_table) {
    case Table::Headline: return int(c.headline.size());
    case Table::Kernels: return int(c.kernels.size());
    case Table::IdleByCause: return int(c.idleByCause.size());
    case Table::IdleByPhase: return int(c.idleByPhase.size());
    case Table::Nvtx: return int(c.nvtx.size());
    case Table::Sustained: return int(c.sustained.size());
    }
    return 0;
}

int ComparisonModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    switch (m_table) {
    case Table::Headline:
    case Table::Sustained: return HeadlineColumnCount;
    case Table::Kernels: return KernelColumnCount;
    case Table::IdleByCause:
    case Table::IdleByPhase: return IdleColumnCount;
    case Table::Nvtx: return NvtxColumnCount;
    }
    return 0;
}

QString ComparisonModel::key(int row) const
{
    if (row < 0 || row >= rowCount())
        return {};
    const auto &c = *m_comparison;
    switch (m_table) {
    case Table::Headline: return QString::fromStdString(c.headline[row].key);
    case Table::Kernels: return QString::fromStdString(c.kernels[row].name);
    case Table::IdleByCause: return QString::fromStdString(c.idleByCause[row].key);
    case Table::IdleByPhase: return QString::fromStdString(c.idleByPhase[row].key);
    case Table::Nvtx: return QString::fromStdString(c.nvtx[row].name);
    case Table::Sustained: return QString::fromStdString(c.sustained[row].key);
    }
    return {};
}

QString ComparisonModel::formatMetric(core::MetricUnit unit, std::optional<double> value)
{
    if (!value)
        return QStringLiteral("-");
    switch (unit) {
    case core::MetricUnit::Duration: return dur(*value);
    case core::MetricUnit::Percent: return QString::fromStdString(core::formatPercent(*value));
    case core::MetricUnit::Count: return count(std::uint64_t(std::llround(*value)));
    case core::MetricUnit::Rate: return QString::fromStdString(core::formatGrouped(*value, 2));
    case core::MetricUnit::Ratio: return QString::number(*value, 'f', 3);
    }
    return QStringLiteral("-");
}

QString ComparisonModel::formatChange(std::optional<double> percent)
{
    if (!percent)
        return QStringLiteral("-");
    return QStringLiteral("%1%2%").arg(*percent >= 0 ? QStringLiteral("+") : QString()).arg(*percent, 0, 'f', 1);
}

QColor ComparisonModel::betterColor()
{
    return QColor(0x1a, 0x9c, 0x4a);
}

QColor ComparisonModel::worseColor()
{
    return QColor(0xd8, 0x3a, 0x3a);
}

QString ComparisonModel::judgementText(const core::MetricChange &m)
{
    switch (m.judgement) {
    case core::NoiseJudgement::ExceedsNoise: return QStringLiteral("exceeds noise");
    case core::NoiseJudgement::WithinNoise: return QStringLiteral("within noise");
    case core::NoiseJudgement::NotJudged: break;
    }
    return QStringLiteral("-");
}

QVariant ComparisonModel::headlineData(const core::MetricChange &m, int column, int role) const
{
    Cell cell;
    switch (column) {
    case MetricColumn: cell = textCell(QString::fromStdString(m.label)); break;
    case BeforeColumn: cell = { formatMetric(m.unit, m.before), m.before.value_or(kNaN) }; break;
    case AfterColumn: cell = { formatMetric(m.unit, m.after), m.after.value_or(kNaN) }; break;
    case ChangeColumn: cell = { formatChange(m.changePercent), m.changePercent.value_or(kNaN) }; break;
    case NoiseColumn:
        cell = { m.noisePercent ? QStringLiteral("±%1%").arg(*m.noisePercent, 0, 'f', 1) : QStringLiteral("-"),
            m.noisePercent.value_or(kNaN) };
        break;
    case JudgementColumn: cell = textCell(judgementText(m)); break;
    default: return {};
    }
    switch (role) {
    case Qt::DisplayRole: return cell.text;
    case SortRole: return cell.numeric ? QVariant(cell.raw) : QVariant(cell.text);
    case Qt::TextAlignmentRole:
        return cell.numeric ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                            : QVariant(int(Qt::AlignLeft | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (column == ChangeColumn && m.changePercent && m.judgement == core::NoiseJudgement::ExceedsNoise) {
            // Green when the change is an improvement, red when a regression.
            const bool better = (*m.changePercent > 0) == m.higherIsBetter;
            return QBrush(better ? betterColor() : worseColor());
        }
        return {};
    case Qt::ToolTipRole:
        if (column == MetricColumn)
            return QString::fromStdString(m.label); // the column may elide it
        if (m.pValue)
            return QStringLiteral("%1: rank-sum p = %2").arg(QString::fromStdString(m.label)).arg(*m.pValue, 0, 'g', 3);
        return {};
    default: return {};
    }
}

QVariant ComparisonModel::cell(int row, int column, int role) const
{
    const auto &c = *m_comparison;
    Cell cell;
    core::Presence presence = core::Presence::Both;
    QString key;
    switch (m_table) {
    case Table::Headline: return headlineData(c.headline[row], column, role);
    case Table::Sustained: return headlineData(c.sustained[row], column, role);
    case Table::Kernels: {
        const auto &k = c.kernels[row];
        presence = k.presence;
        key = QString::fromStdString(k.name);
        switch (column) {
        case KernelNameColumn: cell = textCell(key); break;
        case CallsBeforeColumn: cell = countCell(k.callsBefore); break;
        case CallsAfterColumn: cell = countCell(k.callsAfter); break;
        case TotalBeforeColumn: cell = durCell(double(k.totalBefore)); break;
        case TotalAfterColumn: cell = durCell(double(k.totalAfter)); break;
        case AvgBeforeColumn: cell = avgCell(k.callsBefore, k.avgBefore); break;
        case AvgAfterColumn: cell = avgCell(k.callsAfter, k.avgAfter); break;
        case KernelDeltaColumn: cell = { signedDur(double(k.deltaNs)), double(k.deltaNs) }; break;
        case AvgRatioColumn:
            cell = k.avgRatio ? Cell { QStringLiteral("%1x").arg(*k.avgRatio, 0, 'f', 2), *k.avgRatio } : noneCell();
            break;
        case KernelNoteColumn: cell = textCell(presenceNote(k.presence)); break;
        default: return {};
        }
        break;
    }
    case Table::IdleByCause:
    case Table::IdleByPhase: {
        const auto &r = (m_table == Table::IdleByCause ? c.idleByCause : c.idleByPhase)[row];
        presence = r.presence;
        key = QString::fromStdString(r.key);
        switch (column) {
        case IdleKeyColumn: cell = textCell(key); break;
        case GapsBeforeColumn: cell = countCell(r.countBefore); break;
        case GapsAfterColumn: cell = countCell(r.countAfter); break;
        case IdleBeforeColumn: cell = durCell(double(r.totalBefore)); break;
        case IdleAfterColumn: cell = durCell(double(r.totalAfter)); break;
        case IdleDeltaColumn: cell = { signedDur(double(r.deltaNs)), double(r.deltaNs) }; break;
        case IdleNoteColumn: cell = textCell(presenceNote(r.presence)); break;
        default: return {};
        }
        break;
    }
    case Table::Nvtx: {
        const auto &n = c.nvtx[row];
        presence = n.presence;
        key = QString::fromStdString(n.name);
        switch (column) {
        case NvtxNameColumn: cell = textCell(key); break;
        case InstancesBeforeColumn: cell = countCell(n.instancesBefore); break;
        case InstancesAfterColumn: cell = countCell(n.instancesAfter); break;
        case NvtxTotalBeforeColumn: cell = durCell(double(n.totalBefore)); break;
        case NvtxTotalAfterColumn: cell = durCell(double(n.totalAfter)); break;
        case NvtxAvgBeforeColumn: cell = avgCell(n.instancesBefore, n.avgBefore); break;
        case NvtxAvgAfterColumn: cell = avgCell(n.instancesAfter, n.avgAfter); break;
        case NvtxDeltaColumn: cell = { signedDur(double(n.deltaNs)), double(n.deltaNs) }; break;
        case NvtxNoteColumn: cell = textCell(presenceNote(n.presence)); break;
        default: return {};
        }
        break;
    }
    }
    switch (role) {
    case Qt::DisplayRole: return cell.text;
    case SortRole:
        // "-" sorts below every number: NaN would make the proxy's ordering inconsistent.
        return cell.numeric ? QVariant(std::isnan(cell.raw) ? -std::numeric_limits<double>::infinity() : cell.raw)
                            : QVariant(cell.text);
    case KeyRole: return key;
    case PresenceRole: return int(presence);
    case Qt::TextAlignmentRole:
        return cell.numeric ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                            : QVariant(int(Qt::AlignLeft | Qt::AlignVCenter));
    // Green and red mean better and worse (the change column): a name that is new or gone is
    // told in italics and the note column, never by those colours.
    case Qt::FontRole:
        if (presence != core::Presence::Both) {
            QFont font;
            font.setItalic(true);
            return font;
        }
        return {};
    case Qt::ForegroundRole:
        if (presence == core::Presence::Vanished)
            return QBrush(QColor(128, 128, 128));
        return {};
    case Qt::ToolTipRole:
        if (column == 0)
            return QString(key
                + (presence == core::Presence::Both ? QString() : QStringLiteral(" (%1)").arg(presenceNote(presence))));
        return {};
    default: return {};
    }
}

QVariant ComparisonModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_comparison)
        return {};
    return cell(index.row(), index.column(), role);
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    switch (m_table) {
    case Table::Headline:
    case Table::Sustained: {
        static const char *const kTitles[] = { "Metric", "Before", "After", "Change", "Noise", "Judgement" };
        return QString::fromLatin1(kTitles[section]);
    }
    case Table::Kernels: {
        static const char *const kTitles[] = { "Kernel", "Calls before", "Calls after", "Total before", "Total after",
            "Avg before", "Avg after", "Change", "Avg ×", "Note" };
        return QString::fromUtf8(kTitles[section]);
    }
    case Table::IdleByCause:
    case Table::IdleByPhase: {
        static const char *const kTitles[]
            = { "", "Gaps before", "Gaps after", "Idle before", "Idle after", "Change", "Note" };
        if (section == IdleKeyColumn)
            return m_table == Table::IdleByCause ? QStringLiteral("Cause") : QStringLiteral("NVTX phase");
        return QString::fromLatin1(kTitles[section]);
    }
    case Table::Nvtx: {
        static const char *const kTitles[] = { "NVTX range", "Instances\nbefore", "Instances\nafter", "Total\nbefore",
            "Total\nafter", "Avg\nbefore", "Avg\nafter", "Change", "Note" };
        return QString::fromLatin1(kTitles[section]);
    }
    }
    return {};
}

} // namespace gaplens::ui
