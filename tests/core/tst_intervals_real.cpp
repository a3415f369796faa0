// SPDX-License-Identifier: MIT
// Fixed-interval statistics on real exports equal an independent computation in SQL over the
// raw tables: GROUP BY (start - origin) / interval per process, the origin the earliest
// kernel, copy or memset start, busy time from kernel islands (window functions) split at
// interval edges. Times are compared in the export's own time base: gaplens adds the
// report's offset (tst_reader_real checks it) to every timestamp, the SQL works on raw ones.
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/read/loader.h"
#include "sqltestdb.h"
#include "testsupport.h"

#include <QTest>

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

using namespace gaplens::core;
using gaplens::test::SqlTestDb;

namespace {

struct Expected
{
    std::int64_t count = 0, sum = 0, min = 0, max = 0;
    double mean = 0, m2 = 0;
    std::int64_t busy = 0;
    std::map<std::int64_t, std::array<std::int64_t, 3>> copies; // copyKind (250: memset) -> count, bytes, ns
};

using Key = std::pair<std::int64_t, std::int64_t>; // (pid, interval)

std::string copiesUnion(const SqlTestDb &db)
{
    std::string sql
        = R"(SELECT globalPid, deviceId, start, "end", copyKind kind, bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY)";
    if (db.hasTable("CUPTI_ACTIVITY_KIND_MEMSET"))
        sql += R"( UNION ALL SELECT globalPid, deviceId, start, "end", 250, bytes FROM CUPTI_ACTIVITY_KIND_MEMSET)";
    return sql;
}

// The common head of every query: the origin o, the length L, every copy and memset (c).
std::string head(const SqlTestDb &db, std::int64_t length)
{
    return "WITH c AS (" + copiesUnion(db) + "), o AS (SELECT MIN(s) o, " + std::to_string(length)
        + R"( L FROM (SELECT MIN(start) s FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT MIN(start) FROM c)),
        k AS (SELECT (globalPid >> 24) & 16777215 pid, deviceId d, start s, "end" e FROM CUPTI_ACTIVITY_KIND_KERNEL))";
}

std::int64_t toInt(const std::string &s)
{
    return std::stoll(s);
}

} // namespace

class TestIntervalsReal : public QObject
{
    Q_OBJECT
private slots:
    void everyFieldEqualsSql_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("length");
        // Interval lengths that give each capture from a handful to a few hundred intervals.
        QTest::newRow("gpu4 streams, 1 ms") << QStringLiteral("gpu4_streams_report2.sqlite") << qint64(1'000'000);
        QTest::newRow("gpu4 streams, 5 ms") << QStringLiteral("gpu4_streams_report2.sqlite") << qint64(5'000'000);
        QTest::newRow("h100 2 ranks, 10 ms") << QStringLiteral("nsysai_h100_2gpu_1s.sqlite") << qint64(10'000'000);
        QTest::newRow("h100 2 ranks, 100 ms") << QStringLiteral("nsysai_h100_2gpu_1s.sqlite") << qint64(100'000'000);
        QTest::newRow("sc23 idle spans, 100 ms")
            << QStringLiteral("sc23_openmp_offload_report3.sqlite") << qint64(100'000'000);
        QTest::newRow("sc23 idle spans, 1 s")
            << QStringLiteral("sc23_openmp_offload_report3.sqlite") << qint64(1'000'000'000);
    }

    void everyFieldEqualsSql()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        QFETCH(QString, file);
        QFETCH(qint64, length);
        const auto path = gaplens::test::realFile(file.toStdString().c_str());
        QVERIFY2(!path.empty(), qPrintable(file));
        LoadOptions load;
        load.files = { path };
        const std::shared_ptr<const TraceSet> trace = loadTraceSet(load);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->reports.size(), std::size_t(1));
        QCOMPARE(trace->reports[0].problems.total(), std::uint64_t(0)); // every row is read, as SQL sees them
        const TimeNs offset = trace->reports[0].timeOffsetNs;

        const SqlTestDb db(path);
        const auto h = head(db, length);
        const auto origin = db.integer(h + " SELECT o FROM o");

        std::map<Key, Expected> expected;
        // Kernels: count, sum, min, max, mean and the sum of squared deviations (two passes).
        for (const auto &row : db.rows(h + R"(, kd AS (SELECT pid, (s - o) / L i, e - s dur FROM k, o),
                g AS (SELECT pid, i, AVG(dur) m FROM kd GROUP BY pid, i)
            SELECT kd.pid, kd.i, COUNT(*), SUM(dur), MIN(dur), MAX(dur), g.m, SUM((dur - g.m) * (dur - g.m))
            FROM kd JOIN g ON kd.pid = g.pid AND kd.i = g.i GROUP BY kd.pid, kd.i)")) {
            QCOMPARE(row.size(), std::size_t(8));
            auto &e = expected[{ toInt(row[0]), toInt(row[1]) }];
            e.count = toInt(row[2]);
            e.sum = toInt(row[3]);
            e.min = toInt(row[4]);
            e.max = toInt(row[5]);
            e.mean = std::stod(row[6]);
            e.m2 = std::stod(row[7]);
        }
        // Copies and memsets by kind.
        for (const auto &row : db.ints(h + R"( SELECT (globalPid >> 24) & 16777215, (start - o) / L, kind, COUNT(*),
                SUM(bytes), SUM("end" - start) FROM c, o GROUP BY 1, 2, 3)"))
            expected[{ row[0], row[1] }].copies[row[2]] = { row[3], row[4], row[5] };
        // Busy: islands of each device's kernels split at interval edges, summed over the
        // devices each process ran kernels on.
        for (const auto &row : db.ints(h + R"(,
                m AS (SELECT d, s, e, MAX(e) OVER (PARTITION BY d ORDER BY s, e
                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) pm FROM k),
                n AS (SELECT d, s, e, SUM(CASE WHEN pm IS NULL OR s > pm THEN 1 ELSE 0 END)
                        OVER (PARTITION BY d ORDER BY s, e ROWS UNBOUNDED PRECEDING) isl FROM m),
                isl AS (SELECT d, MIN(s) s, MAX(e) e FROM n GROUP BY d, isl),
                seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq
                           WHERE i < (SELECT MAX((e - 1 - o) / L) FROM isl, o)),
                dp AS (SELECT DISTINCT d, pid FROM k),
                busy AS (SELECT isl.d, seq.i, SUM(MIN(isl.e, o + (seq.i + 1) * L) - MAX(isl.s, o + seq.i * L)) b
                         FROM isl, o JOIN seq ON seq.i BETWEEN (isl.s - o) / L AND (isl.e - 1 - o) / L
                         GROUP BY isl.d, seq.i)
            SELECT dp.pid, busy.i, SUM(busy.b) FROM busy JOIN dp ON dp.d = busy.d GROUP BY 1, 2)"))
            expected[{ row[0], row[1] }].busy = row[2];
        std::int64_t sqlBusy = 0, sqlKernels = 0;
        for (const auto &[key, e] : expected) {
            sqlBusy += e.busy;
            sqlKernels += e.count;
        }
        QVERIFY(sqlBusy > 0); // the queries found something to compare
        QCOMPARE(sqlKernels, db.integer("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
        // Each process's first and last interval: first start, last end (an instant at its start).
        std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> range;
        for (const auto &row : db.ints(h + R"(, ev AS (SELECT pid, s, e FROM k
                UNION ALL SELECT (globalPid >> 24) & 16777215, start, "end" FROM c)
            SELECT pid, MIN((s - o) / L), MAX((MAX(e - 1, s) - o) / L) FROM ev, o GROUP BY pid)"))
            range[row[0]] = { row[1], row[2] };

        IntervalOptions options;
        options.intervalNs = length;
        options.threads = 2;
        DerivedOptions derivedOptions;
        derivedOptions.foldIndexes = false;
        const auto derived = DerivedCapture::build(trace, derivedOptions);
        const auto report = computeIntervals(*derived, options);
        QCOMPARE(report.originNs - offset, origin);
        QCOMPARE(report.ranks.size(), range.size());

        std::size_t matched = 0;
        for (const auto &ri : report.ranks) {
            const auto pid = std::int64_t(trace->ranks[ri.rank].pid);
            QVERIFY(range.count(pid));
            QCOMPARE(ri.firstIndex, range[pid].first);
            QCOMPARE(ri.firstIndex + std::int64_t(ri.intervals.size()) - 1, range[pid].second);
            QCOMPARE(ri.eventsBeforeOrigin, std::uint64_t(0));
            for (std::size_t i = 0; i < ri.intervals.size(); ++i) {
                const auto index = ri.firstIndex + std::int64_t(i);
                const auto &s = ri.intervals[i];
                const auto it = expected.find({ pid, index });
                const Expected e = it == expected.end() ? Expected {} : it->second;
                matched += it != expected.end();
                const auto where = qPrintable(QStringLiteral("pid %1 interval %2").arg(pid).arg(index));
                QVERIFY2(std::int64_t(s.kernels.count) == e.count, where);
                QCOMPARE(TimeNs(s.kernels.sum), e.sum);
                QCOMPARE(s.kernels.min, e.min);
                QCOMPARE(s.kernels.max, e.max);
                QCOMPARE(s.kernels.mean(), e.mean);
                const double stddev = e.count > 1 ? std::sqrt(e.m2 / double(e.count - 1)) : 0.0;
                if (stddev == 0)
                    QCOMPARE(s.kernels.sampleStddev(), 0.0);
                else
                    QVERIFY2(std::abs(s.kernels.sampleStddev() - stddev) <= 1e-9 * stddev, where);
                QVERIFY2(s.busyNs == e.busy, where);
                std::int64_t stall = 0;
                for (std::size_t slot = 0; slot < kCopySlotCount; ++slot) {
                    const auto kind = std::int64_t(copySlotKind(slot));
                    const auto c = e.copies.count(kind) ? e.copies.at(kind) : std::array<std::int64_t, 3> {};
                    QVERIFY2(std::int64_t(s.copies[slot].count) == c[0], where);
                    QCOMPARE(std::int64_t(s.copies[slot].bytes), c[1]);
                    QCOMPARE(s.copies[slot].ns, c[2]);
                    if (kind != 250)
                        stall += c[2];
                }
                QCOMPARE(s.stallNs(), stall);
            }
        }
        // Nothing SQL found lies outside the intervals gaplens reports.
        QCOMPARE(matched, expected.size());

        // One shard per rank gives the same intervals.
        options.shards = 1;
        options.threads = 1;
        const auto whole = computeIntervals(*derived, options);
        for (std::size_t r = 0; r < report.ranks.size(); ++r)
            QVERIFY(whole.ranks[r].intervals == report.ranks[r].intervals);
    }

    // Ping-pong runs found by SQL window functions: a copy continues the run when it and the
    // copy before it (per process, by start, longer first) are HtoD/DtoH of different kinds.
    void pingPongEqualsSql_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("gpu4 streams") << QStringLiteral("gpu4_streams_report2.sqlite");
        QTest::newRow("h100 2 ranks") << QStringLiteral("nsysai_h100_2gpu_1s.sqlite");
        QTest::newRow("sc23 idle spans") << QStringLiteral("sc23_openmp_offload_report3.sqlite");
    }

    void pingPongEqualsSql()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        QFETCH(QString, file);
        const auto path = gaplens::test::realFile(file.toStdString().c_str());
        QVERIFY2(!path.empty(), qPrintable(file));
        LoadOptions load;
        load.files = { path };
        const auto trace = loadTraceSet(load);
        QVERIFY(trace->errors.empty());
        const SqlTestDb db(path);
        const auto runs = db.ints("WITH c AS (" + copiesUnion(db) + R"(),
              o AS (SELECT (globalPid >> 24) & 16777215 pid, start, "end", kind,
                      LAG(kind) OVER (PARTITION BY globalPid ORDER BY start, "end" DESC) prev FROM c),
              f AS (SELECT pid, start, "end", CASE WHEN kind IN (1, 2) AND prev IN (1, 2) AND kind <> prev
                      THEN 0 ELSE 1 END brk FROM o),
              r AS (SELECT pid, SUM(brk) OVER (PARTITION BY pid ORDER BY start, "end" DESC ROWS UNBOUNDED PRECEDING) run
                    FROM f)
            SELECT pid, COUNT(*) FROM r GROUP BY pid, run HAVING COUNT(*) >= 4)");
        const auto pairs = db.ints("WITH c AS (" + copiesUnion(db)
            + ") SELECT (globalPid >> 24) & 16777215, COUNT(*) FROM c WHERE kind IN (1, 2) GROUP BY 1");
        std::map<std::int64_t, std::array<std::uint64_t, 4>> expected; // runs, copies, longest, htod+dtoh
        for (const auto &row : pairs)
            expected[row[0]][3] = std::uint64_t(row[1]);
        for (const auto &row : runs) {
            auto &e = expected[row[0]];
            e[0] += 1;
            e[1] += std::uint64_t(row[1]);
            e[2] = std::max(e[2], std::uint64_t(row[1]));
        }
        QVERIFY(!expected.empty());
        for (std::uint32_t r = 0; r < trace->ranks.size(); ++r) {
            const auto pp = findPingPong(*trace, r);
            const auto e = expected[std::int64_t(trace->ranks[r].pid)];
            QCOMPARE(pp.runs, e[0]);
            QCOMPARE(pp.copies, e[1]);
            QCOMPARE(pp.longestRun, e[2]);
            QCOMPARE(pp.htodDtohCopies, e[3]);
            QCOMPARE(pp.starts.size(), std::size_t(pp.copies));
        }
    }
};

QTEST_APPLESS_MAIN(TestIntervalsReal)
#include "tst_intervals_real.moc"
