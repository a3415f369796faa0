// SPDX-License-Identifier: MIT
// The digest reader (core/read/digest.h): a valid digest's figures, and every kind of bad
// input giving an error that names the file and the field, never a crash; the atomic writer
// never replacing an input.
#include "gaplens/core/read/digest.h"
#include "test_files.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fstream>
#include <string>

using namespace gaplens::core;
using gaplens::test::readFile;
using gaplens::test::writeFile;

namespace {

// The smallest digest with one rank of everything the reader reads; `rank` is spliced in.
std::string digestText(const std::string &rank = {}, const std::string &pace = "null", const std::string &head = {})
{
    const std::string defaultRank = R"({"rank": 3, "report": "/data/r3.sqlite", "pid": 7, "process": "python3",
        "host": "node1", "span_start_ns": 10, "span_end_ns": 1900, "busy_ns": 600, "window_ns": 1000, "idle_ns": 400, "idle_pct": 40.0, "gap_count": 2,
        "gap_ns": 300, "median_step_ns": 250.5,
        "devices": [{"device": 0, "idle_before_first_ns": 500, "idle_after_last_ns": 390}],
        "blame": {"by_cause": [{"cause": "api", "label": "cudaStreamSynchronize", "count": 2, "total_ns": 300}]},
        "top_kernels": {"kernels": [{"name": "gemm", "calls": 4, "total_ns": 500, "pct": 83.3, "median_ns": 120.0}]},
        "intervals": {"intervals": [
            {"index": 5, "start_ns": 50, "kernel_count": 2, "kernel_ns": 20, "kernel_stddev_ns": 1.5, "busy_ns": 30, "stall_ns": 4},
            {"index": 6, "start_ns": 60, "kernel_count": 1, "kernel_ns": 10, "kernel_stddev_ns": null, "busy_ns": 10, "stall_ns": 0}],
            "anomalies": [{"index": 6, "start_ns": 60, "value": 1, "score": 2}]},
        "run_accounting": {"sustained_rate": 12.5},
        "findings": ["rank 3 was slowest"]})";
    return (head.empty() ? std::string(R"({"format": "gaplens-digest", "version": 1,)") : head)
        + R"( "capture": {"span_start_ns": 10, "span_end_ns": 2000, "files": ["/data/r3.sqlite"],
            "errors": [{"file": "/data/bad.sqlite", "message": "not a database"}], "warnings": ["w"]},
          "settings": {"min_gap_ns": 100, "interval_ns": 10, "origin_ns": 0, "metric": "stddev"},
          "ranks": [)"
        + (rank.empty() ? defaultRank : rank) + R"(],
          "findings": [{"rank": 3, "text": "rank 3 was slowest"}, {"rank": null, "text": "all idle"}],
          "pace": )"
        + pace + "}";
}

const std::string kPace = R"({"range": "train_step", "time": "cpu",
    "ranks": [{"rank": 3, "median_ns": 250.5, "p95_ns": 300, "times_slowest": 2,
               "iterations": [{"duration_ns": 200}, {"duration_ns": 300}]}],
    "iterations": [{"index": 0, "median_ns": 200.0, "slowest_rank": 3}, {"index": 1, "median_ns": 300.0, "slowest_rank": null}],
    "straggler": {"rank": 3}, "verdict": "rank 3 was slowest in 2 of 2 steps"})";

QString errorOf(const std::string &text)
{
    const auto result = parseDigest(text, "run.gldigest");
    if (result.digest)
        return QStringLiteral("(no error)");
    return QString::fromStdString(result.error);
}

std::string replaced(std::string text, const std::string &from, const std::string &to)
{
    const auto at = text.find(from);
    if (at != std::string::npos)
        text.replace(at, from.size(), to);
    return text;
}

// A digest of `count` copies of the default rank, numbered 0, 1, ...
std::string manyRanksText(int count)
{
    const auto text = digestText();
    const auto begin = text.find(R"({"rank": 3,)"), end = text.find("],\n          \"findings\"");
    const auto rank = text.substr(begin, end - begin);
    std::string ranks;
    for (int r = 0; r < count; ++r)
        ranks += (r ? ", " : "") + replaced(rank, R"("rank": 3,)", "\"rank\": " + std::to_string(r) + ",");
    return digestText(ranks);
}

} // namespace

class TestDigest : public QObject
{
    Q_OBJECT

private slots:
    void readsEveryField()
    {
        const auto result = parseDigest(digestText({}, kPace), "run.gldigest");
        QVERIFY2(result.digest, result.error.c_str());
        const auto &d = *result.digest;
        QCOMPARE(d.version, 1);
        QCOMPARE(d.span, (TimeRange { 10, 2000 }));
        QCOMPARE(d.minGapNs, 100);
        QCOMPARE(d.intervalNs, 10);
        QCOMPARE(d.metric, std::string("stddev"));
        QCOMPARE(d.files, std::vector<std::string> { "/data/r3.sqlite" });
        QCOMPARE(d.errors.size(), std::size_t(1));
        QCOMPARE(d.errors[0].message, std::string("not a database"));
        QCOMPARE(d.warnings.size(), std::size_t(1));
        QCOMPARE(d.ranks.size(), std::size_t(1));
        const auto &r = d.ranks[0];
        QCOMPARE(r.rank, 3);
        QCOMPARE(r.report, std::string("/data/r3.sqlite"));
        QCOMPARE(r.host, std::string("node1"));
        QCOMPARE(r.span, (TimeRange { 10, 1900 }));
        QCOMPARE(r.busyNs, 600);
        QCOMPARE(r.idleNs, 400);
        QCOMPARE(r.idleOutsideNs, 890);
        QCOMPARE(*r.idlePercentOfWindow(), 40.0);
        // The GPU's capture is its window and the time outside it: the rank's span, 1,890 ns.
        QCOMPARE(*r.idlePercentOfCapture(), 100.0 * (1890 - 600) / 1890);
        QCOMPARE(r.gapCount, std::uint64_t(2));
        QCOMPARE(*r.medianStepNs, 250.5);
        QCOMPARE(r.blameByCause.size(), std::size_t(1));
        QCOMPARE(r.blameByCause[0].key, std::string("cudaStreamSynchronize"));
        QCOMPARE(r.blameByCause[0].totalNs, 300);
        QCOMPARE(r.topKernels[0].name, std::string("gemm"));
        QCOMPARE(r.topKernels[0].calls, std::uint64_t(4));
        QCOMPARE(r.intervals.size(), std::size_t(2));
        QCOMPARE(r.intervals[0].index, 5);
        QCOMPARE(*r.intervals[0].kernelStddevNs, 1.5);
        QVERIFY(!r.intervals[1].kernelStddevNs);
        QVERIFY(!r.intervals[0].anomalous);
        QVERIFY(r.intervals[1].anomalous); // index 6 is in "anomalies"
        QVERIFY(r.hasRunAccounting);
        QCOMPARE(*r.sustainedRate, 12.5);
        QCOMPARE(r.findings, std::vector<std::string> { "rank 3 was slowest" });
        QCOMPARE(d.findings.size(), std::size_t(2));
        QCOMPARE(*d.findings[0].rank, 3);
        QVERIFY(!d.findings[1].rank);
        QVERIFY(d.pace);
        QCOMPARE(d.pace->range, std::string("train_step"));
        QCOMPARE(d.pace->ranks[0].durationsNs, (std::vector<TimeNs> { 200, 300 }));
        QCOMPARE(d.pace->iterationMedianNs, (std::vector<double> { 200.0, 300.0 }));
        QCOMPARE(*d.pace->slowestRank[0], 3);
        QVERIFY(!d.pace->slowestRank[1]);
        QCOMPARE(*d.pace->straggler, 3);
    }

    void nullPaceAndRunAccounting()
    {
        const auto text
            = replaced(digestText(), R"("run_accounting": {"sustained_rate": 12.5})", R"("run_accounting": null)");
        const auto result = parseDigest(text, "run.gldigest");
        QVERIFY2(result.digest, result.error.c_str());
        QVERIFY(!result.digest->pace);
        QVERIFY(!result.digest->ranks[0].hasRunAccounting);
    }

    void rankWithoutGpuWorkHasNoIntervals()
    {
        auto text = digestText();
        const auto start = text.find(R"("intervals": {"intervals")");
        const auto end = text.find(R"("run_accounting")");
        QVERIFY(start != std::string::npos && end != std::string::npos);
        text.replace(start, end - start, R"("intervals": null, "transfers": null, )");
        const auto result = parseDigest(text, "run.gldigest");
        QVERIFY2(result.digest, result.error.c_str());
        QVERIFY(result.digest->ranks[0].intervals.empty());
    }

    void rankWithoutGpuHasNoIdleShare()
    {
        auto text = replaced(digestText(), R"("busy_ns": 600, "window_ns": 1000, "idle_ns": 400)",
            R"("busy_ns": 0, "window_ns": 0, "idle_ns": 0)");
        text = replaced(text, R"("devices": [{"device": 0, "idle_before_first_ns": 500, "idle_after_last_ns": 390}])",
            R"("devices": [])");
        const auto result = parseDigest(text, "run.gldigest");
        QVERIFY2(result.digest, result.error.c_str());
        const auto &r = result.digest->ranks[0];
        QVERIFY(!r.idlePercentOfWindow()); // not 0%: there is no GPU to be idle
        QVERIFY(!r.idlePercentOfCapture());
        QCOMPARE(r.gpuCount, std::size_t(0));
        QCOMPARE(parseDigest(digestText(), "run.gldigest").digest->ranks[0].gpuCount, std::size_t(1));
    }

    void badInputNamesFileAndProblem_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        const auto valid = digestText();
        QTest::newRow("empty") << QString() << QStringLiteral("run.gldigest: not JSON (the file is empty)");
        QTest::newRow("not JSON") << QStringLiteral("SQLite format 3") << QStringLiteral("run.gldigest: not JSON (");
        QTest::newRow("truncated") << QString::fromStdString(valid.substr(0, valid.size() / 2))
                                   << QStringLiteral("run.gldigest: not JSON (");
        QTest::newRow("an array") << QStringLiteral("[1, 2]")
                                  << QStringLiteral("run.gldigest: top level: expected a JSON object");
        QTest::newRow("no format") << QStringLiteral(R"({"version": 1})")
                                   << QStringLiteral("run.gldigest: format: not a gaplens digest");
        QTest::newRow("another format") << QString::fromStdString(replaced(valid, "gaplens-digest", "gaplens-session"))
                                        << QStringLiteral("run.gldigest: format: not a gaplens digest");
        QTest::newRow("newer version") << QString::fromStdString(replaced(valid, R"("version": 1)", R"("version": 2)"))
                                       << QStringLiteral(
                                              "run.gldigest: version: version 2 is newer than this gaplens reads (1)");
        QTest::newRow("version a string")
            << QString::fromStdString(replaced(valid, R"("version": 1)", R"("version": "1")"))
            << QStringLiteral("run.gldigest: version: expected an integer");
        QTest::newRow("missing ranks") << QString::fromStdString(replaced(valid, R"("ranks": [)", R"("rank_list": [)"))
                                       << QStringLiteral("run.gldigest: ranks: missing");
        QTest::newRow("missing busy") << QString::fromStdString(replaced(valid, R"("busy_ns": 600,)", ""))
                                      << QStringLiteral("run.gldigest: ranks[0].busy_ns: missing");
        QTest::newRow("busy a string") << QString::fromStdString(replaced(valid, R"("busy_ns": 600)",
            R"("busy_ns": "600")")) << QStringLiteral("run.gldigest: ranks[0].busy_ns: expected an integer");
        QTest::newRow("busy a fraction") << QString::fromStdString(replaced(valid, R"("busy_ns": 600)",
            R"("busy_ns": 600.5)")) << QStringLiteral("run.gldigest: ranks[0].busy_ns: expected an integer");
        QTest::newRow("negative count") << QString::fromStdString(replaced(valid, R"("gap_count": 2)",
            R"("gap_count": -2)")) << QStringLiteral("run.gldigest: ranks[0].gap_count: expected a count");
        QTest::newRow("missing devices") << QString::fromStdString(replaced(valid, R"("devices": [)", R"("gpus": [)"))
                                         << QStringLiteral("run.gldigest: ranks[0].devices: missing");
        QTest::newRow("negative idle before")
            << QString::fromStdString(
                   replaced(valid, R"("idle_before_first_ns": 500)", R"("idle_before_first_ns": -5)"))
            << QStringLiteral("run.gldigest: ranks[0].devices[0].idle_before_first_ns: expected a duration");
        QTest::newRow("idle outside overflows")
            << QString::fromStdString(
                   replaced(valid, R"("idle_after_last_ns": 390)", R"("idle_after_last_ns": 9223372036854775807)"))
            << QStringLiteral("run.gldigest: ranks[0].devices[0].idle_after_last_ns: expected a duration");
        QTest::newRow("ranks a number") << QString::fromStdString(replaced(valid, R"("ranks": [)",
            R"("ranks": 5, "old": [)")) << QStringLiteral("run.gldigest: ranks: expected an array");
        QTest::newRow("kernel name a number")
            << QString::fromStdString(replaced(valid, R"("name": "gemm")", R"("name": 5)"))
            << QStringLiteral("run.gldigest: ranks[0].top_kernels.kernels[0].name: expected a string");
        QTest::newRow("rank out of range")
            << QString::fromStdString(replaced(valid, R"("rank": 3, "report")", R"("rank": 99999999999, "report")"))
            << QStringLiteral("run.gldigest: ranks[0].rank: rank number out of range");
        QTest::newRow("intervals not consecutive")
            << QString::fromStdString(replaced(valid, R"("index": 6, "start_ns": 60, "kernel_count": 1)",
                   R"("index": 9, "start_ns": 60, "kernel_count": 1)"))
            << QStringLiteral("run.gldigest: ranks[0].intervals.intervals[1].index: expected 6");
        QTest::newRow("pace without verdict") << QString::fromStdString(
            digestText({}, replaced(kPace, R"(, "verdict": "rank 3 was slowest in 2 of 2 steps")", "")))
                                              << QStringLiteral("run.gldigest: pace.verdict: missing");
        QTest::newRow("settings null") << QString::fromStdString(
            replaced(valid, R"("settings": {)", R"("settings": null, "x": {)"))
                                       << QStringLiteral("run.gldigest: settings: expected an object");
    }

    void badInputNamesFileAndProblem()
    {
        QFETCH(QString, text);
        QFETCH(QString, error);
        const auto actual = errorOf(text.toStdString());
        QVERIFY2(actual.startsWith(error), qPrintable(actual));
    }

    void readDigestNamesAMissingFile()
    {
        const auto result = readDigest("/nonexistent/run.gldigest");
        QVERIFY(!result.digest);
        QCOMPARE(
            QString::fromStdString(result.error), QStringLiteral("/nonexistent/run.gldigest: cannot open the file"));
    }

    // A digest of several MiB reports each stage in order, by MiB read and parsed and by rank
    // checked, ending at 1000 per mille.
    void progressGoesThroughEachStage()
    {
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("big.gldigest")).toStdString();
        const auto text = manyRanksText(3000);
        QVERIFY(writeFile(std::filesystem::path(path), text));
        std::vector<DigestReadProgress> seen;
        std::vector<std::string> stages;
        const auto result = readDigest(path, [&](const DigestReadProgress &p) {
            seen.push_back(p);
            stages.emplace_back(p.stage);
        });
        QVERIFY2(result.digest, result.error.c_str());
        QCOMPARE(result.digest->ranks.size(), std::size_t(3000));
        const std::uint64_t size = text.size(), mib = 1 << 20;
        QVERIFY(size > 2 * mib);
        const auto countOf = [&](const char *stage) { return std::count(stages.begin(), stages.end(), stage); };
        QCOMPARE(std::uint64_t(countOf("reading")), (size + mib - 1) / mib);
        QCOMPARE(std::uint64_t(countOf("parsing")), size / mib);
        QCOMPARE(countOf("checking"), 3000);
        QVERIFY(std::is_sorted(
            seen.begin(), seen.end(), [](const auto &a, const auto &b) { return a.permille < b.permille; }));
        QCOMPARE(stages.front(), std::string("reading"));
        QCOMPARE(seen.front().done, mib);
        QCOMPARE(seen.front().total, size);
        QCOMPARE(seen[std::size_t(countOf("reading")) - 1].done, size);
        QCOMPARE(seen[std::size_t(countOf("reading")) - 1].permille, 50);
        QCOMPARE(stages[std::size_t(countOf("reading"))], std::string("parsing"));
        QCOMPARE(seen[std::size_t(countOf("reading"))].done, mib);
        QCOMPARE(stages.back(), std::string("checking"));
        QCOMPARE(seen.back().done, std::uint64_t(3000));
        QCOMPARE(seen.back().permille, 1000);
    }

    // Cancelled in any stage, the read stops there: no digest, no error, no more progress.
    void cancelStopsTheReadInEachStage_data()
    {
        QTest::addColumn<QString>("stage");
        QTest::newRow("reading") << QStringLiteral("reading");
        QTest::newRow("parsing") << QStringLiteral("parsing");
        QTest::newRow("checking") << QStringLiteral("checking");
    }
    void cancelStopsTheReadInEachStage()
    {
        QFETCH(QString, stage);
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("big.gldigest")).toStdString();
        QVERIFY(writeFile(std::filesystem::path(path), manyRanksText(3000)));
        CancelToken cancel;
        int afterCancel = 0;
        const auto result = readDigest(
            path,
            [&](const DigestReadProgress &p) {
                if (cancel.isCancelled())
                    ++afterCancel;
                if (p.stage == stage.toStdString())
                    cancel.cancel();
            },
            &cancel);
        QVERIFY(result.cancelled);
        QVERIFY(!result.digest);
        QVERIFY(result.error.empty());
        QCOMPARE(afterCancel, 0);
    }

    void writerReplacesAtomicallyAndReadsBack()
    {
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("run.gldigest"));
        QVERIFY(writeFile(path, "old"));
        const auto text = digestText();
        QCOMPARE(writeDigestFile(path.toStdString(), text, { dir.filePath(QStringLiteral("r3.sqlite")).toStdString() }),
            std::string());
        QCOMPARE(readFile(path.toStdString()), text);
        QVERIFY(!QFile::exists(path + QStringLiteral(".tmp")));
        const auto back = readDigest(path.toStdString());
        QVERIFY2(back.digest, back.error.c_str());
        QCOMPARE(back.digest->ranks[0].rank, 3);
    }

    void writerRefusesAnInputHoweverSpelled()
    {
        QTemporaryDir dir;
        const auto input = dir.filePath(QStringLiteral("r3.sqlite"));
        QVERIFY(writeFile(input, "SQLite format 3"));
        const auto spelled = dir.path() + QStringLiteral("/./r3.sqlite");
        const auto error = writeDigestFile(spelled.toStdString(), digestText(), { input.toStdString() });
        QCOMPARE(QString::fromStdString(error), spelled + QStringLiteral(": refusing to overwrite an input file"));
        QCOMPARE(readFile(input.toStdString()), std::string("SQLite format 3"));
        QVERIFY(!QFile::exists(input + QStringLiteral(".tmp")));
    }

    void writerReportsAnUnwritableFolder()
    {
        const auto error = writeDigestFile("/nonexistent/run.gldigest", "{}", {});
        QCOMPARE(QString::fromStdString(error), QStringLiteral("/nonexistent/run.gldigest.tmp: cannot write"));
    }
};

QTEST_APPLESS_MAIN(TestDigest)
#include "tst_digest.moc"
