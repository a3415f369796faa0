// SPDX-License-Identifier: MIT
// NVTX as exports store it: push/pop (59) and start/end (60) ranges, their NVTXT twins
// (70/71), marks (34), domains (75), text vs textId, negative and shifted timestamps.
#include "gaplens/core/read/loader.h"

#include "minimal_export.h"
#include "sqltestdb.h"

#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::core;
using gaplens::test::execSql;

namespace {

// Thread 7 of pid 7 is the main thread; thread 8 another one.
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
        QCOMPARE(m_trace->threads.size(), std::size_t(2));
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
        QCOMPARE(m_trace->str(main.nvtx.domain[2]), std::string("my.domain"));
        QCOMPARE(main.nvtx.domain[0], kEmptyString); // default domain
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
    }
};

QTEST_APPLESS_MAIN(TestReaderNvtx)
#include "tst_reader_nvtx.moc"
