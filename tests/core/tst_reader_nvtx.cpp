// SPDX-License-Identifier: MIT
// NVTX as exports store it: push/pop (59) and start/end (60) ranges, their NVTXT twins
// (70/71), marks (34), domains (75), text vs textId, negative and shifted timestamps.
#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/export_writer.h"

#include "minimal_export.h"
#include "sqltestdb.h"
#include "trace_compare.h"

#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::core;
using gaplens::test::execSql;

namespace {

// Thread 7 of pid 7 is the main thread; threads 8 and 9 two others.
const std::string kNvtxExport = gaplens::test::exportHeadSql("3.0.0", 5000) + R"(
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'registered'), (2, 'my.domain'), (3, 'worker');
    CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);
    INSERT INTO ThreadNames VALUES (3, 0, 117440520);
    CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, "end" INTEGER, eventType INTEGER NOT NULL,
        rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
        endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
    -- domain 1 created with a negative start, as real files have
    INSERT INTO NVTX_EVENTS VALUES (-20, NULL, 75, NULL, NULL, NULL, NULL, 117440519, NULL, 2, 1);
    INSERT INTO NVTX_EVENTS VALUES (-10, 100, 59, NULL, NULL, NULL, 'outer', 117440519, NULL, NULL, 0);
    INSERT INTO NVTX_EVENTS VALUES (10, 50, 70, NULL, NULL, NULL, 'nvtxt push', 117440519, NULL, NULL, 0);
    INSERT INTO NVTX_EVENTS VALUES (20, 30, 59, NULL, NULL, NULL, NULL, 117440519, NULL, 1, 1);
    INSERT INTO NVTX_EVENTS VALUES (60, 400, 60, 9, NULL, NULL, 'async', 117440519, 117440520, NULL, 1);
    INSERT INTO NVTX_EVENTS VALUES (70, 80, 71, 10, NULL, NULL, 'nvtxt start', 117440520, 117440520, NULL, 0);
    INSERT INTO NVTX_EVENTS VALUES (90, NULL, 34, NULL, NULL, NULL, 'a mark', 117440520, NULL, NULL, 1);
    INSERT INTO NVTX_EVENTS VALUES (95, 99, 33, NULL, NULL, NULL, 'category name: ignored', 117440520, NULL, NULL, 0);
    -- thread 9: a range of domain 1, then one of the default domain
    INSERT INTO NVTX_EVENTS VALUES (100, 110, 59, NULL, NULL, NULL, 'in my.domain', 117440521, NULL, NULL, 1);
    INSERT INTO NVTX_EVENTS VALUES (120, 130, 59, NULL, NULL, NULL, 'in the default domain', 117440521, NULL, NULL, 0);
)";

} // namespace

class TestReaderNvtx : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<TraceSet> m_trace;

    const Thread &thread(std::uint32_t tid) const
    {
        for (const auto &t : m_trace->threads)
            if (t.tid == tid)
                return t;
        qFatal("no thread %u", tid);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const auto path = m_dir.filePath(QStringLiteral("nvtx.sqlite")).toStdString();
        execSql(path, kNvtxExport);
        LoadOptions options;
        options.files = { path };
        m_trace = loadTraceSet(options);
        QVERIFY(m_trace->errors.empty());
        QCOMPARE(m_trace->threads.size(), std::size_t(3));
    }

    void pushPopAndNvtxtRangesNestOnTheirThread()
    {
        const auto &main = thread(7);
        QCOMPARE(main.nvtx.size(), std::size_t(4));
        QCOMPARE(m_trace->str(main.nvtx.name[0]), std::string("outer"));
        QCOMPARE(main.nvtx.start[0], TimeNs(5000 - 10)); // negative session time stays exact
        QCOMPARE(main.nvtx.depth[0], std::uint8_t(0));
        QCOMPARE(m_trace->str(main.nvtx.name[1]), std::string("nvtxt push"));
        QCOMPARE(main.nvtx.kind[1], NvtxKind::PushPop);
        QCOMPARE(main.nvtx.depth[1], std::uint8_t(1));
        QCOMPARE(main.nvtx.depth[2], std::uint8_t(2));
    }

    void registeredStringsAndDomainsAreNamed()
    {
        const auto &main = thread(7);
        QCOMPARE(m_trace->str(main.nvtx.name[2]), std::string("registered"));
        QCOMPARE(m_trace->str(main.nvtx.domainOf(2)), std::string("my.domain"));
        QCOMPARE(m_trace->str(main.nvtx.domainOf(3)), std::string("my.domain"));
        QCOMPARE(main.nvtx.domainOf(0), kEmptyString); // default domain
        QCOMPARE(main.nvtx.domainOf(1), kEmptyString);
        // The column starts at a thread's first range outside the default domain, and is
        // filled to the thread's size: those before it and after it are in the default domain.
        QCOMPARE(main.nvtx.domain.size(), main.nvtx.size());
        const auto &third = thread(9);
        QCOMPARE(third.nvtx.domain.size(), std::size_t(2));
        QCOMPARE(m_trace->str(third.nvtx.domainOf(0)), std::string("my.domain"));
        QCOMPARE(third.nvtx.domainOf(1), kEmptyString);
        // A thread with every range in the default domain keeps no column.
        QVERIFY(thread(8).nvtx.domain.empty());
        QCOMPARE(thread(8).nvtx.domainOf(0), kEmptyString);
    }

    void startEndRangesStayOnTheThreadThatStartedThem()
    {
        const auto &main = thread(7);
        QCOMPARE(m_trace->str(main.nvtx.name[3]), std::string("async"));
        QCOMPARE(main.nvtx.kind[3], NvtxKind::StartEnd);
        QCOMPARE(main.nvtx.end[3], TimeNs(5400));
        const auto &worker = thread(8);
        QCOMPARE(m_trace->str(worker.name), std::string("worker"));
        QCOMPARE(worker.nvtx.size(), std::size_t(1));
        QCOMPARE(worker.nvtx.kind[0], NvtxKind::StartEnd); // eventType 71
    }

    void marksAreKeptAndOtherEventTypesIgnored()
    {
        const auto &worker = thread(8);
        QCOMPARE(worker.marks.size(), std::size_t(1));
        QCOMPARE(worker.marks.time[0], TimeNs(5090));
        QCOMPARE(m_trace->str(worker.marks.domain[0]), std::string("my.domain"));
        QCOMPARE(m_trace->reports[0].problems.total(), std::uint64_t(0));
    }

    void timeShiftedExportsAreAbsoluteAlready()
    {
        const auto path = m_dir.filePath(QStringLiteral("shifted.sqlite")).toStdString();
        execSql(path,
            std::string(kNvtxExport)
                + "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_CONFIG_TIME_SHIFT', '5000');"
                  "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PARAM_TIME_NORMALIZE', 'true');");
        LoadOptions options;
        options.files = { path };
        const auto trace = loadTraceSet(options);
        QCOMPARE(trace->reports[0].timeBase, TimeBase::AlreadyAbsolute);
        QCOMPARE(trace->reports[0].timeOffsetNs, TimeNs(0));
        QCOMPARE(trace->threads[0].nvtx.start[0], TimeNs(-10));
        // The time zero nsys shows is the session start, whatever the stored times' base.
        QCOMPARE(trace->reports[0].sessionStartNs, std::optional<TimeNs>(5000));
        QCOMPARE(trace->reports[0].timeZero(), TimeNs(5000));
    }

    void sessionRelativeExportsStartAtTheirSessionStart()
    {
        QCOMPARE(m_trace->reports[0].timeBase, TimeBase::SessionRelative);
        QCOMPARE(m_trace->reports[0].timeZero(), TimeNs(5000));
    }

    // Each payload member of the union, read by the direct scan and by SQLite alike; a thread
    // without payloads allocates no payload column.
    void payloadsAreReadFromEveryUnionMember_data()
    {
        QTest::addColumn<bool>("direct");
        QTest::newRow("direct scan") << true;
        QTest::newRow("sqlite") << false;
    }
    void payloadsAreReadFromEveryUnionMember()
    {
        QFETCH(bool, direct);
        const auto path = m_dir.filePath(QStringLiteral("payload.sqlite")).toStdString();
        {
            ExportWriter::Options writerOptions;
            writerOptions.sessionStartUtcNs = 1'000'000;
            ExportWriter w(path, writerOptions);
            w.addProcess(7, "python");
            auto range = [](TimeNs start, std::uint32_t tid) {
                ExportWriter::NvtxRange r;
                r.start = start;
                r.end = start + 10;
                r.pid = 7;
                r.tid = tid;
                r.text = "step";
                return r;
            };
            auto r = range(100, 7);
            w.addNvtx(r); // before the first payload: NaN once the column exists
            r = range(200, 7);
            r.int64Value = -5;
            w.addNvtx(r);
            r = range(300, 7);
            r.uint64Value = 18'000'000'000'000'000'000ull;
            w.addNvtx(r);
            r = range(400, 7);
            r.doubleValue = 2.5;
            w.addNvtx(r);
            r = range(500, 7);
            r.int32Value = -7;
            w.addNvtx(r);
            r = range(600, 7);
            r.uint32Value = 4'000'000'000u;
            w.addNvtx(r);
            r = range(700, 7);
            r.floatValue = 0.5f;
            w.addNvtx(r);
            r = range(800, 7);
            r.doubleValue = 100'000.0; // an integral REAL
            w.addNvtx(r);
            w.addNvtx(range(900, 7));
            w.addNvtx(range(100, 8)); // thread 8: no payload at all
        }
        LoadOptions options;
        options.files = { path };
        options.directTableScan = direct;
        const auto trace = loadTraceSet(options);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->reports[0].timeZero(), TimeNs(1'000'000));
        const Thread *main = nullptr, *other = nullptr;
        for (const auto &t : trace->threads)
            (t.tid == 7 ? main : other) = &t;
        QVERIFY(main && other);
        QVERIFY(other->nvtx.payload.empty());
        QVERIFY(!other->nvtx.hasPayload(0));
        const auto &n = main->nvtx;
        QCOMPARE(n.size(), std::size_t(9));
        QCOMPARE(n.payload.size(), std::size_t(9));
        QVERIFY(!n.hasPayload(0));
        QCOMPARE(n.payload[1], -5.0);
        QCOMPARE(n.payload[2], 18'000'000'000'000'000'000.0);
        QCOMPARE(n.payload[3], 2.5);
        QCOMPARE(n.payload[4], -7.0);
        QCOMPARE(n.payload[5], 4'000'000'000.0);
        QCOMPARE(n.payload[6], 0.5);
        QCOMPARE(n.payload[7], 100'000.0);
        QVERIFY(!n.hasPayload(8));
        // The other path reads the same payloads, NaNs included.
        options.directTableScan = !direct;
        const auto otherPath = loadTraceSet(options);
        const auto differences = gaplens::test::traceDifferences(*trace, *otherPath);
        QVERIFY2(differences.empty(), differences.empty() ? "" : differences.front().c_str());
    }
};

QTEST_APPLESS_MAIN(TestReaderNvtx)
#include "tst_reader_nvtx.moc"
