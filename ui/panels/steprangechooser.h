// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/step_range.h"

class QComboBox;

namespace gaplens::ui {

// The step range candidates (core::chooseStepRange) in a combo box, as Rank Pace and Run
// accounting offer them: "train_step  (40× on 2 ranks)", the name as the item's data.
void fillStepRangeChooser(QComboBox *box, const core::StepRangeChoice &choice);

} // namespace gaplens::ui
