// SPDX-License-Identifier: MIT
// `gaplens --help` and `--version` run as processes with no display at all: no DISPLAY, no
// WAYLAND_DISPLAY, no QT_QPA_PLATFORM (help2man runs them so in the build, and so do users
// on a cluster's login node). A bad digest fails the command.
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestAppCommandLine : public QObject
{
    Q_OBJECT
private:
    struct Run
    {
        int exitCode = -1; // -1: did not finish; -2: crashed
        QString out, err;
    };

    // `platform`: the QT_QPA_PLATFORM to run on; none by default.
    static Run runWithoutDisplay(const QStringList &args, const QString &platform = {})
    {
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        for (const auto &name : { "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM" })
            env.remove(QString::fromLatin1(name));
        if (!platform.isEmpty())
            env.insert(QStringLiteral("QT_QPA_PLATFORM"), platform);
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(GAPLENS_GUI_BIN), args);
        if (!p.waitForFinished(30000))
            return {};
        return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
            QString::fromLocal8Bit(p.readAllStandardOutput()), QString::fromLocal8Bit(p.readAllStandardError()) };
    }

private slots:
    void helpPrintsEveryOptionAndExitsZero()
    {
        for (const auto &flag : { QStringLiteral("--help"), QStringLiteral("-h") }) {
            const auto run = runWithoutDisplay({ flag });
            QCOMPARE(run.exitCode, 0);
            QVERIFY2(run.out.startsWith(QStringLiteral("Usage: ")), qPrintable(run.out + run.err));
            for (const auto &option :
                { "--render", "--report", "--session", "--before", "--after", "--range", "--size", "--lanes <all|gpu>",
                    "--fit <shrink|grow>", "--gap-threshold", "--step-range", "--meta", "--theme", "--version" })
                QVERIFY2(run.out.contains(QLatin1String(option)), option);
            QVERIFY(run.out.contains(QStringLiteral("gaplens --before base/ --after new/"))); // an example
        }
    }

    void versionPrintsTheProjectVersionAndExitsZero()
    {
        const auto run = runWithoutDisplay({ QStringLiteral("--version") });
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out.trimmed(), QStringLiteral("gaplens " GAPLENS_VERSION));
        QVERIFY(run.err.isEmpty());
    }

    void openingAWindowWithoutADisplaySaysSoInsteadOfAborting()
    {
        const auto run = runWithoutDisplay({ QStringLiteral("some.sqlite") });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("no display to open a window on")), qPrintable(run.err));
        QVERIFY(run.err.contains(QStringLiteral("--render")));
    }

    // The digest is read off the GUI thread (DigestOpener), and a bad one still fails the
    // command with the reader's message.
    void aBadDigestFailsWithTheReadersMessage()
    {
        QTemporaryDir dir;
        const auto bad = dir.filePath(QStringLiteral("bad.gldigest"));
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "gaplens-digest", "version": 9})");
        file.close();
        const auto run = runWithoutDisplay({ bad }, QStringLiteral("offscreen"));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("gaplens: ") + bad
                     + QStringLiteral(": version: version 9 is newer than this gaplens reads (1); update gaplens\n")),
            qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(TestAppCommandLine)
#include "tst_app_command_line.moc"
