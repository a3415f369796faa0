// SPDX-License-Identifier: MIT
// The Details panel shows the call stack of a selected gap's launch and of a selected CUDA
// call, outer to inner, as the export's CUDA_CALLCHAINS holds it (pipit's saxpy export), and
// of a selected OS runtime call as OSRT_CALLCHAINS holds it (gpu4's).
#include "gaplens/core/read/loader.h"
#include "sqltestdb.h"
#include "testsupport.h"
#include "ui/detailspanel.h"
#include "ui/timeline/hitdescriber.h"
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"

#include <QTest>

#include <fmt/format.h>

using namespace gaplens;
using namespace gaplens::ui;

namespace {

// The stack as detailsHtml lists it: "<li>symbol <small>(module)</small></li>" outer to inner.
QString stackHtml(
    const std::vector<std::vector<std::string>> &frames, const QString &title = QStringLiteral("Call stack"))
{
    QString html = QStringLiteral("<p><i>") + title + QStringLiteral(" (outer to inner)</i></p><ol>");
    for (const auto &f : frames)
        html += QStringLiteral("<li>") + QString::fromStdString(f[1]).toHtmlEscaped() + QStringLiteral(" <small>(")
            + QString::fromStdString(f[0]).toHtmlEscaped() + QStringLiteral(")</small></li>");
    return html + QStringLiteral("</ol>");
}

// CUDA_CALLCHAINS' frames of the call (pid, correlationId), outer to inner; the export's
// runtime callchainId is the chain's id - 1.
std::vector<std::vector<std::string>> sqlStack(const test::SqlTestDb &db, std::uint32_t pid, std::uint32_t corr)
{
    return db.rows(fmt::format("SELECT m.value, s.value FROM CUDA_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol "
                               "JOIN StringIds m ON m.id = c.module WHERE c.id = (SELECT callchainId + 1 FROM "
                               "CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 67 AND correlationId = {} AND "
                               "((globalTid >> 24) & 16777215) = {}) ORDER BY c.stackDepth DESC",
        corr, pid));
}

} // namespace

class TestDetailsStack : public QObject
{
    Q_OBJECT

    // Loads a real export into `model`; `trace` stays empty when it cannot.
    static void loadInto(const std::string &path, TimelineModel &model, std::shared_ptr<const core::TraceSet> &trace)
    {
        QVERIFY2(!path.empty(), "the real exports (../shared/nsys-real) are not here");
        core::LoadOptions load;
        load.files = { path };
        auto loaded = core::loadTraceSet(load);
        QVERIFY(loaded->errors.empty());
        trace = std::move(loaded);
        model.setData(prepareTimelineData(trace));
    }

private slots:
    void aGapAndACudaCallShowTheirStack()
    {
        const auto path = test::realFile("pipit_saxpy_mpi_cuda_rank0.sqlite");
        TimelineModel model;
        std::shared_ptr<const core::TraceSet> trace;
        loadInto(path, model, trace);
        QVERIFY(trace && model.waitForGaps());
        const test::SqlTestDb db(path);

        const auto &blame = model.gaps(core::GpuIndex(0)).blame;
        QVERIFY(!blame.empty());
        HitResult gap;
        gap.kind = HitKind::Gap;
        gap.gpu = core::GpuIndex(0);
        gap.index = 0;
        gap.start = blame[0].gap.start;
        gap.end = blame[0].gap.end;
        const auto gapFrames = sqlStack(db, blame[0].endPid, blame[0].endCorrelationId);
        QCOMPARE(gapFrames.size(), std::size_t(10));
        QCOMPARE(gapFrames.front()[1], std::string("_start"));
        const auto gapHtml = detailsHtml(model, gap);
        QVERIFY2(
            gapHtml.contains(stackHtml(gapFrames, QStringLiteral("Call stack of the launch"))), qPrintable(gapHtml));
        // The stack is the panel's, not the tooltip's.
        QVERIFY(!tooltipText(model, gap).contains(QStringLiteral("_start")));

        // The first cudaMalloc (correlation 135) with its 8-frame backtrace.
        HitResult call;
        call.kind = HitKind::Api;
        for (std::uint32_t t = 0; t < trace->threads.size() && call.index == core::kNoIndex; ++t) {
            const auto &api = trace->threads[t].api;
            for (std::uint32_t i = 0; i < api.size(); ++i)
                if (api.correlationId[i] == 135) {
                    call.thread = core::ThreadIndex(t);
                    call.index = i;
                    call.start = api.start[i];
                    call.end = api.end[i];
                    break;
                }
        }
        QVERIFY(call.index != core::kNoIndex);
        const auto &thread = trace->threads[call.thread.value()];
        const auto callFrames = sqlStack(db, thread.pid, 135);
        QCOMPARE(callFrames.size(), std::size_t(8));
        QCOMPARE(callFrames[4][1], std::string("cudaMalloc"));
        QVERIFY(detailsHtml(model, call).contains(stackHtml(callFrames)));

        // A picture of the panel to look at, when asked for.
        if (const auto png = qEnvironmentVariable("GAPLENS_DETAILS_PNG"); !png.isEmpty()) {
            DetailsPanel panel(model);
            panel.resize(900, 700);
            panel.showHit(gap);
            QVERIFY(panel.grab().save(png));
        }
    }

    void anOsRuntimeCallShowsItsStack()
    {
        const auto path = test::realFile("gpu4_streams_report2.sqlite");
        TimelineModel model;
        std::shared_ptr<const core::TraceSet> trace;
        loadInto(path, model, trace);
        QVERIFY(trace);
        const test::SqlTestDb db(path);
        // The poll of chain 2 (134 ms on the CUDA event handler thread), and an fopen, whose
        // callchainId 0 names no stack.
        HitResult poll, fopen;
        poll.kind = fopen.kind = HitKind::Osrt;
        const auto pick = [](HitResult &hit, std::uint32_t thread, const core::OsrtColumns &o, std::uint32_t i) {
            if (hit.index != core::kNoIndex)
                return;
            hit.thread = core::ThreadIndex(thread);
            hit.index = i;
            hit.start = o.start[i];
            hit.end = o.end[i];
        };
        for (std::uint32_t t = 0; t < trace->threads.size(); ++t) {
            const auto &o = trace->threads[t].osrt;
            for (std::uint32_t i = 0; i < o.size(); ++i) {
                if (o.callchainId[i] == 2)
                    pick(poll, t, o, i);
                else if (trace->str(o.name[i]) == "fopen")
                    pick(fopen, t, o, i);
            }
        }
        QVERIFY(poll.index != core::kNoIndex && fopen.index != core::kNoIndex);
        const auto frames = db.rows("SELECT m.value, s.value FROM OSRT_CALLCHAINS c JOIN StringIds s ON s.id = "
                                    "c.symbol JOIN StringIds m ON m.id = c.module WHERE c.id = 2 ORDER BY "
                                    "c.stackDepth DESC");
        QCOMPARE(frames.size(), std::size_t(7));
        QCOMPARE(frames.back()[1], std::string("__poll"));
        const auto html = detailsHtml(model, poll);
        QVERIFY2(html.contains(stackHtml(frames)), qPrintable(html));
        QVERIFY(!detailsHtml(model, fopen).contains(QStringLiteral("Call stack")));
    }
};

QTEST_MAIN(TestDetailsStack)
#include "tst_details_stack.moc"
