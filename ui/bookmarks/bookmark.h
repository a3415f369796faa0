// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/time.h"

#include <QJsonObject>
#include <QString>

// After a Qt header: moc (run with C++17 predefines) fails on <compare> when it comes first.
#include "gaplens/core/util/index.h"

#include <cstdint>

namespace gaplens::ui {

// A named time range or event with a note. Times are absolute ns on the clock of `rank` of
// capture `capture` (0 = the capture / before, 1 = after), so a bookmark survives alignment
// changes: shown at range + rankOffset(rank).
struct Bookmark
{
    QString name;
    QString note;
    core::TimeRange range;
    core::RankIndex rank { 0 };
    int capture = 0;
    QString event; // what was selected when bookmarked ("kernel sgemm_kernel"), may be empty

    bool operator==(const Bookmark &) const = default;
    // Times relative to `origin` (the capture start) in JSON, so a session reads the same
    // whatever the capture's absolute clock.
    QJsonObject toJson(core::TimeNs origin) const;
    static Bookmark fromJson(const QJsonObject &o, core::TimeNs origin);
};

} // namespace gaplens::ui
