// SPDX-License-Identifier: MIT
// gaplens-cli's command line: the global and per-command --help (help2man builds the man page
// from them), --version, usage errors with exit code 2, and how options take their values.
#include "gaplens/core/write/synth.h"

#include "cli_runner.h"
#include "synth_sample.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::core;
using namespace gaplens::test;

namespace {

const QStringList kCommands = { QStringLiteral("summary"), QStringLiteral("kernels"), QStringLiteral("gaps"),
    QStringLiteral("blame"), QStringLiteral("pace"), QStringLiteral("overlap"), QStringLiteral("nvtx"),
    QStringLiteral("api"), QStringLiteral("ranks"), QStringLiteral("ncu"), QStringLiteral("intervals"),
    QStringLiteral("transfers"), QStringLiteral("throughput"), QStringLiteral("synth"), QStringLiteral("diff"),
    QStringLiteral("check"), QStringLiteral("digest") };

} // namespace

class TestCliCommandLine : public QObject
{
    Q_OBJECT

    SynthSample m_sample;

private slots:
    void initTestCase()
    {
        QVERIFY(m_sample.write(synthOptions(3, 4)));
        QCOMPARE(m_sample.synth.files.size(), std::size_t(3));
    }

    void globalHelpListsEveryCommandAndTheExitStatus()
    {
        for (const auto &flag : { QStringLiteral("--help"), QStringLiteral("-h") }) {
            const auto run = runCli({ flag });
            QCOMPARE(run.exitCode, 0);
            QVERIFY(run.err.isEmpty());
            const auto help = QString::fromUtf8(run.out);
            QVERIFY2(help.startsWith(QStringLiteral("Usage: gaplens-cli")), qPrintable(help));
            QVERIFY(help.contains(QStringLiteral("Commands:")));
            for (const auto &command : kCommands)
                QVERIFY2(help.contains(QStringLiteral("\n  %1 ").arg(command)), qPrintable(command));
            // And no command that the list above (and so every per-command check) misses.
            const auto listed = help.section(QStringLiteral("Commands:\n"), 1).section(QStringLiteral("\n\n"), 0, 0);
            QStringList names;
            for (const auto &line : listed.split(QLatin1Char('\n')))
                names << line.section(QLatin1Char(' '), 2, 2);
            QCOMPARE(names.size(), kCommands.size());
            for (const auto &name : names)
                QVERIFY2(kCommands.contains(name), qPrintable(name));
            QVERIFY(help.contains(QStringLiteral("idle time totals by cause and by NVTX phase")));
            QVERIFY(help.contains(QStringLiteral("Exit status: 0 on success")));
            QVERIFY(help.contains(
                QStringLiteral("3 when check finds a\nregression or the sustained-gain rule is not met.")));
        }
    }

    void kernelsHelpShowsItsOwnOptionsAndAnExample()
    {
        const auto run = runCli({ QStringLiteral("kernels"), QStringLiteral("--help") });
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.err.isEmpty());
        const auto help = QString::fromUtf8(run.out);
        QVERIFY2(help.startsWith(QStringLiteral("Usage: gaplens-cli kernels [OPTIONS] [FILES...]")), qPrintable(help));
        QVERIFY(help.contains(QStringLiteral("like cuda_gpu_kern_sum")));
        for (const char *option :
            { "--demangled", "--per-rank", "--top", "--ranks", "--rank-map", "--threads", "--format" })
            QVERIFY2(help.contains(QLatin1String(option)), option);
        // Options of other commands are not offered.
        for (const char *option : { "--baseline", "--before", "--tolerance", "--min-gap-us", "--gpu", "--out" })
            QVERIFY2(!help.contains(QLatin1String(option)), option);
        QVERIFY(help.contains(QStringLiteral("Examples:\n  gaplens-cli kernels ")));
    }

    void everyCommandHasHelpWithAnExample()
    {
        for (const auto &command : kCommands) {
            const auto run = runCli({ command, QStringLiteral("--help") });
            QCOMPARE(run.exitCode, 0);
            const auto help = QString::fromUtf8(run.out);
            QVERIFY2(help.startsWith(QStringLiteral("Usage: gaplens-cli %1 ").arg(command)), qPrintable(help));
            QVERIFY2(help.contains(QStringLiteral("Examples:\n  gaplens-cli ")), qPrintable(help));
        }
        const auto diff = QString::fromUtf8(runCli({ QStringLiteral("diff"), QStringLiteral("--help") }).out);
        QVERIFY(diff.contains(QStringLiteral("--before FILES")) && diff.contains(QStringLiteral("--after FILES")));
        QVERIFY(diff.contains(QStringLiteral("table|csv|json|md")));
        const auto summary = QString::fromUtf8(runCli({ QStringLiteral("summary"), QStringLiteral("--help") }).out);
        QVERIFY(summary.contains(QStringLiteral("table|csv|json ")));
        QVERIFY(!summary.contains(QStringLiteral("--demangled")));
    }

    void versionPrintsTheProjectVersion()
    {
        const auto run = runCli({ QStringLiteral("--version") });
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("gaplens-cli " GAPLENS_EXPECTED_VERSION "\n"));
        QVERIFY(run.err.isEmpty());
    }

    void usageErrorsExitTwoWithAHintToTheHelp()
    {
        auto run = runCli({});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("gaplens-cli: missing command\n"), run.err.constData());
        QVERIFY(run.err.contains("gaplens-cli --help"));
        QVERIFY(run.out.isEmpty());

        run = runCli({ QStringLiteral("summary"), QStringLiteral("--bogus"), QStringLiteral("x") });
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.startsWith("gaplens-cli: ") && run.err.contains("--bogus"), run.err.constData());
        QVERIFY(run.err.contains("gaplens-cli summary --help"));

        // An option another command has is no option of this one.
        run = runCli(
            { QStringLiteral("kernels"), QStringLiteral("--baseline"), QStringLiteral("b.json"), m_sample.path });
        QCOMPARE(run.exitCode, 2);
        run = runCli({ QStringLiteral("ranks"), QStringLiteral("--min-gap-us"), QStringLiteral("5"), m_sample.path });
        QCOMPARE(run.exitCode, 2);

        const QList<std::pair<QStringList, const char *>> cases = {
            { { QStringLiteral("summary"), QStringLiteral("--min-gap-us"), QStringLiteral("-5"), m_sample.path },
                "gaplens-cli: --min-gap-us must not be negative\n" },
            { { QStringLiteral("summary"), QStringLiteral("--format"), QStringLiteral("xml"), m_sample.path },
                "gaplens-cli: --format must be table, csv or json, not 'xml'\n" },
            { { QStringLiteral("gaps"), QStringLiteral("--ranks"), QStringLiteral("0,x"), m_sample.path },
                "gaplens-cli: --ranks expects a number, got 'x'\n" },
            { { QStringLiteral("ranks"), QStringLiteral("--rank-map"), QStringLiteral("nonsense"), m_sample.path },
                "gaplens-cli: --rank-map expects FILE=RANK or FILE:PID=RANK, got 'nonsense'\n" },
            { { QStringLiteral("kernels"), QStringLiteral("--top"), QStringLiteral("3x"), m_sample.path },
                "gaplens-cli: --top expects a number, got '3x'\n" },
            { { QStringLiteral("synth") }, "gaplens-cli: synth needs --out DIR\n" },
            { { QStringLiteral("synth"), QStringLiteral("--out"), m_sample.dir.filePath(QStringLiteral("x")),
                  QStringLiteral("--ranks"), QStringLiteral("1,2") },
                "gaplens-cli: synth --ranks expects one number (how many ranks)\n" },
            { { QStringLiteral("synth"), QStringLiteral("-o"), m_sample.dir.filePath(QStringLiteral("x")),
                  QStringLiteral("--steps"), QStringLiteral("0") },
                "gaplens-cli: synth needs at least one rank and one step\n" },
            { { QStringLiteral("diff"), QStringLiteral("stray"), QStringLiteral("--before"), m_sample.path,
                  QStringLiteral("--after"), m_sample.path },
                "gaplens-cli: diff takes its files after --before and --after, not 'stray'\n" },
            { { QStringLiteral("diff"), QStringLiteral("--before"), m_sample.path, QStringLiteral("--after") },
                "gaplens-cli: --after needs at least one file or folder\n" },
            { { QStringLiteral("check"), QStringLiteral("--baseline"), QStringLiteral("b.json"),
                  QStringLiteral("--tolerance"), QStringLiteral("-3"), m_sample.path },
                "gaplens-cli: --tolerance must not be negative\n" },
        };
        for (const auto &[args, message] : cases) {
            run = runCli(args);
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.startsWith(message),
                qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + QString::fromUtf8(run.err)));
        }
    }

    void valuesMayFollowAnEqualsSign()
    {
        const auto run = runCli(
            { QStringLiteral("kernels"), QStringLiteral("--top=2"), QStringLiteral("--format=csv"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.startsWith("name,calls,"));
        QCOMPARE(run.out.count('\n'), 1 + 2);
    }

    void aRepeatedOptionKeepsItsLastValueAndListsAccumulate()
    {
        auto run = runCli({ QStringLiteral("kernels"), QStringLiteral("--format"), QStringLiteral("json"),
            QStringLiteral("--format"), QStringLiteral("csv"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.startsWith("name,calls,"));

        run = runCli(
            { QStringLiteral("summary"), QStringLiteral("--ranks"), QStringLiteral("0"), QStringLiteral("--ranks"),
                QStringLiteral("2"), QStringLiteral("--format"), QStringLiteral("json"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        const auto ranks = json(run)[QStringLiteral("ranks")].toArray();
        QCOMPARE(ranks.size(), 2);
        QCOMPARE(ranks[0].toObject()[QStringLiteral("rank")].toInt(), 0);
        QCOMPARE(ranks[1].toObject()[QStringLiteral("rank")].toInt(), 2);

        const auto file0 = QString::fromStdString(m_sample.synth.files[0]),
                   file1 = QString::fromStdString(m_sample.synth.files[1]);
        run = runCli({ QStringLiteral("ranks"), QStringLiteral("--rank-map"), file0 + QStringLiteral("=7"),
            QStringLiteral("--rank-map"), file1 + QStringLiteral("=8"), QStringLiteral("--format"),
            QStringLiteral("json"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        QStringList overridden;
        for (const auto &rank : json(run)[QStringLiteral("ranks")].toArray())
            if (rank.toObject()[QStringLiteral("rank_source")].toString() == QStringLiteral("override"))
                overridden << QString::number(rank.toObject()[QStringLiteral("rank")].toInt());
        overridden.sort();
        QCOMPARE(overridden, QStringList({ QStringLiteral("7"), QStringLiteral("8") }));
    }

    void beforeAndAfterTakeEveryFollowingFile()
    {
        // As a shell expands `--before runs/base/*.sqlite`.
        QStringList args { QStringLiteral("diff"), QStringLiteral("--before") };
        for (const auto &file : m_sample.synth.files)
            args << QString::fromStdString(file);
        args << QStringLiteral("--after") << QString::fromStdString(m_sample.synth.files[0])
             << QString::fromStdString(m_sample.synth.files[1]) << QStringLiteral("--format") << QStringLiteral("json");
        const auto run = runCli(args);
        QCOMPARE(run.exitCode, 0);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("files")].toArray().size(), 5);
        QCOMPARE(doc[QStringLiteral("before")].toObject()[QStringLiteral("ranks")].toInt(), 3);
        QCOMPARE(doc[QStringLiteral("after")].toObject()[QStringLiteral("ranks")].toInt(), 2);
    }
};

QTEST_GUILESS_MAIN(TestCliCommandLine)
#include "tst_cli_command_line.moc"
