// SPDX-License-Identifier: MIT
#include "gaplens/core/write/export_writer.h"

#include "sqltestdb.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gaplens::core;

namespace {

// Raw SQL keeps the assertions independent of any reader.
using Db = gaplens::test::SqlTestDb;

QByteArray joined(const std::vector<std::vector<std::string>> &rows)
{
    QByteArray out;
    for (const auto &row : rows) {
        for (const auto &value : row)
            out += QByteArray::fromStdString(value) + ' ';
        out += '\n';
    }
    return out;
}

} // namespace

class TestExportWriter : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string path(const char *name) const
    {
        return (m_dir.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

    // One row of every kind, with distinctive values to read back.
    void writeSample(const std::string &file)
    {
        ExportWriter::Options options;
        options.sessionStartUtcNs = 1'712'345'678'901'234'567;
        options.hostName = "gpu-node-7";
        options.environment = { { "PMI_RANK", "3" }, { "WORLD_SIZE", "8" } };
        ExportWriter writer(file, options);
        writer.addProcess(4242, "python3");
        writer.addThreadName(4242, 4242, "python3");
        writer.addThreadName(4242, 4250, "pt_data_worker");
        writer.addGpu(1, "NVIDIA A100-SXM4-80GB");

        ExportWriter::Kernel kernel { .start = 1'000'000,
            .end = 1'250'000,
            .deviceId = 1,
            .streamId = 13,
            .correlationId = 77,
            .pid = 4242,
            .shortName = "ampere_sgemm_128x64_nn",
            .gridX = 40,
            .gridY = 2,
            .gridZ = 3,
            .blockX = 256,
            .blockY = 2,
            .blockZ = 1,
            .registersPerThread = 122,
            .staticSharedMemory = 16384,
            .dynamicSharedMemory = 512 };
        writer.addKernel(kernel);
        kernel.start = 1'300'000;
        kernel.end = 1'310'000;
        kernel.correlationId = 78;
        kernel.shortName = "vectorized_elementwise_kernel";
        kernel.demangledName = "void at::native::vectorized_elementwise_kernel<4>(int)";
        writer.addKernel(kernel);

        writer.addRuntime({ .start = 990'000,
            .end = 995'000,
            .pid = 4242,
            .tid = 4250,
            .correlationId = 77,
            .name = "cudaLaunchKernel_v7000" });
        writer.addRuntime({ .start = 989'000,
            .end = 996'000,
            .pid = 4242,
            .tid = 4250,
            .correlationId = 77,
            .name = "cudaLaunchKernel",
            .eventClass = 67 });
        writer.addMemcpy({ .start = 500'000,
            .end = 600'000,
            .deviceId = 1,
            .streamId = 14,
            .correlationId = 70,
            .pid = 4242,
            .bytes = 8'388'608,
            .copyKind = 2,
            .srcKind = 2,
            .dstKind = 1 });
        writer.addMemset(
            { .start = 700'000, .end = 710'000, .deviceId = 1, .correlationId = 71, .pid = 4242, .bytes = 4096 });

        writer.addNvtx({ .start = 100,
            .end = 2'000'000,
            .pid = 4242,
            .tid = 4242,
            .text = "train_step",
            .registeredString = true });
        writer.addNvtx({ .start = 200, .end = 900'000, .pid = 4242, .tid = 4242, .text = "forward" });
        // The end must be ignored for a mark.
        writer.addNvtx({ .start = 300, .end = 400, .pid = 4242, .tid = 4242, .text = "checkpoint", .eventType = 34 });
        writer.addNvtx({ .start = 50, .pid = 4242, .tid = 4242, .text = "gaplens", .eventType = 75, .domainId = 5 });
        writer.addNvtx({ .start = 1'000,
            .end = 5'000,
            .pid = 4242,
            .tid = 4242,
            .text = "prefetch",
            .eventType = 60,
            .domainId = 5 });
        writer.finish();
    }

    // The sample written to `name`, opened for reading.
    Db writtenSample(const char *name)
    {
        const auto file = path(name);
        writeSample(file);
        return Db(file);
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void schemaMatchesRealExport_data()
    {
        QTest::addColumn<QString>("table");
        QTest::addColumn<QString>("realFile");
        const char *h100 = "nsysai_h100_2gpu_1s.sqlite";
        for (const char *table : { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
                 "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS", "StringIds", "PROCESSES",
                 "ThreadNames", "TARGET_INFO_SESSION_START_TIME", "META_DATA_EXPORT", "META_DATA_CAPTURE",
                 "TARGET_INFO_SYSTEM_ENV", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND", "ENUM_NSYS_EVENT_TYPE" })
            QTest::newRow(table) << QString::fromLatin1(table) << QString::fromLatin1(h100);
        // The 3.25 fixture has no TARGET_INFO_GPU; the newest real one is 3.24.14.
        QTest::newRow("TARGET_INFO_GPU") << QStringLiteral("TARGET_INFO_GPU") << QStringLiteral("nsysai_mock.sqlite");
    }

    void schemaMatchesRealExport()
    {
        QFETCH(QString, table);
        QFETCH(QString, realFile);
        const std::string real = gaplens::test::realFile(realFile.toLatin1().constData());
        QVERIFY2(!real.empty(),
            qPrintable(QStringLiteral("real export %1 missing: set GAPLENS_REAL_DATA_DIR").arg(realFile)));
        const auto file = path("schema.sqlite");
        writeSample(file);

        Db ours(file), theirs(real);
        QVERIFY(ours.isOpen() && theirs.isOpen());
        const auto t = table.toStdString();
        QVERIFY2(ours.hasTable(t), qPrintable(table));
        const auto ourColumns = ours.columns(t);
        QVERIFY(!ourColumns.empty());
        QCOMPARE(joined(ourColumns), joined(theirs.columns(t)));
        // Byte-identical DDL, comments included: what `sqlite3 .schema` shows users.
        const auto ddl = "SELECT sql FROM sqlite_master WHERE name='" + t + "'";
        QCOMPARE(ours.text(ddl), theirs.text(ddl));
    }

    void kernelRowsReadBack()
    {
        const auto db = writtenSample("kernels.sqlite");
        QVERIFY(db.isOpen());
        const auto rows = db.rows(
            "SELECT k.start, k.end, k.deviceId, k.streamId, k.correlationId, (k.globalPid >> 24) & 16777215, "
            "k.globalPid & 16777215, s.value, d.value, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ, "
            "k.registersPerThread, k.staticSharedMemory, k.dynamicSharedMemory, k.contextId, "
            "k.tensorSizeMinusOneElements FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
            "JOIN StringIds d ON d.id = k.demangledName ORDER BY k.start");
        QCOMPARE(int(rows.size()), 2);
        const std::vector<std::string> first
            = { "1000000", "1250000", "1", "13", "77", "4242", "0", "ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn",
                  "40", "2", "3", "256", "2", "1", "122", "16384", "512", "1", "[]" };
        QCOMPARE(rows[0], first);
        QCOMPARE(rows[1][7], std::string("vectorized_elementwise_kernel"));
        QCOMPARE(rows[1][8], std::string("void at::native::vectorized_elementwise_kernel<4>(int)"));
        // Every NOT NULL column is filled (SQLite would have refused otherwise, but gridId
        // must also be distinct per kernel like CUPTI's).
        QCOMPARE(db.integer("SELECT count(DISTINCT gridId) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 2);
        QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE localMemoryTotal IS NULL "
                            "OR localMemoryPerThread IS NULL OR gridId IS NULL"),
            0);
        QCOMPARE(db.integer("SELECT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1"), makeGlobalPid(4242));
    }

    void otherRowsReadBack()
    {
        const auto db = writtenSample("other.sqlite");
        QVERIFY(db.isOpen());
        const auto calls = db.rows("SELECT r.start, r.end, r.eventClass, (r.globalTid >> 24) & 16777215, "
                                   "r.globalTid & 16777215, r.correlationId, s.value, r.returnValue "
                                   "FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
                                   "ORDER BY r.eventClass");
        QCOMPARE(int(calls.size()), 2);
        QCOMPARE(calls[0],
            (std::vector<std::string> {
                "990000", "995000", "0", "4242", "4250", "77", "cudaLaunchKernel_v7000", "0" }));
        QCOMPARE(calls[1],
            (std::vector<std::string> { "989000", "996000", "67", "4242", "4250", "77", "cudaLaunchKernel", "0" }));

        QCOMPARE(db.rows("SELECT start, end, deviceId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, "
                         "dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"),
            (std::vector<std::vector<std::string>> { { "500000", "600000", "1", "14", "70",
                std::to_string(makeGlobalPid(4242)), "8388608", "2", "2", "1" } }));
        QCOMPARE(db.rows("SELECT start, end, deviceId, streamId, correlationId, bytes, value "
                         "FROM CUPTI_ACTIVITY_KIND_MEMSET"),
            (std::vector<std::vector<std::string>> { { "700000", "710000", "1", "7", "71", "4096", "0" } }));

        QCOMPARE(
            db.rows("SELECT p.pid, p.name, p.globalPid = " + std::to_string(makeGlobalPid(4242)) + " FROM PROCESSES p"),
            (std::vector<std::vector<std::string>> { { "4242", "python3", "1" } }));
        QCOMPARE(db.rows("SELECT (t.globalTid >> 24) & 16777215, t.globalTid & 16777215, s.value FROM ThreadNames t "
                         "JOIN StringIds s ON s.id = t.nameId ORDER BY 2"),
            (std::vector<std::vector<std::string>> {
                { "4242", "4242", "python3" }, { "4242", "4250", "pt_data_worker" } }));
        // Interned once: "python3" names a thread and is a kernel-free string; no duplicates.
        QCOMPARE(db.integer("SELECT count(*) - count(DISTINCT value) FROM StringIds"), 0);
        QCOMPARE(db.integer("SELECT count(*) FROM StringIds WHERE value = 'ampere_sgemm_128x64_nn'"), 1);
    }

    void nvtxTextVersusTextId()
    {
        const auto db = writtenSample("nvtx.sqlite");
        QVERIFY(db.isOpen());
        const auto rows
            = db.rows("SELECT n.start, n.end, n.eventType, n.text, s.value, (n.globalTid >> 24) & 16777215, "
                      "n.globalTid & 16777215, n.domainId, n.rangeId IS NOT NULL, n.endGlobalTid = n.globalTid "
                      "FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId ORDER BY n.start");
        QCOMPARE(int(rows.size()), 5);
        // Domain create: name in text, the new id in domainId, no end.
        QCOMPARE(rows[0],
            (std::vector<std::string> { "50", "NULL", "75", "gaplens", "NULL", "4242", "4242", "5", "0", "NULL" }));
        // Registered string: textId only.
        QCOMPARE(rows[1],
            (std::vector<std::string> {
                "100", "2000000", "59", "NULL", "train_step", "4242", "4242", "0", "0", "NULL" }));
        // Plain string: text only.
        QCOMPARE(rows[2],
            (std::vector<std::string> { "200", "900000", "59", "forward", "NULL", "4242", "4242", "0", "0", "NULL" }));
        // Mark: end NULL even though one was given.
        QCOMPARE(rows[3],
            (std::vector<std::string> { "300", "NULL", "34", "checkpoint", "NULL", "4242", "4242", "0", "0", "NULL" }));
        // Start/end range: a range id and the ending thread.
        QCOMPARE(rows[4],
            (std::vector<std::string> { "1000", "5000", "60", "prefetch", "NULL", "4242", "4242", "5", "1", "1" }));
    }

    void metadataTables()
    {
        const auto db = writtenSample("meta.sqlite");
        QVERIFY(db.isOpen());
        auto meta = [&](const char *table, const char *name) {
            return db.text(std::string("SELECT value FROM ") + table + " WHERE name = '" + name + "'");
        };
        QCOMPARE(meta("META_DATA_EXPORT", "EXPORT_SCHEMA_VERSION"), std::string("3.25.0"));
        QCOMPARE(meta("META_DATA_EXPORT", "EXPORT_PRODUCT_NAME"), std::string("NVIDIA Nsight Systems"));
        QCOMPARE(meta("META_DATA_EXPORT", "EXPORT_CONFIG_TIME_SHIFT"), std::string("0"));
        QCOMPARE(meta("META_DATA_EXPORT", "EXPORT_PARAM_TIME_NORMALIZE"), std::string("false"));
        QCOMPARE(meta("META_DATA_CAPTURE", "DEVICE_DISPLAY_NAME"), std::string("gpu-node-7"));
        QCOMPARE(meta("META_DATA_CAPTURE", "PROCESS_0:COMMAND"), std::string("python3"));
        QCOMPARE(db.rows("SELECT value FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:ENVIRONMENT_VARIABLE' "
                         "ORDER BY rowid"),
            (std::vector<std::vector<std::string>> { { "PMI_RANK=\"3\"" }, { "WORLD_SIZE=\"8\"" } }));
        QCOMPARE(meta("TARGET_INFO_SYSTEM_ENV", "Hostname"), std::string("gpu-node-7"));
        QCOMPARE(db.rows("SELECT utcEpochNs, utcTime FROM TARGET_INFO_SESSION_START_TIME"),
            (std::vector<std::vector<std::string>> { { "1712345678901234567", "2024-04-05T19:34:38" } }));
        QCOMPARE(db.text("SELECT label FROM ENUM_CUDA_MEMCPY_OPER WHERE id = 1"), std::string("Host-to-Device"));
        QCOMPARE(db.text("SELECT label FROM ENUM_CUDA_MEM_KIND WHERE id = 1"), std::string("Pinned"));
        QCOMPARE(db.text("SELECT name FROM ENUM_NSYS_EVENT_TYPE WHERE id = 59"), std::string("NvtxPushPopRange"));
        QCOMPARE(db.rows("SELECT id, name, vmId IS NOT NULL FROM TARGET_INFO_GPU"),
            (std::vector<std::vector<std::string>> { { "1", "NVIDIA A100-SXM4-80GB", "1" } }));
        QCOMPARE(db.text("PRAGMA integrity_check"), std::string("ok"));
    }

    void lazyTablesMissingWhenNothingAdded()
    {
        const auto file = path("empty.sqlite");
        {
            ExportWriter writer(file, {});
            writer.finish();
        }
        Db db(file);
        QVERIFY(db.isOpen());
        for (const char *table : { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
                 "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS" })
            QVERIFY2(!db.hasTable(table), table);
        for (const char *table : { "StringIds", "PROCESSES", "ThreadNames", "META_DATA_EXPORT", "META_DATA_CAPTURE",
                 "TARGET_INFO_SESSION_START_TIME", "TARGET_INFO_SYSTEM_ENV", "TARGET_INFO_GPU" })
            QVERIFY2(db.hasTable(table), table);
        QCOMPARE(db.integer("SELECT count(*) FROM TARGET_INFO_GPU"), 0);
        QCOMPARE(db.integer("SELECT count(*) FROM StringIds"), 0);
    }

    void onlyUsedActivityTablesExist()
    {
        const auto file = path("nvtx_only.sqlite");
        {
            ExportWriter writer(file, {});
            ExportWriter::NvtxRange range;
            range.start = 1;
            range.end = 2;
            range.text = "only";
            writer.addNvtx(range);
        } // the destructor finishes
        Db db(file);
        QVERIFY(db.isOpen());
        QVERIFY(db.hasTable("NVTX_EVENTS"));
        QVERIFY(!db.hasTable("CUPTI_ACTIVITY_KIND_KERNEL"));
        QVERIFY(!db.hasTable("CUPTI_ACTIVITY_KIND_RUNTIME"));
        QCOMPARE(db.text("SELECT text FROM NVTX_EVENTS"), std::string("only"));
    }

    void gpuRowsForUsedDevices()
    {
        const auto file = path("gpus.sqlite");
        {
            ExportWriter writer(file, {});
            writer.addGpu(0, "NVIDIA H100 80GB HBM3");
            writer.addGpu(0, "duplicate ignored");
            ExportWriter::Kernel kernel;
            kernel.deviceId = 3;
            kernel.end = 10;
            kernel.shortName = "k";
            writer.addKernel(kernel);
            ExportWriter::Memset set;
            set.deviceId = 2;
            set.end = 10;
            writer.addMemset(set);
        }
        Db db(file);
        QVERIFY(db.isOpen());
        QCOMPARE(db.rows("SELECT id FROM TARGET_INFO_GPU ORDER BY id"),
            (std::vector<std::vector<std::string>> { { "0" }, { "2" }, { "3" } }));
        QCOMPARE(db.text("SELECT name FROM TARGET_INFO_GPU WHERE id = 0"), std::string("NVIDIA H100 80GB HBM3"));

        const auto without = path("nogpus.sqlite");
        {
            ExportWriter::Options options;
            options.writeTargetInfoGpu = false;
            ExportWriter writer(without, options);
            writer.addGpu(0, "ignored");
        }
        Db db2(without);
        QVERIFY(db2.isOpen());
        QVERIFY(!db2.hasTable("TARGET_INFO_GPU"));
    }

    void recreatesAnExistingFile()
    {
        const auto file = path("twice.sqlite");
        writeSample(file);
        {
            ExportWriter writer(file, {});
            ExportWriter::Kernel kernel;
            kernel.end = 5;
            kernel.shortName = "only_kernel";
            writer.addKernel(kernel);
        }
        Db db(file);
        QVERIFY(db.isOpen());
        QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);
        QVERIFY(!db.hasTable("NVTX_EVENTS"));
        QCOMPARE(db.integer("SELECT count(*) FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'"), 1);
    }

    void errorsNameTheFile()
    {
        const auto bad = path("no/such/folder/x.sqlite");
        try {
            ExportWriter writer(bad, {});
            QFAIL("opening a file in a missing folder must throw");
        } catch (const std::runtime_error &error) {
            QVERIFY2(std::string(error.what()).find(bad) != std::string::npos, error.what());
        }

        const auto file = path("finished.sqlite");
        ExportWriter writer(file, {});
        writer.finish();
        writer.finish(); // idempotent
        bool threw = false;
        try {
            writer.addProcess(1, "late");
        } catch (const std::runtime_error &error) {
            threw = std::string(error.what()).find(file) != std::string::npos;
        }
        QVERIFY2(threw, "adding after finish() must throw a runtime_error naming the file");
    }

    void writesManyRowsThroughTheBulkPath()
    {
        // Not a benchmark (cores are shared); checks the bulk path end to end and reports the rate.
        const auto file = path("bulk.sqlite");
        constexpr int kRows = 200'000;
        const auto begin = std::chrono::steady_clock::now();
        {
            ExportWriter writer(file, {});
            ExportWriter::Kernel kernel;
            ExportWriter::RuntimeCall call;
            call.name = "cudaLaunchKernel_v7000";
            const std::string names[]
                = { "ampere_sgemm_128x64_nn", "vectorized_elementwise_kernel", "layer_norm_kernel" };
            for (int i = 0; i < kRows / 2; ++i) {
                call.start = i * 10'000;
                call.end = call.start + 5'000;
                call.correlationId = std::uint32_t(i);
                writer.addRuntime(call);
                kernel.start = call.end + 5'000;
                kernel.end = kernel.start + 4'000;
                kernel.correlationId = std::uint32_t(i);
                kernel.shortName = names[i % 3];
                writer.addKernel(kernel);
            }
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        qInfo("ExportWriter: %d rows in %.3f s (%.2f M rows/s)", kRows, seconds, kRows / seconds / 1e6);
        Db db(file);
        QVERIFY(db.isOpen());
        QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), kRows / 2);
        QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                            "USING (correlationId) WHERE r.end < k.start"),
            kRows / 2);
        QCOMPARE(db.integer("SELECT count(*) FROM StringIds"), 4);
    }
};

QTEST_APPLESS_MAIN(TestExportWriter)
#include "tst_export_writer.moc"
