// SPDX-License-Identifier: MIT
// Copy kinds as exports store them: the copyKind column is CUPTI's CUpti_ActivityMemcpyKind
// (0-10) extended by nsys with unified-memory migrations (11-13), labelled in
// ENUM_CUDA_MEMCPY_OPER. Every value keeps its own kind and direction.
#include "sqltestdb.h"
#include "testsupport.h"

#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/export_writer.h"

#include <QTemporaryDir>
#include <QTest>

#include <string>

using namespace gaplens::core;

namespace {

// "Unified Host-to-Device" -> "Unified HtoD": the export's label in gaplens' short form.
std::string shortLabel(std::string label)
{
    for (const auto &[word, letter] : { std::pair { "Host", "H" }, std::pair { "Device", "D" },
             std::pair { "Array", "A" }, std::pair { "Peer", "P" }, std::pair { "-to-", "to" } })
        for (auto at = label.find(word); at != std::string::npos; at = label.find(word))
            label.replace(at, std::string(word).size(), letter);
    return label == "Unknown" ? "unknown" : label;
}

} // namespace

class TestReaderCopies : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void everyCopyKindValueIsReadAsItsOwnKind()
    {
        QVERIFY(m_dir.isValid());
        const auto path = m_dir.filePath(QStringLiteral("copies.sqlite")).toStdString();
        // copyKind 0..13, then values no export defines; copy i starts at 1000 * (i + 1).
        const std::vector<int> values { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 99, -1 };
        {
            ExportWriter writer(path, {});
            writer.addProcess(100, "python3");
            for (std::size_t i = 0; i < values.size(); ++i)
                writer.addMemcpy({ .start = TimeNs(1000 * (i + 1)),
                    .end = TimeNs(1000 * (i + 1) + 10),
                    .pid = 100,
                    .bytes = 4096,
                    .copyKind = values[i] });
            writer.finish();
        }
        LoadOptions options;
        options.files = { path };
        const auto trace = loadTraceSet(options);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->gpus.size(), std::size_t(1));
        const auto &c = trace->gpus[0].copies;
        QCOMPARE(c.size(), values.size());
        const std::vector<CopyKind> expected { CopyKind::Unknown, CopyKind::HostToDevice, CopyKind::DeviceToHost,
            CopyKind::HostToArray, CopyKind::ArrayToHost, CopyKind::ArrayToArray, CopyKind::ArrayToDevice,
            CopyKind::DeviceToArray, CopyKind::DeviceToDevice, CopyKind::HostToHost, CopyKind::PeerToPeer,
            CopyKind::UnifiedHostToDevice, CopyKind::UnifiedDeviceToHost, CopyKind::UnifiedDeviceToDevice,
            CopyKind::Unknown, CopyKind::Unknown, CopyKind::Unknown };
        const std::vector<std::string> names { "unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA",
            "DtoD", "HtoH", "PtoP", "Unified HtoD", "Unified DtoH", "Unified DtoD", "unknown", "unknown", "unknown" };
        for (std::size_t i = 0; i < values.size(); ++i) {
            QCOMPARE(c.start[i], TimeNs(ExportWriter::Options {}.sessionStartUtcNs + 1000 * TimeNs(i + 1)));
            QCOMPARE(int(c.kind[i]), int(expected[i]));
            QCOMPARE(std::string(copyKindName(c.kind[i])), names[i]);
        }
        QCOMPARE(std::string(copyKindName(CopyKind::Memset)), std::string("memset"));
    }

    // The exports name every copyKind value in ENUM_CUDA_MEMCPY_OPER: gaplens' names must
    // say the same, value by value.
    void kindNamesAgreeWithTheExportsEnumTable()
    {
        std::size_t checked = 0;
        for (const auto &file : gaplens::test::realExportFiles()) {
            const gaplens::test::SqlTestDb db(file);
            if (!db.hasTable("ENUM_CUDA_MEMCPY_OPER"))
                continue; // schema 2.9.1 has no ENUM_* tables
            const auto rows = db.rows("SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER ORDER BY id");
            QCOMPARE(rows.size(), std::size_t(14));
            for (const auto &row : rows) {
                const auto kind = copyKindFromExport(std::stoll(row[0]));
                QCOMPARE(int(kind), std::stoi(row[0]));
                QCOMPARE(std::string(copyKindName(kind)), shortLabel(row[1]));
                ++checked;
            }
        }
        QVERIFY2(checked >= 14, "no real export with ENUM_CUDA_MEMCPY_OPER (is GAPLENS_REAL_DATA_DIR set?)");
    }
};

QTEST_APPLESS_MAIN(TestReaderCopies)
#include "tst_reader_copies.moc"
