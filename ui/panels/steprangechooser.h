// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/step_range.h"

#include <memory>
#include <mutex>

class QComboBox;

namespace gaplens::ui {

// The step range candidates of one capture (core::chooseStepRange: one pass over every NVTX
// range), counted once for all the panels that offer the choice (Rank Pace, Run Accounting):
// the first job to ask counts them, another one asking meanwhile waits for that count. Panels'
// jobs capture it (PanelContext::stepRangeChoices), so it is safe on any thread.
class StepRangeChoices
{
public:
    explicit StepRangeChoices(std::shared_ptr<const core::TraceSet> trace);
    // Null without a capture.
    std::shared_ptr<const core::StepRangeChoice> get();

private:
    std::mutex m_mutex;
    std::shared_ptr<const core::TraceSet> m_trace;
    std::shared_ptr<const core::StepRangeChoice> m_choice;
};

// The step range candidates (core::chooseStepRange) in a combo box, as Rank Pace and Run
// accounting offer them: "train_step  (40× on 2 ranks)", the name as the item's data.
void fillStepRangeChooser(QComboBox *box, const core::StepRangeChoice &choice);

} // namespace gaplens::ui
