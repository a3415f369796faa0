// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/time.h"

#include <QComboBox>

#include <optional>

namespace gaplens::ui {

// The idle-gap threshold as typed: "100 us", "0.5ms", "2 ms"; spaces are ignored and a bare
// number is microseconds (the unit of the presets). Nothing for garbage, zero or a negative.
std::optional<core::TimeNs> parseGapThreshold(const QString &text);

// The editable threshold chooser of both windows' toolbars (10 us … 10 ms presets, 100 us
// shown). thresholdChanged fires for every text that parses, as the user types or picks.
class GapThresholdBox : public QComboBox
{
    Q_OBJECT
public:
    explicit GapThresholdBox(QWidget *parent = nullptr);

    // What the box shows, parsed; nothing while the text does not parse.
    std::optional<core::TimeNs> threshold() const;
    // Shows `ns` (whole units, e.g. "50 us") without emitting thresholdChanged.
    void setThreshold(core::TimeNs ns);

signals:
    void thresholdChanged(core::TimeNs ns);
};

} // namespace gaplens::ui
