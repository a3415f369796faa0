// SPDX-License-Identifier: MIT
#include "ui/timeline/hitdescriber.h"

#include "gaplens/core/util/units.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"

#include <QLocale>
#include <QStringList>

namespace gaplens::ui {
namespace {

using Lines = QList<QPair<QString, QString>>; // (key, value); empty key = title line

// Sizes in core's binary units, as the panels, the CLI and the reports show them.
QString bytesText(std::uint64_t bytes)
{
    return QString::fromStdString(core::formatBytes(bytes));
}

// Unified-memory transfers are page migrations by the driver, not a memcpy the program called.
bool isUnifiedMigration(core::CopyKind kind)
{
    return kind == core::CopyKind::UnifiedHostToDevice || kind == core::CopyKind::UnifiedDeviceToHost
        || kind == core::CopyKind::UnifiedDeviceToDevice;
}

Lines describe(const TimelineModel &model, const HitResult &hit)
{
    Lines l;
    const auto *t = model.trace();
    if (!t || !hit.isValid())
        return l;
    const core::TimeNs offset = model.rankOffset(hit.rank);
    const auto timeAt = [&](core::TimeNs abs) { return formatDuration(abs + offset - model.origin()); };
    const auto add = [&](const QString &k, const QString &v) { l.append({ k, v }); };
    // The title and duration each single event's lines start with.
    const auto addEvent = [&](core::StringId name, core::TimeNs start, core::TimeNs end) {
        add({}, model.str(name));
        add(QStringLiteral("Duration"), formatDuration(end - start));
    };
    const auto addThread = [&](const core::Thread &thread) {
        add(QStringLiteral("Thread"), QStringLiteral("%1 (tid %2)").arg(model.str(thread.name)).arg(thread.tid));
    };
    switch (hit.kind) {
    case HitKind::Kernel: {
        const auto &stream = at(at(t->gpus, hit.gpu).streams, hit.stream);
        const auto &k = stream.kernels;
        const auto i = hit.index;
        addEvent(k.shortName[i], k.start[i], k.end[i]);
        add(QStringLiteral("Start"), timeAt(k.start[i]));
        add(QStringLiteral("Stream"),
            QStringLiteral("%1 (GPU %2, pid %3)")
                .arg(stream.streamId)
                .arg(at(t->gpus, hit.gpu).deviceId)
                .arg(stream.pid));
        const auto &shape = k.launchConfigOf(i);
        add(QStringLiteral("Grid"), QStringLiteral("%1 × %2 × %3").arg(shape.gridX).arg(shape.gridY).arg(shape.gridZ));
        add(QStringLiteral("Block"),
            QStringLiteral("%1 × %2 × %3").arg(shape.blockX).arg(shape.blockY).arg(shape.blockZ));
        add(QStringLiteral("Registers/thread"), QString::number(shape.registersPerThread));
        add(QStringLiteral("Shared memory"),
            QStringLiteral("%1 static + %2 dynamic")
                .arg(bytesText(shape.staticSharedMemory), bytesText(shape.dynamicSharedMemory)));
        add(QStringLiteral("Correlation id"), QString::number(k.correlationId[i]));
        if (const auto launch = t->findLaunch(at(t->gpus, hit.gpu).report, stream.pid, k.correlationId[i]))
            add(QStringLiteral("Launched by"), model.str(t->threads[launch->thread].api.name[launch->call]));
        break;
    }
    case HitKind::Copy: {
        const auto &c = at(t->gpus, hit.gpu).copies;
        const auto i = hit.index;
        const core::TimeNs d = c.end[i] - c.start[i];
        const QString kind = QString::fromLatin1(core::copyKindName(c.kind[i]));
        add({},
            c.kind[i] == core::CopyKind::Memset ? QStringLiteral("Memset")
                : isUnifiedMigration(c.kind[i]) ? kind + QStringLiteral(" migration")
                                                : QStringLiteral("Memcpy ") + kind);
        add(QStringLiteral("Kind"), kind);
        add(QStringLiteral("Bytes"), bytesText(c.bytes[i]));
        add(QStringLiteral("Duration"), formatDuration(d));
        if (d > 0)
            add(QStringLiteral("Bandwidth"), QString::fromStdString(core::formatBandwidth(c.bytes[i], d)));
        add(QStringLiteral("Start"), timeAt(c.start[i]));
        add(QStringLiteral("Stream"), QString::number(c.streamId[i]));
        break;
    }
    case HitKind::Api: {
        const auto &thread = at(t->threads, hit.thread);
        const auto &a = thread.api;
        const auto i = hit.index;
        addEvent(a.name[i], a.start[i], a.end[i]);
        add(QStringLiteral("Start"), timeAt(a.start[i]));
        addThread(thread);
        add(QStringLiteral("Depth"), QString::number(a.depth[i]));
        if (a.correlationId[i])
            add(QStringLiteral("Correlation id"), QString::number(a.correlationId[i]));
        break;
    }
    case HitKind::Osrt: {
        const auto &thread = at(t->threads, hit.thread);
        const auto &o = thread.osrt;
        const auto i = hit.index;
        addEvent(o.name[i], o.start[i], o.end[i]);
        add(QStringLiteral("OS call category"),
            QString::fromLatin1(core::osCategoryId(core::osCategoryOf(t->str(o.name[i])))));
        add(QStringLiteral("Start"), timeAt(o.start[i]));
        addThread(thread);
        add(QStringLiteral("Depth"), QString::number(o.depth[i]));
        break;
    }
    case HitKind::Nvtx: {
        const auto &thread = at(t->threads, hit.thread);
        const auto &n = thread.nvtx;
        const auto i = hit.index;
        addEvent(n.name[i], n.start[i], n.end[i]);
        add(QStringLiteral("Depth"), QString::number(n.depth[i]));
        add(QStringLiteral("Start"), timeAt(n.start[i]));
        if (n.domainOf(i) != core::kEmptyString)
            add(QStringLiteral("Domain"), model.str(n.domainOf(i)));
        addThread(thread);
        break;
    }
    case HitKind::ProjectedNvtx: {
        const auto &d = model.derived();
        if (!d || !d->projectedNvtx())
            break;
        const auto &lane = at(d->projectedNvtx()->gpus, hit.gpu);
        const auto i = hit.index;
        const auto source = lane.source(i);
        const auto &thread = at(t->threads, core::ThreadIndex(source.thread));
        const auto r = source.range;
        addEvent(thread.nvtx.name[r], lane.start[i], lane.end[i]);
        add(QStringLiteral("Projected onto"), QStringLiteral("GPU %1").arg(at(t->gpus, hit.gpu).deviceId));
        add(QStringLiteral("GPU start"), timeAt(lane.start[i]));
        add(QStringLiteral("CPU range"),
            timeAt(thread.nvtx.start[r]) + QStringLiteral(" for ")
                + formatDuration(thread.nvtx.end[r] - thread.nvtx.start[r]));
        add(QStringLiteral("Depth"), QString::number(lane.depth[i]));
        addThread(thread);
        break;
    }
    case HitKind::Memory: {
        const auto *counter = model.memoryCounter(hit.gpu);
        if (!counter)
            break;
        add({}, QStringLiteral("GPU %1 memory in use").arg(at(t->gpus, hit.gpu).deviceId));
        add(QStringLiteral("In use"), bytesText(counter->inUseAt(hit.start)));
        add(QStringLiteral("At"), timeAt(hit.start));
        add(QStringLiteral("Peak"), bytesText(counter->peakBytes) + QStringLiteral(" at ") + timeAt(counter->peakTime));
        add(QStringLiteral("Allocations"), QString::number(counter->allocations));
        add(QStringLiteral("Frees"), QString::number(counter->frees));
        break;
    }
    case HitKind::Mark: {
        const auto &thread = at(t->threads, hit.thread);
        const auto &m = thread.marks;
        const auto i = hit.index;
        add({}, model.str(m.name[i]));
        add(QStringLiteral("NVTX mark at"), timeAt(m.time[i]));
        if (m.domain[i] != core::kEmptyString)
            add(QStringLiteral("Domain"), model.str(m.domain[i]));
        addThread(thread);
        break;
    }
    case HitKind::Fold:
        add({}, countText(hit.count, hit.foldOf));
        add(QStringLiteral("Span"), formatDuration(hit.end - hit.start));
        add(QStringLiteral("Start"), timeAt(hit.start));
        add(QStringLiteral("Note"), QStringLiteral("too small to draw one by one; double-click to zoom"));
        break;
    case HitKind::Gap: {
        const auto &blame = model.gaps(hit.gpu).blame;
        if (hit.index >= blame.size()) {
            // A gap restored (e.g. from a session) before the worker delivered the blame.
            add({}, QStringLiteral("Idle gap"));
            add(QStringLiteral("Length"), formatDuration(hit.end - hit.start));
            add(QStringLiteral("Start"), timeAt(hit.start));
            add(QStringLiteral("Cause"), QStringLiteral("computing…"));
            break;
        }
        const auto &b = blame[hit.index];
        add({}, QStringLiteral("Idle gap"));
        add(QStringLiteral("Length"), formatDuration(b.gap.duration()));
        add(QStringLiteral("Start"), timeAt(b.gap.start));
        add(QStringLiteral("Cause"), QString::fromLatin1(core::gapCauseLabel(b.cause)));
        if (b.apiName != core::kEmptyString)
            add(QStringLiteral("API call"),
                b.apiKind == core::ApiKind::None ? model.str(b.apiName)
                                                 : model.str(b.apiName) + QStringLiteral(" (")
                        + QString::fromLatin1(core::apiKindId(b.apiKind)) + QStringLiteral(")"));
        if (b.osCall != core::kEmptyString)
            add(QStringLiteral("OS call"),
                model.str(b.osCall) + QStringLiteral(" (") + QString::fromLatin1(core::osCategoryId(b.osCategory))
                    + QStringLiteral(")"));
        if (b.copyNs > 0)
            add(QStringLiteral("Copies running"),
                formatDuration(b.copyNs) + QStringLiteral(" (")
                    + QString::number(100.0 * double(b.copyNs) / double(b.gap.duration()), 'f', 1)
                    + QStringLiteral("% of the gap)"));
        if (b.waitedOn != core::WaitKind::None)
            add(QStringLiteral("Waited on"),
                QString::fromLatin1(core::waitKindId(b.waitedOn))
                    + (b.waitStream ? QStringLiteral(" (stream %1)").arg(*b.waitStream) : QString()));
        if (b.launchThread != core::kNoIndex)
            add(QStringLiteral("Launching thread"),
                QStringLiteral("%1 (tid %2)").arg(model.str(t->threads[b.launchThread].name)).arg(b.launchTid));
        QStringList phase;
        for (auto id : b.phaseStack)
            phase << model.str(id);
        add(QStringLiteral("NVTX phase"),
            phase.isEmpty() ? QStringLiteral("(none)") : phase.join(QStringLiteral(" › ")));
        if (b.endKind == core::GapEndKind::Kernel && b.endStream != core::kNoIndex)
            add(QStringLiteral("Ended by"),
                model.str(at(t->gpus, hit.gpu).streams[b.endStream].kernels.shortName[b.endEvent]));
        break;
    }
    case HitKind::State: {
        const auto &lanes = model.stateLanes();
        const auto *spans = lanes ? lanes->spans(hit.rank.value()) : nullptr;
        if (!spans || hit.index >= spans->size())
            break;
        const auto i = hit.index;
        const auto state = core::runStateName(spans->state[i]);
        add({}, QStringLiteral("Run state: ") + QString::fromLatin1(state.data(), qsizetype(state.size())));
        add(QStringLiteral("Duration"), formatDuration(spans->end[i] - spans->start[i]));
        add(QStringLiteral("Start"), timeAt(spans->start[i]));
        add(QStringLiteral("Rank"), QString::number(at(t->ranks, hit.rank).rank));
        break;
    }
    case HitKind::None: break;
    }
    return l;
}

} // namespace

QString countText(std::uint64_t count, HitKind kind)
{
    const QString n = QLocale::system().toString(qulonglong(count));
    const bool one = count == 1;
    switch (kind) {
    case HitKind::Kernel: return n + (one ? QStringLiteral(" kernel") : QStringLiteral(" kernels"));
    case HitKind::Copy: return n + (one ? QStringLiteral(" copy") : QStringLiteral(" copies/memsets"));
    case HitKind::Api: return n + (one ? QStringLiteral(" CUDA API call") : QStringLiteral(" CUDA API calls"));
    case HitKind::Nvtx: return n + (one ? QStringLiteral(" NVTX range") : QStringLiteral(" NVTX ranges"));
    case HitKind::Gap: return n + (one ? QStringLiteral(" gap") : QStringLiteral(" gaps"));
    case HitKind::Mark: return n + (one ? QStringLiteral(" NVTX mark") : QStringLiteral(" NVTX marks"));
    case HitKind::Osrt: return n + (one ? QStringLiteral(" OS runtime call") : QStringLiteral(" OS runtime calls"));
    case HitKind::State: return n + (one ? QStringLiteral(" state span") : QStringLiteral(" state spans"));
    case HitKind::ProjectedNvtx:
        return n + (one ? QStringLiteral(" projected NVTX range") : QStringLiteral(" projected NVTX ranges"));
    default: return n + QStringLiteral(" events");
    }
}

QString tooltipText(const TimelineModel &model, const HitResult &hit)
{
    QStringList out;
    for (const auto &[k, v] : describe(model, hit))
        out << (k.isEmpty() ? v : k + QStringLiteral(": ") + v);
    return out.join(QLatin1Char('\n'));
}

QString detailsHtml(const TimelineModel &model, const HitResult &hit)
{
    const Lines lines = describe(model, hit);
    if (lines.isEmpty())
        return QStringLiteral("<i>Nothing selected. Click a kernel, range, call or gap.</i>");
    QString html;
    for (const auto &[k, v] : lines) {
        if (k.isEmpty())
            html += QStringLiteral("<p><b>") + v.toHtmlEscaped() + QStringLiteral("</b></p><table>");
        else
            html += QStringLiteral("<tr><td><i>") + k.toHtmlEscaped() + QStringLiteral("</i>&nbsp;&nbsp;</td><td>")
                + v.toHtmlEscaped() + QStringLiteral("</td></tr>");
    }
    if (hit.kind == HitKind::Kernel) {
        const auto &k = at(at(model.trace()->gpus, hit.gpu).streams, hit.stream).kernels;
        if (k.demangledName[hit.index] != k.shortName[hit.index])
            html += QStringLiteral("<tr><td><i>Demangled</i></td><td>")
                + model.str(k.demangledName[hit.index]).toHtmlEscaped() + QStringLiteral("</td></tr>");
    }
    html += QStringLiteral("</table>");
    // Call stacks: of a selected CUDA or OS runtime call; of a gap, the launch of its ending
    // work and, for a no-CUDA-call gap, the OS call the host was in.
    const auto *t = model.trace();
    const auto addStack = [&](const QString &title, std::uint32_t report, std::uint32_t chain) {
        const auto stack = t->reports[report].callchains.stackOf(chain);
        if (stack.empty())
            return;
        html += QStringLiteral("<p><i>") + title + QStringLiteral(" (outer to inner)</i></p><ol>");
        for (std::size_t i = 0; i < stack.size(); ++i)
            html += QStringLiteral("<li>") + model.str(stack.symbol[i]).toHtmlEscaped() + QStringLiteral(" <small>(")
                + model.str(stack.module[i]).toHtmlEscaped() + QStringLiteral(")</small></li>");
        html += QStringLiteral("</ol>");
    };
    if (hit.kind == HitKind::Api) {
        const auto &thread = at(t->threads, hit.thread);
        const auto correlationId = thread.api.correlationId[hit.index];
        addStack(
            QStringLiteral("Call stack"), thread.report, correlationId ? thread.api.callchainOf(correlationId) : 0);
    } else if (hit.kind == HitKind::Osrt) {
        const auto &thread = at(t->threads, hit.thread);
        addStack(QStringLiteral("Call stack"), thread.report,
            t->reports[thread.report].callchains.find(core::CallchainSource::Osrt, thread.osrt.callchainId[hit.index]));
    } else if (hit.kind == HitKind::Gap && hit.index < model.gaps(hit.gpu).blame.size()) {
        const auto &gap = model.gaps(hit.gpu).blame[hit.index];
        const auto report = at(t->gpus, hit.gpu).report;
        addStack(QStringLiteral("Call stack of the launch"), report, gap.launchCallchain);
        if (gap.phaseThread != core::kNoIndex)
            addStack(QStringLiteral("Call stack of ") + model.str(gap.osCall).toHtmlEscaped(),
                t->threads[gap.phaseThread].report, gap.osCallchain);
    }
    return html;
}

} // namespace gaplens::ui
