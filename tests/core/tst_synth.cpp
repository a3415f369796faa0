// SPDX-License-Identifier: MIT
#include "gaplens/core/write/export_writer.h"
#include "gaplens/core/write/synth.h"
#include "sqltestdb.h"
#include "synth_sample.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gaplens::core;

namespace {

// The generated files read back in SQL.
class Db : public gaplens::test::SqlTestDb
{
public:
    using SqlTestDb::SqlTestDb;

    // Every row as its values, each followed by '|'.
    std::vector<std::string> texts(const std::string &sql) const
    {
        std::vector<std::string> out;
        for (const auto &row : rows(sql)) {
            std::string line;
            for (const auto &value : row)
                line += value + '|';
            out.push_back(std::move(line));
        }
        return out;
    }
};

// Names of NVTX ranges, whichever way they were stored.
const char *kNvtxName = "COALESCE(n.text, (SELECT value FROM StringIds WHERE id = n.textId))";

std::vector<std::int64_t> column(const std::vector<std::vector<std::int64_t>> &rows, std::size_t index)
{
    std::vector<std::int64_t> out;
    for (const auto &row : rows)
        out.push_back(row[index]);
    return out;
}

struct Union
{
    std::int64_t busy = 0, first = 0, last = 0, gapsAtLeast100us = 0;
};

// The GPU's busy union, computed here from raw rows rather than trusting the generator.
Union gpuUnion(const Db &db)
{
    auto rows = db.ints("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT start, end FROM "
                        "CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMSET "
                        "ORDER BY 1");
    Union u;
    if (rows.empty())
        return u;
    u.first = rows[0][0];
    std::int64_t curStart = rows[0][0], curEnd = rows[0][1];
    for (const auto &row : rows) {
        if (row[0] > curEnd) {
            u.busy += curEnd - curStart;
            if (row[0] - curEnd >= 100'000)
                ++u.gapsAtLeast100us;
            curStart = row[0];
        }
        curEnd = std::max(curEnd, row[1]);
    }
    u.busy += curEnd - curStart;
    u.last = curEnd;
    return u;
}

} // namespace

class TestSynth : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    SynthOptions m_options;
    SynthResult m_result;

    std::string folder(const char *name) const
    {
        return (m_dir.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

    static void compareWithSql(const SynthResult &result)
    {
        for (const auto &truth : result.ranks) {
            Db db(truth.file);
            QVERIFY2(db.isOpen(), truth.file.c_str());
            QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), std::int64_t(truth.kernels));
            QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
                                "k.shortName WHERE s.value LIKE 'nccl%'"),
                std::int64_t(truth.ncclKernels));
            QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
                                "k.shortName WHERE s.value NOT LIKE 'nccl%'"),
                std::int64_t(truth.computeKernels));
            QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 0"),
                std::int64_t(truth.runtimeCalls));
            QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 67"),
                std::int64_t(truth.backtraceRows));
            const auto nvtx = [&](int eventType) {
                return db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = " + std::to_string(eventType));
            };
            QCOMPARE(nvtx(59), std::int64_t(truth.nvtxRanges));
            QCOMPARE(nvtx(34), std::int64_t(truth.nvtxMarks));
            QCOMPARE(nvtx(75), std::int64_t(truth.nvtxDomains));
            QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"), std::int64_t(truth.memcpys));
            QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"), std::int64_t(truth.memsets));
            QCOMPARE(db.integer("SELECT sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON "
                                "s.id = k.shortName WHERE s.value NOT LIKE 'nccl%'"),
                truth.computeKernelNs);
            QCOMPARE(db.integer("SELECT sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON "
                                "s.id = k.shortName WHERE s.value LIKE 'nccl%'"),
                truth.ncclKernelNs);
            const auto steps = db.ints(std::string("SELECT n.start, n.end - n.start FROM NVTX_EVENTS n WHERE ")
                + kNvtxName + " = 'train_step' ORDER BY n.start");
            QCOMPARE(int(steps.size()), truth.steps);
            QCOMPARE(column(steps, 0), truth.stepStartNs);
            QCOMPARE(column(steps, 1), truth.stepDurationNs);
            const Union u = gpuUnion(db);
            QCOMPARE(u.busy, truth.busyNs);
            QCOMPARE(u.first, truth.firstGpuNs);
            QCOMPARE(u.last, truth.lastGpuNs);
            QCOMPARE(u.gapsAtLeast100us, std::int64_t(truth.idleGapsAtLeast100us));
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_options.ranks = 4;
        m_options.steps = 6;
        m_options.layers = 4;
        m_options.stragglerRank = 2;
        m_options.stragglerSlowdown = 1.25;
        m_result = writeSyntheticCapture(folder("exact"), m_options);
        QCOMPARE(int(m_result.files.size()), 4);
        QCOMPARE(int(m_result.ranks.size()), 4);
    }

    void filesAreNamedByRankAndCarryTheirIdentity()
    {
        for (int r = 0; r < 4; ++r) {
            const auto &truth = m_result.ranks[std::size_t(r)];
            QCOMPARE(truth.rank, r);
            QCOMPARE(std::filesystem::path(m_result.files[std::size_t(r)]).filename().string(),
                "train_" + std::to_string(r) + ".sqlite");
            QCOMPARE(truth.file, m_result.files[std::size_t(r)]);
            QVERIFY(std::uint32_t(r) != truth.pid); // the pid must not give the rank away
            Db db(truth.file);
            QVERIFY(db.isOpen());
            const auto env = db.texts("SELECT value FROM META_DATA_CAPTURE WHERE name = "
                                      "'PROCESS_0:ENVIRONMENT_VARIABLE'");
            QVERIFY(std::find(env.begin(), env.end(), "RANK=\"" + std::to_string(r) + "\"|") != env.end());
            QVERIFY(std::find(env.begin(), env.end(), "LOCAL_RANK=\"" + std::to_string(r) + "\"|") != env.end());
            QVERIFY(std::find(env.begin(), env.end(), std::string("WORLD_SIZE=\"4\"|")) != env.end());
            QCOMPARE(db.texts("SELECT value FROM META_DATA_CAPTURE WHERE name = 'DEVICE_DISPLAY_NAME'"),
                std::vector<std::string> { "node0|" });
            QCOMPARE(db.integer("SELECT count(*) FROM PROCESSES WHERE pid = " + std::to_string(truth.pid)
                         + " AND name = 'python3'"),
                1);
            // Every GPU row belongs to this rank's process and device.
            QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId != " + std::to_string(r)
                         + " OR globalPid != " + std::to_string(makeGlobalPid(truth.pid))),
                0);
            QCOMPARE(db.integer("SELECT id FROM TARGET_INFO_GPU"), r);
            QCOMPARE(db.texts("SELECT s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId WHERE "
                              "t.globalTid = "
                         + std::to_string(makeGlobalTid(truth.pid, truth.loaderTid))),
                std::vector<std::string> { "pt_data_worker|" });
            QCOMPARE(db.integer("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"), m_options.sessionStartUtcNs);
        }
    }

    void truthMatchesSql() { compareWithSql(m_result); }

    void countsMatchTheTrainingShape()
    {
        // Independent of the generator's bookkeeping: the shape promised in synth.h.
        const std::uint64_t steps = 6, layers = 4;
        for (const auto &truth : m_result.ranks) {
            QCOMPARE(truth.steps, 6);
            QCOMPARE(truth.kernels, steps * (2 * layers + 3 * layers + 2)); // + all-reduce + optimizer
            QCOMPARE(truth.ncclKernels, steps);
            QCOMPARE(truth.memcpys, steps);
            QCOMPARE(truth.memsets, steps);
            // copy + launches + NCCL launch + optimizer + memset + synchronize
            QCOMPARE(truth.runtimeCalls, steps * (1 + 5 * layers + 1 + 1 + 1 + 1));
            QCOMPARE(truth.nvtxDomains, std::uint64_t(1));
            QCOMPARE(truth.nvtxMarks, steps);
            // With the input gap far above 100 us and back-to-back kernels, the only holes are
            // the data-loading ones between steps.
            QCOMPARE(truth.idleGapsAtLeast100us, steps - 1);
        }
    }

    void computeTimeFollowsTheKernelTable()
    {
        // jitter 0: per step, forward = sgemm 120 us + (layer norm 25 us | elementwise 20 us
        // alternating per layer), backward = 130 + 110 + 20 us per layer, optimizer 80 us.
        const std::int64_t layers = 4, steps = 6;
        std::int64_t forwardBackward = 0;
        for (int layer = 0; layer < layers; ++layer)
            forwardBackward += 120'000 + (layer % 2 == 0 ? 25'000 : 20'000) + 260'000;
        for (const auto &truth : m_result.ranks) {
            const double slowdown = truth.rank == 2 ? 1.25 : 1.0;
            QCOMPARE(truth.computeKernelNs, steps * (std::int64_t(forwardBackward * slowdown) + 80'000));
        }
    }

    void stepsStartTogetherOnEveryRank()
    {
        const auto &reference = m_result.ranks[0].stepStartNs;
        QCOMPARE(int(reference.size()), 6);
        for (std::size_t i = 1; i < reference.size(); ++i)
            QVERIFY(reference[i] > reference[i - 1]);
        for (const auto &truth : m_result.ranks) {
            Db db(truth.file);
            QVERIFY(db.isOpen());
            const auto starts = db.ints(
                std::string("SELECT n.start FROM NVTX_EVENTS n WHERE ") + kNvtxName + " = 'train_step' ORDER BY 1");
            QCOMPARE(column(starts, 0), reference);
        }
    }

    void stragglerStepsAreLongerAndOthersWaitInNccl()
    {
        const auto &straggler = m_result.ranks[2];
        for (const auto &truth : m_result.ranks) {
            if (truth.rank == 2)
                continue;
            for (std::size_t s = 0; s < truth.stepDurationNs.size(); ++s)
                QVERIFY2(straggler.stepDurationNs[s] > truth.stepDurationNs[s],
                    qPrintable(QStringLiteral("step %1 rank %2").arg(s).arg(truth.rank)));
            QVERIFY(truth.ncclKernelNs > straggler.ncclKernelNs);
            QVERIFY(truth.computeKernelNs < straggler.computeKernelNs);
        }
        // The all-reduce ends at the same instant on every rank.
        std::vector<std::vector<std::int64_t>> ends;
        for (const auto &truth : m_result.ranks) {
            Db db(truth.file);
            QVERIFY(db.isOpen());
            ends.push_back(column(db.ints("SELECT k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
                                          "k.shortName WHERE s.value LIKE 'nccl%' ORDER BY 1"),
                0));
        }
        for (const auto &rankEnds : ends)
            QCOMPARE(rankEnds, ends[0]);
    }

    void everyGpuOperationHasAnEarlierLaunch()
    {
        for (const auto &truth : m_result.ranks) {
            Db db(truth.file);
            QVERIFY(db.isOpen());
            for (const char *table :
                { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET" }) {
                const std::string join = std::string("FROM ") + table
                    + " g JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = "
                      "g.correlationId AND r.eventClass = 0 ";
                QCOMPARE(
                    db.integer("SELECT count(*) " + join), db.integer(std::string("SELECT count(*) FROM ") + table));
                QCOMPARE(db.integer("SELECT count(*) " + join + "WHERE r.end > g.start"), 0);
                // Launched on the main thread (tid == pid).
                QCOMPARE(db.integer("SELECT count(*) " + join
                             + "WHERE r.globalTid != " + std::to_string(makeGlobalTid(truth.pid, truth.pid))),
                    0);
            }
            // Correlation ids are unique per call; backtrace rows duplicate one and are wider.
            QCOMPARE(db.integer("SELECT count(*) - count(DISTINCT correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                                "WHERE eventClass = 0"),
                0);
            QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME b JOIN CUPTI_ACTIVITY_KIND_RUNTIME "
                                "r ON r.correlationId = b.correlationId AND r.eventClass = 0 WHERE b.eventClass = 67 "
                                "AND b.start < r.start AND b.end > r.end"),
                std::int64_t(truth.backtraceRows));
            QVERIFY(truth.backtraceRows > 0);
            // The all-reduce runs on its own stream while backward kernels still run.
            QCOMPARE(db.integer("SELECT count(DISTINCT n.correlationId) FROM CUPTI_ACTIVITY_KIND_KERNEL n JOIN "
                                "CUPTI_ACTIVITY_KIND_KERNEL c ON c.streamId = 7 AND c.start < n.end AND c.end > "
                                "n.start WHERE n.streamId = 13"),
                std::int64_t(truth.ncclKernels));
        }
    }

    void dataLoadingIsAnIdleGapWithoutCudaCalls()
    {
        for (const auto &truth : m_result.ranks) {
            Db db(truth.file);
            QVERIFY(db.isOpen());
            const auto loads = db.ints(std::string("SELECT n.start, n.end FROM NVTX_EVENTS n WHERE ") + kNvtxName
                + " = 'DataLoader.__next__' AND n.globalTid = "
                + std::to_string(makeGlobalTid(truth.pid, truth.loaderTid)));
            QCOMPARE(int(loads.size()), truth.steps);
            for (const auto &load : loads) {
                QCOMPARE(load[1] - load[0], m_options.inputGapNs);
                const auto overlap = [&](const char *table) {
                    return db.integer(std::string("SELECT count(*) FROM ") + table + " WHERE start < "
                        + std::to_string(load[1]) + " AND end > " + std::to_string(load[0]));
                };
                QCOMPARE(overlap("CUPTI_ACTIVITY_KIND_RUNTIME"), 0);
                QCOMPARE(overlap("CUPTI_ACTIVITY_KIND_KERNEL"), 0);
                QCOMPARE(overlap("CUPTI_ACTIVITY_KIND_MEMCPY"), 0);
                // ... and it lies inside data_to_gpu.
                QCOMPARE(db.integer(std::string("SELECT count(*) FROM NVTX_EVENTS n WHERE ") + kNvtxName
                             + " = 'data_to_gpu' AND n.start <= " + std::to_string(load[0])
                             + " AND n.end >= " + std::to_string(load[1])),
                    1);
            }
        }
    }

    void nvtxNestsAndMixesRegisteredStrings()
    {
        const auto &truth = m_result.ranks[1];
        Db db(truth.file);
        QVERIFY(db.isOpen());
        // Each phase lies inside exactly one train_step on the main thread.
        for (const char *phase : { "data_to_gpu", "forward", "backward", "optimizer", "allreduce_bucket" }) {
            const std::string sql = std::string("SELECT count(*) FROM NVTX_EVENTS n WHERE ") + kNvtxName + " = '"
                + phase
                + "' AND (SELECT count(*) FROM NVTX_EVENTS t WHERE t.textId = (SELECT id FROM "
                  "StringIds WHERE value = 'train_step') AND t.start <= n.start AND t.end >= n.end "
                  "AND t.globalTid = n.globalTid) = 1";
            QCOMPARE(db.integer(sql), std::int64_t(truth.steps));
        }
        QVERIFY(db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND textId IS NOT NULL AND text "
                           "IS NULL")
            > 0);
        QVERIFY(db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND text IS NOT NULL AND textId "
                           "IS NULL")
            > 0);
        QCOMPARE(db.texts("SELECT text, domainId FROM NVTX_EVENTS WHERE eventType = 75"),
            std::vector<std::string> { "gaplens|1|" });
        QCOMPARE(db.integer(std::string("SELECT count(*) FROM NVTX_EVENTS n WHERE n.domainId = 1 AND ") + kNvtxName
                     + " = 'allreduce_bucket'"),
            std::int64_t(truth.steps));
        QCOMPARE(db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34 AND end IS NOT NULL"), 0);
    }

    void sameSeedSameRowsDifferentSeedDifferentRows()
    {
        SynthOptions options = m_options;
        options.ranks = 2;
        options.steps = 3;
        options.jitter = 0.2;
        options.stragglerRank = 1;
        options.seed = 42;
        const auto a = writeSyntheticCapture(folder("seed_a"), options);
        const auto b = writeSyntheticCapture(folder("seed_b"), options);
        options.seed = 43;
        const auto c = writeSyntheticCapture(folder("seed_c"), options);
        const char *dump[]
            = { "SELECT k.*, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
                "ORDER BY k.rowid",
                  "SELECT r.*, s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
                  "ORDER BY r.rowid",
                  "SELECT * FROM NVTX_EVENTS ORDER BY rowid", "SELECT * FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY rowid",
                  "SELECT * FROM CUPTI_ACTIVITY_KIND_MEMSET ORDER BY rowid", "SELECT * FROM StringIds ORDER BY id",
                  "SELECT * FROM META_DATA_CAPTURE ORDER BY rowid" };
        bool anyDifference = false;
        for (int r = 0; r < 2; ++r) {
            Db da(a.files[std::size_t(r)]), db(b.files[std::size_t(r)]), dc(c.files[std::size_t(r)]);
            QVERIFY(da.isOpen() && db.isOpen() && dc.isOpen());
            for (const char *sql : dump) {
                const auto rowsA = da.texts(sql);
                QVERIFY(!rowsA.empty());
                QCOMPARE(rowsA, db.texts(sql));
                anyDifference = anyDifference || rowsA != dc.texts(sql);
            }
            QCOMPARE(a.ranks[std::size_t(r)].stepDurationNs, b.ranks[std::size_t(r)].stepDurationNs);
            QCOMPARE(a.ranks[std::size_t(r)].busyNs, b.ranks[std::size_t(r)].busyNs);
        }
        QVERIFY2(anyDifference, "another seed must change the jittered times");
    }

    void jitteredCaptureStaysConsistent()
    {
        SynthOptions options = m_options;
        options.jitter = 0.3;
        options.warmupSteps = 2;
        options.seed = 7;
        const auto result = writeSyntheticCapture(folder("jitter"), options);
        compareWithSql(result);
        for (const auto &truth : result.ranks) {
            QCOMPARE(truth.steps, 8);
            QCOMPARE(truth.stepStartNs, result.ranks[0].stepStartNs);
        }
        // Warm-up steps (2x compute) take longer than the measured ones, on the straggler too.
        const auto &straggler = result.ranks[2];
        QVERIFY(straggler.stepDurationNs[0] > straggler.stepDurationNs[7]);
    }

    void scaleAddsStepsUntilEnoughKernels()
    {
        // 12 kernels per step.
        const auto result = writeSyntheticCapture(folder("scale"), gaplens::test::eightyFourStepJob(-1));
        for (const auto &truth : result.ranks) {
            QCOMPARE(truth.steps, 84); // ceil(1000 / 12)
            QCOMPARE(truth.kernels, std::uint64_t(84 * 12));
            Db db(truth.file);
            QVERIFY(db.isOpen());
            QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 84 * 12);
        }
        // No straggler: every rank's steps are equally long.
        QCOMPARE(result.ranks[0].stepDurationNs, result.ranks[1].stepDurationNs);
    }

    void scaleAddsRuntimeCallsAndNvtxRangesInProportion()
    {
        // 12 kernels, 11 compute launches, 15 calls, 7 ranges per step.
        auto options = gaplens::test::eightyFourStepJob(-1);
        options.scaleRuntimePerRank = 2000;
        options.scaleNvtxPerRank = 4000;
        const auto result = writeSyntheticCapture(folder("scale_ratio"), options);
        compareWithSql(result);
        for (const auto &truth : result.ranks) {
            QCOMPARE(truth.kernels, std::uint64_t(84 * 12));
            // max(target, what the base model already writes): the spread is exact.
            QCOMPARE(truth.runtimeCalls, std::uint64_t(2000));
            QCOMPARE(truth.nvtxRanges, std::uint64_t(4000));
            Db db(truth.file);
            QVERIFY(db.isOpen());
            // Op ranges nest strictly inside the phase ranges: none crosses a train_step edge.
            QCOMPARE(db.integer("SELECT count(*) FROM NVTX_EVENTS o, NVTX_EVENTS s WHERE s.eventType = 59 AND "
                                "o.eventType = 59 AND s.textId = (SELECT id FROM StringIds WHERE value = "
                                "'train_step') AND o.start < s.start AND o.end > s.start"),
                0);
        }
        // A target below the base model's count adds nothing.
        options.scaleRuntimePerRank = 10;
        options.scaleNvtxPerRank = 10;
        const auto base = writeSyntheticCapture(folder("scale_base"), options);
        QCOMPARE(base.ranks[0].runtimeCalls, std::uint64_t(84 * 15));
        QCOMPARE(base.ranks[0].nvtxRanges, std::uint64_t(84 * 7));
    }

    // Run-accounting phases: every truth still matches SQL, and the phases are the ranges
    // the options ask for (the step ranges carry their tokens as payload).
    void runPhasesAreWrittenAsAsked()
    {
        auto options = withRunPhases(m_options);
        options.steps = 32;
        const auto result = writeSyntheticCapture(folder("phases"), options);
        CHECK(compareWithSql(result));
        for (const auto &truth : result.ranks) {
            Db db(truth.file);
            auto count = [&](const char *name, int eventType) {
                return db.integer(std::string("SELECT count(*) FROM NVTX_EVENTS n WHERE ") + kNvtxName + " = '" + name
                    + "' AND n.eventType = " + std::to_string(eventType));
            };
            QCOMPARE(truth.checkpoints.size(), std::size_t(4)); // after steps 8, 16, 24, 32
            QCOMPARE(truth.stagings.size(), std::size_t(4));
            QCOMPARE(truth.validations.size(), std::size_t(2)); // after steps 16, 32
            QCOMPARE(truth.dataWaits.size(), std::size_t(32));
            QCOMPARE(count("save_checkpoint", 59), std::int64_t(4));
            QCOMPARE(count("ckpt_stage", 60), std::int64_t(4));
            QCOMPARE(count("validation", 59), std::int64_t(2));
            QCOMPARE(count("data_wait", 59), std::int64_t(32));
            QCOMPARE(db.integer(std::string("SELECT sum(n.end - n.start) FROM NVTX_EVENTS n WHERE ") + kNvtxName
                         + " = 'save_checkpoint'"),
                std::int64_t(4 * options.checkpointNs));
            QCOMPARE(db.integer(std::string("SELECT count(*) FROM NVTX_EVENTS n WHERE ") + kNvtxName
                         + " = 'train_step' AND n.int64Value = 8192"),
                std::int64_t(32));
            // The staging runs on its own thread, from the end of its checkpoint.
            const auto stagings
                = db.ints(std::string("SELECT n.start, n.globalTid & 16777215 FROM NVTX_EVENTS n WHERE ") + kNvtxName
                    + " = 'ckpt_stage' ORDER BY n.start");
            for (std::size_t i = 0; i < stagings.size(); ++i) {
                QCOMPARE(stagings[i][0], truth.checkpoints[i].end);
                QCOMPARE(stagings[i][1], std::int64_t(truth.pid + 5));
            }
        }
    }

    void invalidOptionsThrow()
    {
        SynthOptions options;
        options.ranks = 0;
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeSyntheticCapture(folder("bad"), options));
        options.ranks = 1;
        options.jitter = 0.9;
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeSyntheticCapture(folder("bad"), options));
    }
};

QTEST_APPLESS_MAIN(TestSynth)
#include "tst_synth.moc"
