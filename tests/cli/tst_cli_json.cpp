// SPDX-License-Identifier: MIT
// The JSON gaplens-cli writes (exact nanosecond integers, null for a non-finite number, valid
// UTF-8 even from a damaged export) and the JSON `check --baseline` reads: where and why a
// baseline is not JSON, deep nesting, and rank numbers that must be integers.
#include "gaplens/core/write/synth.h"

#include "cli_runner.h"
#include "gap_islands_sql.h"
#include "minimal_export.h"
#include "sqltestdb.h"
#include "synth_sample.h"
#include "test_files.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>
#include <tuple>

using namespace gaplens::core;
using namespace gaplens::test;

class TestCliJson : public QObject
{
    Q_OBJECT

    SynthSample m_sample;
    int m_baselines = 0;

    // A new baseline file with this content.
    QString writeBaseline(const QByteArray &content)
    {
        const auto file = m_sample.dir.filePath(QStringLiteral("baseline_%1.json").arg(++m_baselines));
        if (!writeFile(file, content))
            qFatal("cannot write %s", qPrintable(file));
        return file;
    }

    // Runs `check` of the sample against a baseline with this content.
    CliRun checkWith(const QByteArray &baseline, QString *path = nullptr)
    {
        const auto file = writeBaseline(baseline);
        if (path)
            *path = file;
        return runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), file, m_sample.path });
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_sample.write(synthOptions(2, 4)));
        QCOMPARE(m_sample.synth.files.size(), std::size_t(2));
    }

    void nanosecondTimestampsAreWrittenAsExactIntegers()
    {
        // With copies, the busy window starts where the generator's first GPU work does.
        const auto run = runCli({ QStringLiteral("summary"), QStringLiteral("--with-copies"),
            QStringLiteral("--format"), QStringLiteral("json"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        // 1.7e18 + a few ns is beyond 2^53: a double would round it.
        const auto start = SynthOptions().sessionStartUtcNs + m_sample.synth.ranks[0].firstGpuNs;
        QVERIFY2(
            run.out.contains("\"window_start_ns\": " + QByteArray::number(qint64(start)) + ",\n"), run.out.constData());
        QVERIFY(run.out.endsWith("}\n"));
    }

    void anInvalidUtf8KernelNameStillGivesValidJson()
    {
        const auto dir = m_sample.dir.filePath(QStringLiteral("damaged"));
        SynthOptions options;
        options.ranks = 1;
        options.steps = 2;
        const auto file = writeSyntheticCapture(dir.toStdString(), options).files.at(0);
        // "layer_norm\xFF_kernel": 0xFF never occurs in UTF-8.
        gaplens::test::execSql(file,
            "UPDATE StringIds SET value = CAST(X'6C617965725F6E6F726DFF5F6B65726E656C' AS TEXT) "
            "WHERE value = 'layer_norm_kernel'");
        const auto run = runCli({ QStringLiteral("kernels"), QStringLiteral("--format"), QStringLiteral("json"),
            QString::fromStdString(file) });
        QCOMPARE(run.exitCode, 0);
        QJsonParseError error;
        const auto doc = QJsonDocument::fromJson(run.out, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        QStringList names;
        for (const auto &k : doc[QStringLiteral("kernels")].toArray())
            names << k.toObject()[QStringLiteral("name")].toString();
        QVERIFY2(names.contains(QStringLiteral("layer_norm\uFFFD_kernel")), qPrintable(names.join(QLatin1Char(','))));
    }

    // gaps writes its rows in blocks of 256 on --threads threads: the output is the same at 1,
    // 2 and 3 threads in every format, and the JSON is laid out byte for byte as the whole
    // document dumped at once (printJson), invalid UTF-8 replaced in every block.
    void gapsAreTheSameWhateverTheThreads()
    {
        const auto mfu = realFile("nsysai_mfu_2gpu_after.sqlite");
        QVERIFY(!mfu.empty());
        const auto dir = m_sample.dir.filePath(QStringLiteral("damaged_nvtx"));
        auto options = synthOptions(1, 300);
        const auto damaged = writeSyntheticCapture(dir.toStdString(), options).files.at(0);
        gaplens::test::execSql(
            damaged, "UPDATE NVTX_EVENTS SET text = CAST(text || X'FF' AS TEXT) WHERE text IS NOT NULL");
        // mfu: the 4,703 gaps gapsJsonSaysWhatQueuedGapsWaitedOn counts (19 blocks); the synthetic
        // job: each step's input gap but the first, which lies before the first kernel (2 blocks).
        for (const auto &[file, gapCount] : { std::pair { mfu, 4703 }, std::pair { damaged, 299 } }) {
            const QStringList gaps { QStringLiteral("gaps"), QStringLiteral("--min-gap-us"), QStringLiteral("1"),
                QStringLiteral("--with-copies"), QString::fromStdString(file), QStringLiteral("--format") };
            for (const auto *format : { "json", "table", "csv" }) {
                const auto one = runCli(
                    gaps + QStringList { QLatin1String(format), QStringLiteral("--threads"), QStringLiteral("1") });
                QCOMPARE(one.exitCode, 0);
                for (const auto *threads : { "2", "3" }) {
                    const auto more = runCli(gaps
                        + QStringList { QLatin1String(format), QStringLiteral("--threads"), QLatin1String(threads) });
                    QCOMPARE(more.exitCode, 0);
                    QVERIFY2(more.out == one.out,
                        qPrintable(
                            QStringLiteral("%1 with %2 threads").arg(QLatin1String(format), QLatin1String(threads))));
                }
                if (std::string_view(format) != "json")
                    continue;
                const auto document = nlohmann::ordered_json::parse(one.out.toStdString());
                QCOMPARE(document["gaps"].size(), std::size_t(gapCount));
                QCOMPARE(QByteArray::fromStdString(document.dump(2) + "\n"), one.out);
                if (file == damaged)
                    QVERIFY(one.out.contains("\xEF\xBF\xBD")); // U+FFFD in the NVTX phases
            }
        }
    }

    void aNonFiniteNumberIsWrittenAsNull()
    {
        auto summary = QJsonDocument::fromJson(
            runCli({ QStringLiteral("summary"), QStringLiteral("--format"), QStringLiteral("json"), m_sample.path })
                .out)
                           .object();
        auto ranks = summary[QStringLiteral("ranks")].toArray();
        for (auto &&rank : ranks) {
            auto object = rank.toObject();
            object[QStringLiteral("median_step_ns")] = 1.79e308; // its limit, 1.03 times that, is infinite
            rank = object;
        }
        summary[QStringLiteral("ranks")] = ranks;
        const auto run = runCli(
            { QStringLiteral("check"), QStringLiteral("--baseline"), writeBaseline(QJsonDocument(summary).toJson()),
                QStringLiteral("--format"), QStringLiteral("json"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        const auto checks = json(run)[QStringLiteral("checks")].toArray();
        int steps = 0;
        for (const auto &c : checks) {
            const auto row = c.toObject();
            if (row[QStringLiteral("metric")].toString() != QStringLiteral("median_step_ns"))
                continue;
            ++steps;
            QCOMPARE(row[QStringLiteral("baseline")].toDouble(), 1.79e308);
            QVERIFY(row[QStringLiteral("limit")].isNull());
            QCOMPARE(row[QStringLiteral("status")].toString(), QStringLiteral("ok"));
        }
        QCOMPARE(steps, 2);
    }

    // `gaps --format json` prints the late launch's stack outer to inner: pipit's gaps all end
    // in saxpy kernels whose cudaLaunchKernel has a backtrace (CUDA_CALLCHAINS id = the
    // runtime row's callchainId + 1 in this export).
    void gapsJsonPrintsTheLaunchStack()
    {
        const auto path = realFile("pipit_saxpy_mpi_cuda_rank0.sqlite");
        QVERIFY(!path.empty());
        const auto run = runCli({ QStringLiteral("gaps"), QStringLiteral("--min-gap-us"), QStringLiteral("1"),
            QStringLiteral("--format"), QStringLiteral("json"), QString::fromStdString(path) });
        QCOMPARE(run.exitCode, 0);
        const auto gaps = QJsonDocument::fromJson(run.out)[QStringLiteral("gaps")].toArray();
        QCOMPARE(gaps.size(), qsizetype(4));
        const SqlTestDb db(path);
        const auto offset = db.integer("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
        for (const auto &g : gaps) {
            const auto gap = g.toObject();
            const auto expected = db.rows(fmt::format(
                "SELECT m.value, s.value FROM CUDA_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol JOIN StringIds m "
                "ON m.id = c.module WHERE c.id = (SELECT r.callchainId + 1 FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND (r.globalTid >> 24) = "
                "(k.globalPid >> 24) WHERE r.eventClass = 67 AND k.start = {}) ORDER BY c.stackDepth DESC",
                gap[QStringLiteral("end_ns")].toInteger() - offset));
            QCOMPARE(expected.size(), std::size_t(10));
            const auto stack = gap[QStringLiteral("stack")].toArray();
            QCOMPARE(stack.size(), qsizetype(expected.size()));
            for (std::size_t i = 0; i < expected.size(); ++i) {
                const auto frame = stack[qsizetype(i)].toObject();
                QCOMPARE(frame[QStringLiteral("module")].toString().toStdString(), expected[i][0]);
                QCOMPARE(frame[QStringLiteral("symbol")].toString().toStdString(), expected[i][1]);
            }
            QCOMPARE(stack.first()[QStringLiteral("symbol")].toString(), QStringLiteral("_start"));
            QCOMPARE(gap[QStringLiteral("cause")].toString(), QStringLiteral("no_cuda_call"));
            QCOMPARE(gap[QStringLiteral("waited_on")].toString(), QString());
            QVERIFY(gap[QStringLiteral("waited_on_stream")].isNull());
        }
    }

    // waited_on and waited_on_stream of the mfu "after" capture at 1 us with copies as busy
    // time (tst_waits_real checks each gap's rule against SQL): 29 event waits, 5 host
    // synchronizes, 2 of them stream synchronizes of stream 7; stack [] without backtraces.
    void gapsJsonSaysWhatQueuedGapsWaitedOn()
    {
        const auto path = realFile("nsysai_mfu_2gpu_after.sqlite");
        QVERIFY(!path.empty());
        const auto run = runCli({ QStringLiteral("gaps"), QStringLiteral("--min-gap-us"), QStringLiteral("1"),
            QStringLiteral("--with-copies"), QStringLiteral("--format"), QStringLiteral("json"),
            QString::fromStdString(path) });
        QCOMPARE(run.exitCode, 0);
        std::map<std::pair<QString, qint64>, int> counts; // (waited_on, stream or -1)
        for (const auto &g : QJsonDocument::fromJson(run.out)[QStringLiteral("gaps")].toArray()) {
            const auto gap = g.toObject();
            const auto waited = gap[QStringLiteral("waited_on")].toString();
            QCOMPARE(waited.isEmpty(), gap[QStringLiteral("cause")].toString() != QStringLiteral("queued"));
            const auto stream = gap[QStringLiteral("waited_on_stream")];
            ++counts[{ waited, stream.isNull() ? -1 : stream.toInteger() }];
            QCOMPARE(gap[QStringLiteral("stack")].toArray().size(), qsizetype(0));
        }
        QCOMPARE((counts[{ QStringLiteral("event_wait"), -1 }]), 29);
        QCOMPARE((counts[{ QStringLiteral("host_sync"), -1 }]), 3);
        QCOMPARE((counts[{ QStringLiteral("host_sync"), 7 }]), 2);
        QCOMPARE((counts[{ QStringLiteral("unknown"), -1 }]), 2943);
        QCOMPARE(counts.size(), std::size_t(5)); // those four and "" for the other causes
    }

    // `gaps --format json` on nsys-ai's H100 window: each gap's copy_ns, cause and launch_tid
    // against the same answers computed in SQL (kernel islands, copy islands, the launch of
    // the kernel starting at the gap's end by (process, correlationId)).
    void gapsJsonOfTheRealH100TellsCopiesAndLaunchingThreads()
    {
        const auto path = realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY(!path.empty());
        const std::string sql = std::string(kGapAndCopyIslandsSql) + R"(
            SELECT g.d, g.ge - g.gs,
              (SELECT COALESCE(SUM(MAX(0, MIN(c.e, g.ge) - MAX(c.s, g.gs))), 0) FROM cisl c
                 WHERE c.d = g.d AND c.s < g.ge AND c.e > g.gs),
              (SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE k.deviceId = g.d AND k.start = g.ge),
              COALESCE((SELECT MIN(r.globalTid & 16777215) FROM CUPTI_ACTIVITY_KIND_KERNEL k
                 JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId
                   AND (r.globalTid >> 24) = (k.globalPid >> 24)
                 WHERE k.deviceId = g.d AND k.start = g.ge), 0)
            FROM gaps g ORDER BY g.d, g.gs)";
        const auto expected = SqlTestDb(path).ints(sql);
        QCOMPARE(expected.size(), std::size_t(114));

        const auto run = runCli({ QStringLiteral("gaps"), QStringLiteral("--format"), QStringLiteral("json"),
            QString::fromStdString(path) });
        QCOMPARE(run.exitCode, 0);
        const auto gaps = QJsonDocument::fromJson(run.out)[QStringLiteral("gaps")].toArray();
        QCOMPARE(gaps.size(), qsizetype(expected.size()));
        // SQL orders by (device, start); the CLI by (GPU, start).
        std::vector<qsizetype> order(std::size_t(gaps.size()));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](qsizetype a, qsizetype b) {
            return gaps[a].toObject()[QStringLiteral("device")].toInt()
                < gaps[b].toObject()[QStringLiteral("device")].toInt();
        });
        int copyGaps = 0, launchesFound = 0;
        for (std::size_t i = 0; i < order.size(); ++i) {
            const auto gap = gaps[order[i]].toObject();
            const auto &e = expected[i];
            QCOMPARE(gap[QStringLiteral("device")].toInteger(), e[0]);
            QCOMPARE(gap[QStringLiteral("duration_ns")].toInteger(), e[1]);
            QCOMPARE(gap[QStringLiteral("copy_ns")].toInteger(), e[2]);
            QCOMPARE(e[3], std::int64_t(1)); // one kernel ends each gap: its launch is unambiguous
            QCOMPARE(gap[QStringLiteral("launch_tid")].toInteger(), e[4]);
            const auto cause = gap[QStringLiteral("cause")].toString();
            QCOMPARE(cause == QStringLiteral("copy"), 2 * e[2] >= e[1]);
            copyGaps += cause == QStringLiteral("copy");
            launchesFound += e[4] != 0;
            // api_kind only for api_call gaps, and then one of the documented kinds.
            const auto kind = gap[QStringLiteral("api_kind")].toString();
            if (cause == QStringLiteral("api_call"))
                QVERIFY(QStringList({ "sync", "launch", "memory", "alloc", "other" }).contains(kind));
            else
                QCOMPARE(kind, QString());
        }
        QCOMPARE(copyGaps, 112);
        QCOMPARE(launchesFound, 56); // the other 58 gaps end in kernels launched before the window

        // With copies as busy time no copy runs inside a gap.
        const auto withCopies = runCli({ QStringLiteral("gaps"), QStringLiteral("--with-copies"),
            QStringLiteral("--format"), QStringLiteral("json"), QString::fromStdString(path) });
        QCOMPARE(withCopies.exitCode, 0);
        for (const auto &g : QJsonDocument::fromJson(withCopies.out)[QStringLiteral("gaps")].toArray()) {
            QCOMPARE(g.toObject()[QStringLiteral("copy_ns")].toInteger(), qint64(0));
            QVERIFY(g.toObject()[QStringLiteral("cause")].toString() != QStringLiteral("copy"));
        }
    }

    // A built export with OS runtime calls on the launching thread (times in us from the
    // session start): kernels [0,1000) [2000,2100) [3000,3100) [4000,4100), each launched late
    // in the gap before it, so the three gaps are no CUDA call gaps with midpoints 1500, 2550
    // and 3550: in pthread_cond_wait [1100,1800), in fopen [2200,2800) (open64 [2500,2600)
    // nested in it), and in no OS call.
    void gapsAndBlameJsonTellTheOsCall()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::string sql = exportHeadSql() + R"(
            CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel_v7000'), (3, 'pthread_cond_wait'),
                (4, 'fopen'), (5, 'open64');
            CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, "end" INTEGER, deviceId INTEGER,
                streamId INTEGER, correlationId INTEGER, globalPid INTEGER, shortName INTEGER);
            CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, "end" INTEGER, eventClass INTEGER,
                globalTid INTEGER, correlationId INTEGER, nameId INTEGER);
            CREATE TABLE OSRT_API (start INTEGER NOT NULL, "end" INTEGER NOT NULL, eventClass INTEGER NOT NULL,
                globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, nestingLevel INTEGER,
                callchainId INTEGER NOT NULL);
        )";
        const std::string pid = std::to_string(42LL << 24), tid = std::to_string((42LL << 24) + 42);
        const std::pair<int, int> kernels[] = { { 0, 1000 }, { 2000, 2100 }, { 3000, 3100 }, { 4000, 4100 } };
        const int launches[] = { -50, 1900, 2900, 3900 }; // each 20 us long
        for (int i = 0; i < 4; ++i) {
            sql += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + std::to_string(kernels[i].first * 1000) + ", "
                + std::to_string(kernels[i].second * 1000) + ", 0, 7, " + std::to_string(i + 1) + ", " + pid + ", 1);";
            sql += "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" + std::to_string(launches[i] * 1000) + ", "
                + std::to_string(launches[i] * 1000 + 20000) + ", 0, " + tid + ", " + std::to_string(i + 1) + ", 2);";
        }
        sql += "INSERT INTO OSRT_API VALUES (1100000, 1800000, 27, " + tid + ", 3, 0, 0, 0);";
        sql += "INSERT INTO OSRT_API VALUES (2200000, 2800000, 27, " + tid + ", 4, 0, 0, 1);";
        sql += "INSERT INTO OSRT_API VALUES (2500000, 2600000, 27, " + tid + ", 5, 0, 1, 2);";
        const auto path = QString::fromStdString(writeExportIn(dir, "osrt.sqlite", sql));

        const auto gapsRun
            = runCli({ QStringLiteral("gaps"), QStringLiteral("--format"), QStringLiteral("json"), path });
        QCOMPARE(gapsRun.exitCode, 0);
        const auto gaps = QJsonDocument::fromJson(gapsRun.out)[QStringLiteral("gaps")].toArray();
        QCOMPARE(gaps.size(), qsizetype(3));
        const QString calls[] = { QStringLiteral("pthread_cond_wait"), QStringLiteral("fopen"), QString() };
        const QString categories[] = { QStringLiteral("wait"), QStringLiteral("io"), QString() };
        for (qsizetype i = 0; i < 3; ++i) {
            const auto gap = gaps[i].toObject();
            QCOMPARE(gap[QStringLiteral("cause")].toString(), QStringLiteral("no_cuda_call"));
            QCOMPARE(gap[QStringLiteral("os_call")].toString(), calls[i]);
            QCOMPARE(gap[QStringLiteral("os_category")].toString(), categories[i]);
        }
        // The documented order: the OS fields follow nvtx_stack.
        const auto text = gapsRun.out;
        QVERIFY(text.indexOf("\"nvtx_stack\"") < text.indexOf("\"os_call\""));
        QVERIFY(text.indexOf("\"os_call\"") < text.indexOf("\"os_category\""));

        const auto blameRun
            = runCli({ QStringLiteral("blame"), QStringLiteral("--format"), QStringLiteral("json"), path });
        QCOMPARE(blameRun.exitCode, 0);
        const auto overall = QJsonDocument::fromJson(blameRun.out)[QStringLiteral("overall")].toObject();
        // 1000 of the 2800 us in the wait; 900 each with no OS call and in fopen (ties by key: "(none)" first).
        const auto byCall = overall[QStringLiteral("by_os_call")].toArray();
        QCOMPARE(byCall.size(), qsizetype(3));
        const std::tuple<QString, QString, qint64> callRows[]
            = { { "pthread_cond_wait", "wait", 1000000 }, { "", "", 900000 }, { "fopen", "io", 900000 } };
        for (qsizetype i = 0; i < 3; ++i) {
            const auto row = byCall[i].toObject();
            QCOMPARE(row[QStringLiteral("os_call")].toString(), std::get<0>(callRows[i]));
            QCOMPARE(row[QStringLiteral("os_category")].toString(), std::get<1>(callRows[i]));
            QCOMPARE(row[QStringLiteral("count")].toInteger(), qint64(1));
            QCOMPARE(row[QStringLiteral("total_ns")].toInteger(), std::get<2>(callRows[i]));
        }
        const auto byCategory = overall[QStringLiteral("by_os_category")].toArray();
        QCOMPARE(byCategory.size(), qsizetype(3));
        QCOMPARE(byCategory[0].toObject()[QStringLiteral("os_category")].toString(), QStringLiteral("wait"));
        QCOMPARE(byCategory[1].toObject()[QStringLiteral("os_category")].toString(), QString());
        QCOMPARE(byCategory[2].toObject()[QStringLiteral("os_category")].toString(), QStringLiteral("io"));
        QCOMPARE(byCategory[2].toObject()[QStringLiteral("total_ns")].toInteger(), qint64(900000));
        QVERIFY(!byCategory[0].toObject().contains(QStringLiteral("os_call")));
        QVERIFY(blameRun.out.indexOf("\"by_phase\"") < blameRun.out.indexOf("\"by_os_call\""));
        QVERIFY(blameRun.out.indexOf("\"by_os_call\"") < blameRun.out.indexOf("\"by_os_category\""));
        const auto devices = QJsonDocument::fromJson(blameRun.out)[QStringLiteral("devices")].toArray();
        QCOMPARE(devices.size(), qsizetype(1));
        QCOMPARE(devices[0].toObject()[QStringLiteral("by_os_call")].toArray().size(), qsizetype(3));

        // The table output: both tables, with the call and the category.
        const auto table = runCli({ QStringLiteral("blame"), path });
        QCOMPARE(table.exitCode, 0);
        const auto out = QString::fromUtf8(table.out);
        QVERIFY2(out.contains(QStringLiteral("Idle time by OS runtime call")), table.out.constData());
        QVERIFY(out.contains(QStringLiteral("Idle time by OS call category")));
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral("\\npthread_cond_wait +1 +1\\.000 ms +35\\.7%"))),
            table.out.constData());
        QVERIFY(out.contains(QRegularExpression(QStringLiteral("\\nio +1 +900\\.000 us +32\\.1%"))));
    }

    void aBaselineThatIsNotJsonIsNamedWithLineColumnAndReason()
    {
        const QList<std::pair<QByteArray, QString>> cases = {
            { "{\"ranks\": [1, 2,]}", QStringLiteral("line 1, column 17: expected a value, found ']'") },
            { "{\n  \"ranks\" []\n}",
                QStringLiteral("line 2, column 11: expected ':' after an object key, found '['") },
            { "{\"ranks\": [", QStringLiteral("line 1, column 12: expected a value, found the end of the input") },
            { "", QStringLiteral("line 1, column 1: expected a value, found the end of the input") },
            { "{} {}", QStringLiteral("line 1, column 4: expected the end of the input, found '{'") },
            { "{\"ranks\": 1,}", QStringLiteral("line 1, column 13: expected a string as an object key, found '}'") },
            { "{\"ranks\": [1 2]}", QStringLiteral("line 1, column 14: expected ']' in an array, found a number") },
            { "{\"ranks\": tru}", QStringLiteral("line 1, column 14: invalid literal") },
            { "[1.]", QStringLiteral("line 1, column 4: invalid number; expected digit after '.'") },
        };
        for (const auto &[text, reason] : cases) {
            QString path;
            const auto run = checkWith(text, &path);
            QCOMPARE(run.exitCode, 1);
            const auto expected
                = QStringLiteral("gaplens-cli: error: baseline '%1' is not JSON: %2\n").arg(path, reason);
            QVERIFY2(run.err == expected.toUtf8(), run.err.constData());
        }
    }

    void aDeeplyNestedBaselineIsReadWithoutExhaustingTheStack()
    {
        const int depth = 100000;
        QString path;
        auto run = checkWith("{\"ranks\": [" + QByteArray(depth, '[') + QByteArray(depth, ']') + "]}", &path);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(
                     QStringLiteral("baseline '%1' has ranks[0] without an integer \"rank\"").arg(path).toUtf8()),
            run.err.constData());

        const QByteArray open = "{\"ranks\": ";
        run = checkWith(open + QByteArray(depth, '['), &path);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("baseline '%1' is not JSON: line 1, column %2: expected a value")
                                      .arg(path)
                                      .arg(open.size() + depth + 1)
                                      .toUtf8()),
            run.err.constData());
    }

    void rankNumbersMustBeIntegersThatFit()
    {
        // 2^32 would wrap around to rank 0; 2^53 + 1 is beyond what a double holds.
        for (const char *rank : { "4294967296", "9007199254740993", "-2147483649", "1.0", "1e0", "\"0\"" }) {
            QString path;
            const auto run = checkWith(QByteArray("{\"ranks\": [{\"rank\": ") + rank + ", \"devices\": []}]}", &path);
            QCOMPARE(run.exitCode, 1);
            QVERIFY2(run.err.contains(
                         QStringLiteral("baseline '%1' has ranks[0] without an integer \"rank\"").arg(path).toUtf8()),
                qPrintable(QLatin1String(rank) + QStringLiteral(": ") + QString::fromUtf8(run.err)));
        }
        // Exact nanosecond integers beside them are read and ignored.
        const auto run = checkWith("{\"command\": \"summary\", \"ranks\": [{\"rank\": 1, \"median_step_ns\": null, "
                                   "\"window_start_ns\": 1700000000000000001, "
                                   "\"devices\": [{\"device\": 1, \"busy_pct\": 0}]}]}");
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(" ok\n"));
    }

    void theLastOfRepeatedKeysCounts()
    {
        const auto run = checkWith(
            "{\"command\": \"kernels\", \"command\": \"summary\", \"ranks\": [{\"rank\": 0, \"devices\": []}]}");
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(!run.err.contains("was written by"), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliJson)
#include "tst_cli_json.moc"
