// SPDX-License-Identifier: MIT
// `gaplens-cli digest` end to end: every per-rank piece of the digest is what the command that
// owns it writes for the same capture (summary's devices and findings, blame, kernels
// --per-rank --top 10, intervals and transfers, pace, throughput), on a synthetic job with
// run phases and on the real six-rank job; the file is written only where --out says, never
// over an input, and without a .tmp left behind.
#include "cli_runner.h"
#include "gaplens/core/read/digest.h"
#include "test_files.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::test;

namespace {

QJsonObject readJson(const QString &path)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(readFile(path.toStdString()))).object();
}

// The entry of `array` whose "rank" is `rank`, without its "rank".
QJsonObject entryOfRank(const QJsonArray &array, int rank)
{
    for (const auto &v : array) {
        auto o = v.toObject();
        if (o[QStringLiteral("rank")].toInt() == rank) {
            o.remove(QStringLiteral("rank"));
            return o;
        }
    }
    return {};
}

QJsonObject without(QJsonObject o, std::initializer_list<const char *> keys)
{
    for (const auto *k : keys)
        o.remove(QLatin1String(k));
    return o;
}

} // namespace

class TestCliDigest : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_phases; // a synthetic job with run phases (run accounting)

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_phases = m_dir.filePath(QStringLiteral("phases"));
        const auto synth
            = runCli({ QStringLiteral("synth"), QStringLiteral("--out"), m_phases, QStringLiteral("--ranks"),
                QStringLiteral("3"), QStringLiteral("--steps"), QStringLiteral("24"), QStringLiteral("--phases") });
        QCOMPARE(synth.exitCode, 0);
        QVERIFY2(!realDataDir().empty(), kRealDataMissing);
    }

    void piecesAreTheCommandsJson_data()
    {
        QTest::addColumn<QStringList>("inputs");
        QTest::addColumn<QString>("interval");
        QTest::addColumn<bool>("stepRange");
        QTest::newRow("synthetic with phases") << QStringList { m_phases } << QStringLiteral("10ms") << true;
        QTest::newRow("ring_6ranks") << QStringList {
            QString::fromStdString(realDataDir()) + QStringLiteral("/ring_6ranks")
        } << QStringLiteral("100ms") << false;
    }

    void piecesAreTheCommandsJson()
    {
        QFETCH(QStringList, inputs);
        QFETCH(QString, interval);
        QFETCH(bool, stepRange);
        const auto out = m_dir.filePath(QStringLiteral("run.gldigest"));
        const auto run = runCli(QStringList { QStringLiteral("digest"), QStringLiteral("--out"), out,
                                    QStringLiteral("--interval"), interval }
            + inputs);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(run.out,
            QByteArray("digest of ") + QByteArray::number(readJson(out)[QStringLiteral("ranks")].toArray().size())
                + " rank(s) written to " + out.toUtf8() + "\n");
        QVERIFY(!QFile::exists(out + QStringLiteral(".tmp")));
        const auto digest = readJson(out);
        QCOMPARE(digest[QStringLiteral("format")].toString(), QStringLiteral("gaplens-digest"));
        QCOMPARE(digest[QStringLiteral("version")].toInt(), 1);

        const auto command = [&](QStringList args) {
            args.insert(1, QStringLiteral("--format=json"));
            return json(runCli(args + inputs));
        };
        const auto summary = command({ QStringLiteral("summary") });
        const auto blame = command({ QStringLiteral("blame") });
        const auto kernels
            = command({ QStringLiteral("kernels"), QStringLiteral("--per-rank"), QStringLiteral("--top=10") });
        const auto intervals = command(
            { QStringLiteral("intervals"), QStringLiteral("--interval"), interval, QStringLiteral("--top=1000000") });
        const auto transfers = command({ QStringLiteral("transfers"), QStringLiteral("--interval"), interval });
        const auto ranks = digest[QStringLiteral("ranks")].toArray();
        QCOMPARE(ranks.size(), summary[QStringLiteral("ranks")].toArray().size());
        QCOMPARE(digest[QStringLiteral("capture")].toObject()[QStringLiteral("files")].toArray().size(),
            summary[QStringLiteral("files")].toArray().size());
        const auto settings = digest[QStringLiteral("settings")].toObject();
        QCOMPARE(settings[QStringLiteral("origin_ns")], intervals[QStringLiteral("origin_ns")]);
        QCOMPARE(settings[QStringLiteral("interval_ns")], intervals[QStringLiteral("interval_ns")]);

        for (const auto &value : ranks) {
            const auto rank = value.toObject();
            const int n = rank[QStringLiteral("rank")].toInt();
            const auto summaryRank = entryOfRank(summary[QStringLiteral("ranks")].toArray(), n);
            QCOMPARE(rank[QStringLiteral("devices")], summaryRank[QStringLiteral("devices")]);
            QCOMPARE(rank[QStringLiteral("median_step_ns")], summaryRank[QStringLiteral("median_step_ns")]);
            QVERIFY(QDir::isAbsolutePath(rank[QStringLiteral("report")].toString()));
            QCOMPARE(QFileInfo(rank[QStringLiteral("report")].toString()).canonicalFilePath(),
                QFileInfo(summaryRank[QStringLiteral("file")].toString()).canonicalFilePath());
            qint64 busy = 0, window = 0, gaps = 0;
            for (const auto &d : rank[QStringLiteral("devices")].toArray()) {
                const auto device = d.toObject();
                busy += device[QStringLiteral("busy_ns")].toInteger();
                window += device[QStringLiteral("window_end_ns")].toInteger()
                    - device[QStringLiteral("window_start_ns")].toInteger();
                gaps += device[QStringLiteral("gap_count")].toInteger();
            }
            QCOMPARE(rank[QStringLiteral("busy_ns")].toInteger(), busy);
            QCOMPARE(rank[QStringLiteral("idle_ns")].toInteger(), window - busy);
            QCOMPARE(rank[QStringLiteral("gap_count")].toInteger(), gaps);

            const auto blameRank = entryOfRank(blame[QStringLiteral("ranks")].toArray(), n);
            if (blameRank.isEmpty()) // blame lists the ranks with a gap
                QCOMPARE(rank[QStringLiteral("blame")].toObject()[QStringLiteral("gap_count")].toInt(), 0);
            else
                QCOMPARE(rank[QStringLiteral("blame")].toObject(), blameRank);
            QCOMPARE(rank[QStringLiteral("top_kernels")].toObject(),
                entryOfRank(kernels[QStringLiteral("ranks")].toArray(), n));
            QCOMPARE(rank[QStringLiteral("intervals")].toObject(),
                entryOfRank(intervals[QStringLiteral("ranks")].toArray(), n));
            const auto transferRank = entryOfRank(transfers[QStringLiteral("ranks")].toArray(), n);
            QCOMPARE(rank[QStringLiteral("transfers")].toObject(), without(transferRank, { "intervals" }));
        }

        QJsonArray findingTexts;
        for (const auto &f : digest[QStringLiteral("findings")].toArray())
            findingTexts.append(f.toObject()[QStringLiteral("text")]);
        QCOMPARE(findingTexts, summary[QStringLiteral("findings")].toArray());

        if (!stepRange) {
            QVERIFY(digest[QStringLiteral("pace")].isNull());
            QVERIFY(settings[QStringLiteral("step_range")].isNull());
            for (const auto &value : ranks)
                QVERIFY(value.toObject()[QStringLiteral("run_accounting")].isNull());
            return;
        }
        const auto pace = command({ QStringLiteral("pace") });
        QCOMPARE(digest[QStringLiteral("pace")].toObject(),
            without(pace, { "tool", "format_version", "command", "files", "errors" }));
        const auto throughput = command({ QStringLiteral("throughput") });
        for (const auto &value : ranks) {
            const auto rank = value.toObject();
            QCOMPARE(rank[QStringLiteral("run_accounting")].toObject(),
                entryOfRank(throughput[QStringLiteral("ranks")].toArray(), rank[QStringLiteral("rank")].toInt()));
            QVERIFY(!rank[QStringLiteral("run_accounting")].toObject().isEmpty());
        }
    }

    // Every real single file's digest reads back in core's reader (what the app opens), with
    // its ranks, and those without GPU work (NVTX only) have no intervals.
    void everyRealFilesDigestReadsBack()
    {
        std::vector<std::string> files;
        listRealExports(files, 14);
        QVERIFY(!files.empty());
        const QDir top(QString::fromStdString(realDataDir()));
        for (const auto &file : files) {
            if (QFileInfo(QString::fromStdString(file)).dir() != top)
                continue;
            const auto out = m_dir.filePath(QStringLiteral("single.gldigest"));
            const auto run
                = runCli({ QStringLiteral("digest"), QStringLiteral("--out"), out, QString::fromStdString(file) });
            QVERIFY2(run.exitCode == 0, run.err.constData());
            const auto written = readJson(out);
            const auto back = gaplens::core::readDigest(out.toStdString());
            QVERIFY2(back.digest, back.error.c_str());
            QCOMPARE(qsizetype(back.digest->ranks.size()), written[QStringLiteral("ranks")].toArray().size());
            for (std::size_t r = 0; r < back.digest->ranks.size(); ++r) {
                const auto rank = written[QStringLiteral("ranks")].toArray()[qsizetype(r)].toObject();
                QCOMPARE(back.digest->ranks[r].rank, rank[QStringLiteral("rank")].toInt());
                QCOMPARE(back.digest->ranks[r].intervals.empty(), rank[QStringLiteral("intervals")].isNull());
            }
        }
    }

    void neverOverwritesAnInput()
    {
        const auto input = m_phases + QStringLiteral("/train_1.sqlite");
        QFile file(input);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto before = file.readAll();
        file.close();
        const auto run = runCli({ QStringLiteral("digest"), QStringLiteral("--out"), input, m_phases });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("refusing to overwrite an input file"), run.err.constData());
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), before);
        QVERIFY(!QFile::exists(input + QStringLiteral(".tmp")));
    }

    void outIsRequired()
    {
        const auto run = runCli({ QStringLiteral("digest"), m_phases });
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("digest needs --out FILE"), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliDigest)
#include "tst_cli_digest.moc"
