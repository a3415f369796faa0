// SPDX-License-Identifier: MIT
#pragma once
#include <QString>
#include <QStringList>

#include <cstdint>

namespace gaplens::ui {

// `gaplens --report OUT.html|OUT.pdf FILES...` (a capture) or
// `gaplens --report OUT --before A... --after B...` (a comparison), headless.
struct ReportCommandRequest
{
    QString output;
    QStringList files; // capture report
    QStringList before; // comparison report (with after)
    QStringList after;
    std::int64_t gapThresholdNs = 0; // 0 = default
    QString stepRange;
    QStringList meta; // --meta KEY=VALUE, in order: the run scorecard's supplied facts
};

// Loads on the calling thread, builds and writes the report. 0 on success, else non-zero
// with *error. Needs a QApplication (pictures are painted with widgets).
int runReport(const ReportCommandRequest &request, QString *error);

} // namespace gaplens::ui
