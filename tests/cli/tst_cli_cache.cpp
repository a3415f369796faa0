// SPDX-License-Identifier: MIT
// gaplens-cli keeps its report cache in $XDG_CACHE_HOME/gaplens (else ~/.cache/gaplens), never
// beside a report; --no-cache neither reads nor writes it; GAPLENS_CACHE_MAX_GIB bounds it; and
// every command prints the same from the cache as from the exports.
#include "cli_runner.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <cstdint>

#include <sys/stat.h>

namespace {

using gaplens::test::CliRun;

CliRun runWith(const QProcessEnvironment &environment, const QStringList &args)
{
    QProcess p;
    p.setProcessEnvironment(environment);
    p.start(QStringLiteral(GAPLENS_CLI_PATH), args);
    p.waitForFinished(120000);
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        p.readAllStandardError() };
}

QProcessEnvironment cacheHome(const QString &xdgCacheHome, const QString &home = QString())
{
    auto environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("GAPLENS_CACHE_MAX_GIB"));
    if (xdgCacheHome.isEmpty())
        environment.remove(QStringLiteral("XDG_CACHE_HOME"));
    else
        environment.insert(QStringLiteral("XDG_CACHE_HOME"), xdgCacheHome);
    if (!home.isEmpty())
        environment.insert(QStringLiteral("HOME"), home);
    return environment;
}

QStringList entriesIn(const QString &folder)
{
    return QDir(folder).entryList(QDir::Files | QDir::NoDotAndDotDot, QDir::Name);
}

std::uint64_t inodeOf(const QString &path)
{
    struct stat st = {};
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? std::uint64_t(st.st_ino) : 0;
}

QStringList filesBeside(const QString &report)
{
    return QDir(QFileInfo(report).absolutePath()).entryList(QDir::Files | QDir::NoDotAndDotDot, QDir::Name);
}

} // namespace

class TestCliCache : public QObject
{
    Q_OBJECT

private slots:
    // Each command's output from the cache is its output from the export; the first run
    // writes the entries of its table set, the next reads them, --no-cache touches nothing.
    void everyCommandPrintsTheSameFromTheCache_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("summary") << QStringList { "summary", "--format", "json" };
        QTest::newRow("kernels") << QStringList { "kernels", "--format", "json" };
        QTest::newRow("gaps") << QStringList { "gaps", "--format", "json", "--with-copies" };
        QTest::newRow("nvtx") << QStringList { "nvtx", "--format", "csv" };
        QTest::newRow("api") << QStringList { "api" };
        QTest::newRow("intervals") << QStringList { "intervals", "--format", "json" };
    }
    void everyCommandPrintsTheSameFromTheCache()
    {
        QFETCH(QStringList, args);
        const auto report = QString::fromStdString(gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite"));
        QVERIFY(QFileInfo::exists(report));
        const auto beside = filesBeside(report);
        QTemporaryDir home;
        const auto cacheFolder = home.filePath(QStringLiteral("xdg/gaplens"));
        const auto environment = cacheHome(home.filePath(QStringLiteral("xdg")));

        const auto uncached = runWith(environment, args + QStringList { "--no-cache", report });
        QCOMPARE(uncached.exitCode, 0);
        QVERIFY(!QFileInfo::exists(cacheFolder));
        const auto first = runWith(environment, args + QStringList { report });
        QCOMPARE(first.exitCode, 0);
        QCOMPARE(first.out, uncached.out);
        const auto entries = entriesIn(cacheFolder);
        QCOMPARE(entries.size(), qsizetype(1));
        QVERIFY(entries[0].endsWith(QStringLiteral(".glcache")));
        const auto entry = cacheFolder + QLatin1Char('/') + entries[0];
        const auto written = QFileInfo(entry).lastModified();
        const auto writtenInode = inodeOf(entry);
        QVERIFY(writtenInode != 0);
        const auto second = runWith(environment, args + QStringList { report });
        QCOMPARE(second.exitCode, 0);
        QCOMPARE(second.out, uncached.out);
        QCOMPARE(second.err, uncached.err);
        QCOMPARE(entriesIn(cacheFolder), entries); // read, not rewritten under another name
        QVERIFY(QFileInfo(entry).lastModified() >= written);
        QCOMPARE(inodeOf(entry), writtenInode); // nor under its own (a rewrite renames a new file into place)
        QCOMPARE(filesBeside(report), beside);
    }

    // Without XDG_CACHE_HOME the cache is ~/.cache/gaplens.
    void theCacheDefaultsToTheHomeFolder()
    {
        QTemporaryDir dir;
        const auto report = QString::fromStdString(gaplens::test::realFile("ring_6ranks"));
        const auto run = runWith(cacheHome(QString(), dir.path()), { "kernels", report });
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(entriesIn(dir.filePath(QStringLiteral(".cache/gaplens"))).size(), qsizetype(6)); // one per rank
    }

    // A cache folder that cannot be made costs only the cache, and stderr says so once.
    void anUnwritableCacheIsANote()
    {
        QTemporaryDir dir;
        const auto report = QString::fromStdString(gaplens::test::realFile("ring_6ranks"));
        const auto blocker = dir.filePath(QStringLiteral("a-file"));
        QFile file(blocker);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        const auto reference = runWith(cacheHome(dir.filePath(QStringLiteral("xdg"))), { "kernels", report });
        QCOMPARE(reference.exitCode, 0);
        QCOMPARE(reference.err, QByteArray());
        const auto run = runWith(cacheHome(blocker), { "kernels", report });
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, reference.out);
        QCOMPARE(run.err,
            QByteArray("gaplens-cli: note: the report cache in ") + QFile::encodeName(blocker)
                + "/gaplens was not written (cannot create the folder: Not a directory); the reports are read from "
                  "their exports each time (--no-cache turns the cache off)\n");
        QCOMPARE(runWith(cacheHome(blocker), { "kernels", "--no-cache", report }).err, QByteArray());
    }

    // A limit smaller than any entry keeps none, and the answers are unchanged.
    void theLimitBoundsTheCache()
    {
        QTemporaryDir dir;
        const auto report = QString::fromStdString(gaplens::test::realFile("ring_6ranks"));
        auto environment = cacheHome(dir.filePath(QStringLiteral("xdg")));
        const auto reference = runWith(environment, { "kernels", "--no-cache", report });
        environment.insert(QStringLiteral("GAPLENS_CACHE_MAX_GIB"), QStringLiteral("0.000001"));
        for (int i = 0; i < 2; ++i) {
            const auto run = runWith(environment, { "kernels", report });
            QCOMPARE(run.exitCode, 0);
            QCOMPARE(run.out, reference.out);
            QVERIFY(entriesIn(dir.filePath(QStringLiteral("xdg/gaplens"))).isEmpty());
        }
    }
};

QTEST_APPLESS_MAIN(TestCliCache)
#include "tst_cli_cache.moc"
