// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/read/loader.h"
#include "ui/bookmarks/bookmark.h"
#include "ui/timeline/hitresult.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <vector>

namespace gaplens::ui {

class TimelineView;

// What is on screen, saved as JSON (QJsonDocument): the capture(s) (before/after), rank
// overrides, alignment, view range, threshold, selection, bookmarks with notes, theme and the
// window's dock layout (QMainWindow::saveState). File paths are stored relative to the session
// file, so a folder with the session, its captures and its reports can be shared as one.
// Times are relative to the capture start (display origin), ns as strings (exact beyond 2^53).
struct Session
{
    static constexpr int kVersion = 1;

    QStringList before; // absolute paths in memory; relative in the file
    QStringList after; // empty = a single capture
    // Saved by the compare window: reopens there even when the after files are missing. Files
    // without the "window" key are before/after when they list after files.
    bool beforeAfter = false;
    std::vector<core::RankOverride> rankOverrides;

    QString alignMode = QStringLiteral("absolute"); // "absolute" | "nvtx"
    QString alignName; // NVTX range ("" = the step range in compare)
    int alignOccurrence = 1;
    QString stepRange; // compare: the step range the comparison used ("" = proposed)
    // Run accounting panel: its step range ("" = proposed) and state patterns (by state name:
    // checkpoint, validation, data_wait, barrier; missing or "" = core's default).
    QString runStateRange;
    QMap<QString, QString> runStatePatterns;

    std::optional<core::TimeRange> viewRange; // relative to the before capture's display origin
    int scrollY = 0, afterScrollY = 0;
    core::TimeNs gapThreshold = 100'000;
    QString findText;
    QString highlightKind; // compare panel highlight: "kernel" | "cause" | "phase" | "nvtx" | ""
    QString highlightKey;

    struct Selection
    {
        int capture = 0;
        HitResult hit; // absolute times
    };
    std::optional<Selection> selection;
    std::optional<core::TimeRange> timeSelection; // ruler selection, relative to the origin

    // Bookmark and selection times are absolute in memory; in the file relative to the
    // capture's start (TraceSet::span.start: independent of the alignment). SessionFile::read
    // leaves them relative (origins 0); add the loaded capture's span.start when applying.
    std::vector<Bookmark> bookmarks;
    core::TimeNs beforeOrigin = 0, afterOrigin = 0;

    QString theme = QStringLiteral("light");
    QByteArray windowState, windowGeometry;
};

// Reading and writing session files.
namespace SessionFile {

// Asked for each capture file that no longer exists (absolute path as saved): returns where it
// is now, or an empty string to skip it. In the GUI a file dialog; in tests a lambda.
using Resolver = std::function<QString(const QString &missingPath)>;

struct ReadResult
{
    bool ok = false; // the session file itself was read
    QString error; // why not
    Session session; // paths resolved and absolute; missing ones dropped
    QStringList missing; // capture files that could not be found (reported; the rest loads)
    QStringList relocated; // "old -> new" for files found elsewhere
    // One line per missing or relocated file, for the status bar and sessionProblems().
    QStringList problems() const;
};

QJsonObject toJson(const Session &session, const QString &sessionPath);
bool write(const Session &session, const QString &path, QString *error = nullptr);
// Reads and resolves. When the resolver relocates one file, the other missing files are first
// looked for in the same new folder (a moved capture folder is asked for once).
ReadResult read(const QString &path, const Resolver &resolver = {});
ReadResult fromJson(const QJsonObject &json, const QString &sessionPath, const Resolver &resolver = {});

} // namespace SessionFile

// Session <-> a timeline: the view range (relative to the display origin), scroll, threshold,
// ruler selection and selection. applyView expects the view's data to be loaded already.
namespace SessionView {
void capture(const TimelineView &view, Session &session, int captureIndex = 0);
void apply(TimelineView &view, const Session &session, int captureIndex = 0);
} // namespace SessionView

} // namespace gaplens::ui
