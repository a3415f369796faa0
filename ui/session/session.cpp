// SPDX-License-Identifier: MIT
#include "ui/session/session.h"

#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/timeruler.h"
#include "ui/timeline/zoomcontrol.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QScrollBar>

namespace gaplens::ui {

using core::TimeNs;

namespace {

QString ns(TimeNs v)
{
    return QString::number(v);
}

TimeNs nsOf(const QJsonValue &v, TimeNs fallback = 0)
{
    bool ok = false;
    const TimeNs n = v.toString().toLongLong(&ok);
    return ok ? n : (v.isDouble() ? TimeNs(v.toDouble()) : fallback);
}

QJsonObject rangeJson(core::TimeRange r)
{
    return { { QStringLiteral("start_ns"), ns(r.start) }, { QStringLiteral("end_ns"), ns(r.end) } };
}

std::optional<core::TimeRange> rangeOf(const QJsonValue &v)
{
    if (!v.isObject())
        return std::nullopt;
    const auto o = v.toObject();
    core::TimeRange r { nsOf(o.value(QStringLiteral("start_ns"))), nsOf(o.value(QStringLiteral("end_ns"))) };
    if (r.end <= r.start)
        return std::nullopt;
    return r;
}

QJsonArray filesJson(const QStringList &files, const QDir &base)
{
    QJsonArray out;
    for (const auto &f : files) {
        const QString abs = QFileInfo(f).absoluteFilePath();
        // Relative first (the shared-folder case); the absolute path helps when only the
        // session file was moved.
        out.append(QJsonObject {
            { QStringLiteral("path"), base.relativeFilePath(abs) }, { QStringLiteral("absolute"), abs } });
    }
    return out;
}

const char *hitKindName(HitKind k)
{
    switch (k) {
    case HitKind::Kernel: return "kernel";
    case HitKind::Copy: return "copy";
    case HitKind::Api: return "api";
    case HitKind::Nvtx: return "nvtx";
    case HitKind::Gap: return "gap";
    case HitKind::Fold: return "fold";
    case HitKind::Mark: return "mark";
    case HitKind::Osrt: return "osrt";
    case HitKind::State: return "state";
    case HitKind::ProjectedNvtx: return "projected_nvtx";
    case HitKind::Memory: return "memory";
    case HitKind::None: break;
    }
    return "none";
}

HitKind hitKindOf(const QString &name)
{
    for (auto k : { HitKind::Kernel, HitKind::Copy, HitKind::Api, HitKind::Nvtx, HitKind::Gap, HitKind::Fold,
             HitKind::Mark, HitKind::Osrt, HitKind::State, HitKind::ProjectedNvtx, HitKind::Memory })
        if (name == QLatin1String(hitKindName(k)))
            return k;
    return HitKind::None;
}

qint64 idx(std::uint32_t v)
{
    return v == core::kNoIndex ? -1 : qint64(v);
}
template <class Tag> qint64 idx(core::Index<Tag> v)
{
    return idx(v.value());
}

std::uint32_t idxOf(const QJsonValue &v)
{
    const qint64 n = v.toInteger(-1);
    return n < 0 ? core::kNoIndex : std::uint32_t(n);
}

} // namespace

namespace SessionFile {

QJsonObject toJson(const Session &s, const QString &sessionPath)
{
    const QDir base = QFileInfo(sessionPath).absoluteDir();
    QJsonObject o;
    o.insert(QStringLiteral("tool"), QStringLiteral("gaplens"));
    o.insert(QStringLiteral("kind"), QStringLiteral("session"));
    o.insert(QStringLiteral("version"), Session::kVersion);
    o.insert(QStringLiteral("before"), filesJson(s.before, base));
    o.insert(QStringLiteral("after"), filesJson(s.after, base));
    o.insert(QStringLiteral("window"), s.beforeAfter ? QStringLiteral("compare") : QStringLiteral("main"));
    QJsonArray overrides;
    for (const auto &r : s.rankOverrides) {
        QJsonObject ro { { QStringLiteral("file"), QString::fromStdString(r.file) },
            { QStringLiteral("rank"), r.rank } };
        if (r.pid)
            ro.insert(QStringLiteral("pid"), qint64(*r.pid));
        overrides.append(ro);
    }
    o.insert(QStringLiteral("rank_overrides"), overrides);
    o.insert(QStringLiteral("alignment"),
        QJsonObject { { QStringLiteral("mode"), s.alignMode }, { QStringLiteral("range"), s.alignName },
            { QStringLiteral("occurrence"), s.alignOccurrence } });
    o.insert(QStringLiteral("step_range"), s.stepRange);
    QJsonObject patterns;
    for (auto it = s.runStatePatterns.cbegin(); it != s.runStatePatterns.cend(); ++it)
        patterns.insert(it.key(), it.value());
    o.insert(QStringLiteral("run_states"),
        QJsonObject { { QStringLiteral("step_range"), s.runStateRange }, { QStringLiteral("patterns"), patterns } });
    if (s.viewRange)
        o.insert(QStringLiteral("view_range"), rangeJson(*s.viewRange));
    o.insert(QStringLiteral("scroll_y"), s.scrollY);
    o.insert(QStringLiteral("after_scroll_y"), s.afterScrollY);
    o.insert(QStringLiteral("gap_threshold_ns"), ns(s.gapThreshold));
    o.insert(QStringLiteral("find"), s.findText);
    o.insert(QStringLiteral("highlight"),
        QJsonObject { { QStringLiteral("kind"), s.highlightKind }, { QStringLiteral("key"), s.highlightKey } });
    if (s.timeSelection)
        o.insert(QStringLiteral("time_selection"), rangeJson(*s.timeSelection));
    if (s.selection && s.selection->hit.isValid()) {
        const auto &h = s.selection->hit;
        const TimeNs origin = s.selection->capture == 1 ? s.afterOrigin : s.beforeOrigin;
        o.insert(QStringLiteral("selection"),
            QJsonObject { { QStringLiteral("capture"), s.selection->capture },
                { QStringLiteral("kind"), QLatin1String(hitKindName(h.kind)) },
                { QStringLiteral("fold_of"), QLatin1String(hitKindName(h.foldOf)) },
                { QStringLiteral("rank"), idx(h.rank) }, { QStringLiteral("gpu"), idx(h.gpu) },
                { QStringLiteral("stream"), idx(h.stream) }, { QStringLiteral("thread"), idx(h.thread) },
                { QStringLiteral("level"), qint64(h.level) }, { QStringLiteral("index"), idx(h.index) },
                { QStringLiteral("last"), idx(h.last) }, { QStringLiteral("count"), qint64(h.count) },
                { QStringLiteral("start_ns"), ns(h.start - origin) },
                { QStringLiteral("end_ns"), ns(h.end - origin) } });
    }
    QJsonArray bookmarks;
    for (const auto &b : s.bookmarks)
        bookmarks.append(b.toJson(b.capture == 1 ? s.afterOrigin : s.beforeOrigin));
    o.insert(QStringLiteral("bookmarks"), bookmarks);
    o.insert(QStringLiteral("theme"), s.theme);
    o.insert(QStringLiteral("window_state"), QString::fromLatin1(s.windowState.toBase64()));
    o.insert(QStringLiteral("window_geometry"), QString::fromLatin1(s.windowGeometry.toBase64()));
    return o;
}

bool write(const Session &session, const QString &path, QString *error)
{
    QSaveFile file(path);
    const QByteArray bytes = QJsonDocument(toJson(session, path)).toJson(QJsonDocument::Indented);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

ReadResult read(const QString &path, const Resolver &resolver)
{
    ReadResult r;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        r.error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return r;
    }
    QJsonParseError parseError;
    const auto doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!doc.isObject()) {
        r.error = QStringLiteral("%1: not a session file (%2)").arg(path, parseError.errorString());
        return r;
    }
    return fromJson(doc.object(), path, resolver);
}

ReadResult fromJson(const QJsonObject &o, const QString &sessionPath, const Resolver &resolver)
{
    ReadResult r;
    if (o.value(QStringLiteral("kind")).toString() != QLatin1String("session")) {
        r.error = QStringLiteral("%1: not a gaplens session").arg(sessionPath);
        return r;
    }
    if (o.value(QStringLiteral("version")).toInt() > Session::kVersion) {
        r.error = QStringLiteral("%1: written by a newer gaplens (version %2)")
                      .arg(sessionPath)
                      .arg(o.value(QStringLiteral("version")).toInt());
        return r;
    }
    const QDir base = QFileInfo(sessionPath).absoluteDir();
    QList<std::pair<QString, QString>> moved; // old folder -> new folder, from earlier answers
    auto resolve = [&](const QJsonValue &entry) -> QString {
        const auto e = entry.toObject();
        const QString rel = e.value(QStringLiteral("path")).toString();
        const QString abs = e.value(QStringLiteral("absolute")).toString();
        const QString candidate = QDir::cleanPath(base.absoluteFilePath(rel));
        if (!rel.isEmpty() && QFileInfo::exists(candidate))
            return candidate;
        if (!abs.isEmpty() && QFileInfo::exists(abs))
            return abs;
        const QString wanted = rel.isEmpty() ? abs : candidate;
        for (const auto &[from, to] : std::as_const(moved)) {
            const QString again = QDir(to).filePath(QFileInfo(wanted).fileName());
            if (QFileInfo(wanted).absolutePath() == from && QFileInfo::exists(again)) {
                r.relocated << wanted + QStringLiteral(" -> ") + again;
                return again;
            }
        }
        if (resolver) {
            const QString answer = resolver(wanted);
            if (!answer.isEmpty() && QFileInfo::exists(answer)) {
                moved.append({ QFileInfo(wanted).absolutePath(), QFileInfo(answer).absolutePath() });
                r.relocated << wanted + QStringLiteral(" -> ") + answer;
                return QFileInfo(answer).absoluteFilePath();
            }
        }
        r.missing << wanted;
        return {};
    };
    Session &s = r.session;
    for (const auto &e : o.value(QStringLiteral("before")).toArray())
        if (const QString f = resolve(e); !f.isEmpty())
            s.before << f;
    const QJsonArray after = o.value(QStringLiteral("after")).toArray();
    for (const auto &e : after)
        if (const QString f = resolve(e); !f.isEmpty())
            s.after << f;
    const QString window = o.value(QStringLiteral("window")).toString();
    s.beforeAfter = window.isEmpty() ? !after.isEmpty() : window == QLatin1String("compare");
    for (const auto &v : o.value(QStringLiteral("rank_overrides")).toArray()) {
        const auto ro = v.toObject();
        core::RankOverride ov;
        ov.file = ro.value(QStringLiteral("file")).toString().toStdString();
        ov.rank = ro.value(QStringLiteral("rank")).toInt();
        if (ro.contains(QStringLiteral("pid")))
            ov.pid = std::uint32_t(ro.value(QStringLiteral("pid")).toInteger());
        s.rankOverrides.push_back(ov);
    }
    const auto align = o.value(QStringLiteral("alignment")).toObject();
    s.alignMode = align.value(QStringLiteral("mode")).toString(QStringLiteral("absolute"));
    s.alignName = align.value(QStringLiteral("range")).toString();
    s.alignOccurrence = std::max(1, align.value(QStringLiteral("occurrence")).toInt(1));
    s.stepRange = o.value(QStringLiteral("step_range")).toString();
    // Sessions written before run accounting have none: the defaults.
    const auto runStates = o.value(QStringLiteral("run_states")).toObject();
    s.runStateRange = runStates.value(QStringLiteral("step_range")).toString();
    const auto patterns = runStates.value(QStringLiteral("patterns")).toObject();
    for (auto it = patterns.constBegin(); it != patterns.constEnd(); ++it)
        if (it.value().isString())
            s.runStatePatterns.insert(it.key(), it.value().toString());
    s.viewRange = rangeOf(o.value(QStringLiteral("view_range")));
    s.scrollY = o.value(QStringLiteral("scroll_y")).toInt();
    s.afterScrollY = o.value(QStringLiteral("after_scroll_y")).toInt();
    s.gapThreshold = nsOf(o.value(QStringLiteral("gap_threshold_ns")), core::kDefaultMinGapNs);
    s.findText = o.value(QStringLiteral("find")).toString();
    const auto hl = o.value(QStringLiteral("highlight")).toObject();
    s.highlightKind = hl.value(QStringLiteral("kind")).toString();
    s.highlightKey = hl.value(QStringLiteral("key")).toString();
    s.timeSelection = rangeOf(o.value(QStringLiteral("time_selection")));
    if (o.value(QStringLiteral("selection")).isObject()) {
        // Relative times here; the window turns them absolute with the loaded origin.
        const auto so = o.value(QStringLiteral("selection")).toObject();
        Session::Selection sel;
        sel.capture = so.value(QStringLiteral("capture")).toInt();
        auto &h = sel.hit;
        h.kind = hitKindOf(so.value(QStringLiteral("kind")).toString());
        h.foldOf = hitKindOf(so.value(QStringLiteral("fold_of")).toString());
        h.rank = core::RankIndex(idxOf(so.value(QStringLiteral("rank"))));
        h.gpu = core::GpuIndex(idxOf(so.value(QStringLiteral("gpu"))));
        h.stream = core::StreamIndex(idxOf(so.value(QStringLiteral("stream"))));
        h.thread = core::ThreadIndex(idxOf(so.value(QStringLiteral("thread"))));
        h.level = std::uint32_t(so.value(QStringLiteral("level")).toInteger());
        h.index = idxOf(so.value(QStringLiteral("index")));
        h.last = idxOf(so.value(QStringLiteral("last")));
        h.count = std::uint32_t(so.value(QStringLiteral("count")).toInteger());
        h.start = nsOf(so.value(QStringLiteral("start_ns")));
        h.end = nsOf(so.value(QStringLiteral("end_ns")));
        if (h.isValid())
            s.selection = sel;
    }
    // Bookmarks stay relative (origin 0) until the captures are loaded.
    for (const auto &v : o.value(QStringLiteral("bookmarks")).toArray())
        s.bookmarks.push_back(Bookmark::fromJson(v.toObject(), 0));
    s.theme = o.value(QStringLiteral("theme")).toString(QStringLiteral("light"));
    s.windowState = QByteArray::fromBase64(o.value(QStringLiteral("window_state")).toString().toLatin1());
    s.windowGeometry = QByteArray::fromBase64(o.value(QStringLiteral("window_geometry")).toString().toLatin1());
    r.ok = true;
    return r;
}

} // namespace SessionFile

namespace SessionView {

void capture(const TimelineView &view, Session &session, int captureIndex)
{
    const auto *model = view.model();
    const TimeNs origin = model->origin();
    // Absolute times (bookmarks, the selection) are saved relative to the capture's own start,
    // which does not move with the alignment; the view range is in display time.
    const TimeNs absoluteOrigin = model->trace() ? model->trace()->span.start : 0;
    if (captureIndex == 1) {
        session.afterOrigin = absoluteOrigin;
        session.afterScrollY = view.verticalScrollBar()->value();
    } else {
        session.beforeOrigin = absoluteOrigin;
        session.scrollY = view.verticalScrollBar()->value();
        session.viewRange = core::TimeRange { view.zoom()->windowStart() - origin, view.zoom()->windowEnd() - origin };
        session.gapThreshold = model->gapThreshold();
        if (view.ruler()->hasTimeSelection()) {
            const auto sel = view.ruler()->timeSelection();
            session.timeSelection = core::TimeRange { sel.start - origin, sel.end - origin };
        }
    }
    if (view.selection().isValid() && (!session.selection || captureIndex == 0)) {
        Session::Selection sel;
        sel.capture = captureIndex;
        sel.hit = view.selection();
        session.selection = sel;
    }
}

void apply(TimelineView &view, const Session &session, int captureIndex)
{
    auto *model = view.model();
    if (model->isEmpty())
        return;
    const TimeNs origin = model->origin();
    if (captureIndex == 0) {
        model->setGapThreshold(session.gapThreshold);
        if (session.viewRange)
            view.zoom()->setWindow(origin + session.viewRange->start, origin + session.viewRange->end, false);
        if (session.timeSelection)
            view.ruler()->setTimeSelection(
                core::TimeRange { origin + session.timeSelection->start, origin + session.timeSelection->end });
    }
    view.verticalScrollBar()->setValue(captureIndex == 1 ? session.afterScrollY : session.scrollY);
    if (session.selection && session.selection->capture == captureIndex) {
        HitResult h = session.selection->hit;
        const TimeNs absoluteOrigin = model->trace()->span.start;
        h.start += absoluteOrigin;
        h.end += absoluteOrigin;
        h.row = -1;
        if (const auto *t = model->trace(); t && (!h.rank.isValid() || inRange(t->ranks, h.rank)))
            view.setSelection(h);
    }
}

} // namespace SessionView

QStringList SessionFile::ReadResult::problems() const
{
    QStringList lines;
    for (const auto &m : missing)
        lines << QStringLiteral("missing capture file (skipped): %1").arg(m);
    for (const auto &m : relocated)
        lines << QStringLiteral("found elsewhere: %1").arg(m);
    return lines;
}

} // namespace gaplens::ui
