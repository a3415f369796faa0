// SPDX-License-Identifier: MIT
// Each command reads only the tables its analyses declare (issue #19): its output, exit code
// and messages with that table set are exactly those with every table read (--all-tables),
// for every command and the options that change its set (diff and check --min-sustained-gain
// of a capture against itself), on the generator's captures (plain and with run phases) and on
// every real export (the six ranks of the ring job as one capture).
#include "cli_runner.h"
#include "testsupport.h"

#include "gaplens/core/write/synth.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <initializer_list>

using namespace gaplens::test;

namespace {

QStringList qStrings(const std::vector<std::string> &files)
{
    QStringList out;
    for (const auto &f : files)
        out << QString::fromStdString(f);
    return out;
}

// The first kernel of `kernels`' listing, for --hist and ncu; empty when there is none.
QString firstKernel(const QStringList &files)
{
    const auto run = runCli(QStringList { QStringLiteral("kernels"), QStringLiteral("--format"), QStringLiteral("json"),
                                QStringLiteral("--all-tables") }
        + files);
    const auto kernels = json(run)[QStringLiteral("kernels")].toArray();
    return kernels.isEmpty() ? QString() : kernels.first().toObject()[QStringLiteral("name")].toString();
}

// Every command, with the options that change which tables it reads (format, --range, --gpu,
// --hist, --per-rank), as argument lists before the files; check against each of `baselines`.
QList<QStringList> commandVariants(const QString &kernel, const QStringList &baselines)
{
    const auto json = QStringList { QStringLiteral("--format"), QStringLiteral("json") };
    QList<QStringList> variants;
    for (const char *command : { "summary", "ranks", "kernels", "nvtx", "api", "gaps", "blame", "pace", "overlap",
             "intervals", "transfers", "throughput" })
        variants << QStringList { QString::fromLatin1(command) } + json;
    for (const char *command : { "summary", "kernels", "gaps", "blame", "pace", "intervals", "transfers" })
        variants << QStringList { QString::fromLatin1(command) }; // tables: times relative to the capture
    variants << QStringList { QStringLiteral("kernels"), QStringLiteral("--per-rank"), QStringLiteral("--demangled") }
            + json;
    variants << QStringList { QStringLiteral("nvtx"), QStringLiteral("--gpu") } + json;
    variants << QStringList { QStringLiteral("pace"), QStringLiteral("--gpu") } + json;
    variants << QStringList { QStringLiteral("pace"), QStringLiteral("--range"), QStringLiteral("train_step") } + json;
    variants << QStringList { QStringLiteral("throughput"), QStringLiteral("--format"), QStringLiteral("md") };
    variants << QStringList { QStringLiteral("throughput"), QStringLiteral("--range"), QStringLiteral("train_step") }
            + json;
    variants << QStringList { QStringLiteral("intervals"), QStringLiteral("--format"), QStringLiteral("csv") };
    for (const auto &baseline : baselines) {
        variants << QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), baseline };
        variants << QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), baseline } + json;
        variants << QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), baseline,
            QStringLiteral("--range"), QStringLiteral("train_step") }
                + json;
    }
    if (!kernel.isEmpty()) {
        variants << QStringList { QStringLiteral("kernels"), QStringLiteral("--hist"), kernel };
        variants << QStringList { QStringLiteral("kernels"), QStringLiteral("--hist"), kernel } + json;
        variants << QStringList { QStringLiteral("ncu"), QStringLiteral("--kernel"), kernel };
        // A name in the string table that no NVTX range has: read or not, it names no range.
        variants << QStringList { QStringLiteral("pace"), QStringLiteral("--range"), kernel } + json;
        variants << QStringList { QStringLiteral("throughput"), QStringLiteral("--range"), kernel } + json;
    }
    return variants;
}

} // namespace

class TestCliTableSets : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::vector<std::string> m_synth, m_phases, m_real;
    int m_baselines = 0; // baseline files written

    // Every variant on `files`: the command's own table set answers exactly as all tables do.
    void checkEveryCommand(const QStringList &files)
    {
        const auto kernel = firstKernel(files);
        // check's baselines: the capture's own summary, with copies counted and without (its
        // step range, when it has one, is the summary's).
        QStringList baselines;
        for (const auto &copies : { QStringList {}, QStringList { QStringLiteral("--with-copies") } }) {
            const auto summary = runCli(QStringList { QStringLiteral("summary"), QStringLiteral("--format"),
                                            QStringLiteral("json"), QStringLiteral("--all-tables") }
                + copies + files);
            QVERIFY2(summary.exitCode == 0 || summary.exitCode == 1, summary.err.constData());
            baselines << m_dir.filePath(QStringLiteral("baseline-%1.json").arg(m_baselines++));
            QFile file(baselines.back());
            QVERIFY(file.open(QIODevice::WriteOnly) && file.write(summary.out) == summary.out.size());
        }
        int compared = 0;
        for (const auto &variant : commandVariants(kernel, baselines)) {
            compareWithAllTables(variant, files, { 0 });
            if (QTest::currentTestFailed())
                return;
            ++compared;
        }
        QCOMPARE(compared, int(commandVariants(kernel, baselines).size()));
        checkBeforeAfter(files);
    }

    // diff and check --min-sustained-gain with `files` as both captures, before and after.
    void checkBeforeAfter(const QStringList &files)
    {
        const auto captures
            = QStringList { QStringLiteral("--before") } + files + QStringList { QStringLiteral("--after") } + files;
        const auto json = QStringList { QStringLiteral("--format"), QStringLiteral("json") };
        const auto diff = QStringList { QStringLiteral("diff") } + captures;
        const auto rule
            = QStringList { QStringLiteral("check"), QStringLiteral("--min-sustained-gain"), QStringLiteral("2") }
            + captures;
        for (const auto &variant :
            { diff, diff + json, diff + QStringList { QStringLiteral("--format"), QStringLiteral("md") },
                diff
                    + QStringList { QStringLiteral("--with-copies"), QStringLiteral("--range"),
                        QStringLiteral("train_step") }
                    + json,
                rule, rule + json, rule + QStringList { QStringLiteral("--windows"), QStringLiteral("3") } + json,
                rule + QStringList { QStringLiteral("--range"), QStringLiteral("train_step") } + json }) {
            // 3: check's rule not met (no gain against itself), after printing the windows.
            compareWithAllTables(variant, {}, { 0, 3 });
            if (QTest::currentTestFailed())
                return;
        }
    }

    // `variant` then `files` with the command's own table set: the same exit code, messages and
    // output as with every table read. An exit code in `answered` means the command printed
    // its answer, so the comparison is not of two empty outputs.
    static void compareWithAllTables(
        const QStringList &variant, const QStringList &files, std::initializer_list<int> answered)
    {
        const auto own = runCli(variant + files);
        const auto all = runCli(variant + QStringList { QStringLiteral("--all-tables") } + files);
        const auto what = variant.join(QLatin1Char(' '));
        QVERIFY2(own.exitCode >= 0, qPrintable(what));
        QVERIFY2(own.exitCode == all.exitCode,
            qPrintable(
                QStringLiteral("%1: exit %2, with every table %3").arg(what).arg(own.exitCode).arg(all.exitCode)));
        QVERIFY2(own.err == all.err, qPrintable(what + QStringLiteral(": ") + QString::fromUtf8(own.err)));
        QVERIFY2(own.out == all.out, qPrintable(what));
        if (std::find(answered.begin(), answered.end(), own.exitCode) != answered.end())
            QVERIFY2(!own.out.isEmpty(), qPrintable(what));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        gaplens::core::SynthOptions options;
        options.steps = 6;
        options.jitter = 0.1;
        options.warmupSteps = 1;
        m_synth = gaplens::core::writeSyntheticCapture(m_dir.filePath(QStringLiteral("synth")).toStdString(), options)
                      .files;
        QCOMPARE(m_synth.size(), std::size_t(4));
        auto phases = gaplens::core::withRunPhases(options);
        phases.ranks = 2;
        phases.steps = 12;
        m_phases = gaplens::core::writeSyntheticCapture(m_dir.filePath(QStringLiteral("phases")).toStdString(), phases)
                       .files;
        QCOMPARE(m_phases.size(), std::size_t(2));
        listRealExports(m_real, 14);
    }

    void generatorCaptures_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::newRow("four ranks") << qStrings(m_synth);
        QTest::newRow("run phases") << qStrings(m_phases);
    }
    void generatorCaptures()
    {
        QFETCH(QStringList, files);
        checkEveryCommand(files);
    }

    void realExports_data()
    {
        QTest::addColumn<QStringList>("files");
        // Each export alone, but the six ranks of the ring job together (ranks by PMI_RANK): one
        // capture of many reports, which holds each of them.
        const auto ring = realFile("ring_6ranks");
        QVERIFY(!ring.empty());
        for (const auto &f : m_real)
            if (std::filesystem::path(f).parent_path() != std::filesystem::path(ring))
                QTest::newRow(std::filesystem::path(f).filename().string().c_str())
                    << QStringList { QString::fromStdString(f) };
        QTest::newRow("ring_6ranks") << QStringList { QString::fromStdString(ring) };
    }
    void realExports()
    {
        QFETCH(QStringList, files);
        checkEveryCommand(files);
    }
};

QTEST_GUILESS_MAIN(TestCliTableSets)
#include "tst_cli_table_sets.moc"
