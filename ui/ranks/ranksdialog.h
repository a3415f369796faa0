// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/trace.h"
#include "gaplens/core/read/rank_identity.h"

#include <QDialog>

#include <memory>
#include <vector>

class QLabel;
class QPushButton;
class QTableView;

namespace gaplens::ui {

class RankMappingModel;

// View > Ranks…: which file and process is which rank and how that was decided, the facts
// `gaplens-cli ranks` prints. Rank numbers can be edited; duplicates and gaps are named under
// the table as they are typed. Apply asks for a reload with the overrides that make the
// edited numbers (core::reassignRanks; applyRequested), Reset to automatic for one without
// any. Non-modal: the window refreshes it with setCapture when the reload is in.
class RanksDialog : public QDialog
{
    Q_OBJECT
public:
    explicit RanksDialog(QWidget *parent = nullptr);

    // The capture shown and the overrides it was loaded with.
    void setCapture(std::shared_ptr<const core::TraceSet> trace, std::vector<core::RankOverride> overrides);
    RankMappingModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QLabel *checkLabel() const { return m_check; }
    // The overrides Apply asks for: the loaded ones with the edits made.
    std::vector<core::RankOverride> editedOverrides() const;
    // Applies the edits (emits applyRequested when there are any).
    void apply();

signals:
    void applyRequested(const std::vector<gaplens::core::RankOverride> &overrides);

private:
    void updateState();

    RankMappingModel *m_model;
    QTableView *m_table;
    QLabel *m_check;
    QPushButton *m_apply, *m_revert, *m_reset;
    std::shared_ptr<const core::TraceSet> m_trace;
    std::vector<core::RankOverride> m_overrides;
};

} // namespace gaplens::ui
