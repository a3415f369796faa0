// SPDX-License-Identifier: MIT
// The report cache (LoadOptions::cache): a capture taken from it is the one read from the
// exports, field by field, on every real export and on generated jobs; an entry is used only
// for the report, table set and format it was written for, and a changed report, a corrupt,
// truncated or foreign entry is a miss that is read again and rewritten; the least recently
// used entries go first when the folder is over its limit; a folder that cannot be written
// costs nothing but the cache.
#include "read/report_codec.h"

#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/synth.h"
#include "minimal_export.h"
#include "synth_sample.h"
#include "test_files.h"
#include "testsupport.h"
#include "trace_compare.h"

#include "sqltestdb.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

using namespace gaplens::core;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<TraceSet> load(const std::vector<std::string> &files, const fs::path &cacheDir,
    TableSet tables = TableSet::all(), unsigned threads = 2)
{
    LoadOptions options;
    options.files = files;
    options.tables = tables;
    options.threads = threads;
    options.cache.directory = cacheDir;
    return loadTraceSet(options);
}

void sameCapture(const TraceSet &reference, const TraceSet &other)
{
    QCOMPARE(other.errors.size(), reference.errors.size());
    std::string shown;
    for (const auto &line : gaplens::test::traceDifferences(reference, other))
        shown += "\n  " + line;
    QVERIFY2(shown.empty(), shown.c_str());
}

std::vector<bool> fromCache(const TraceSet &trace)
{
    std::vector<bool> flags;
    for (const auto &report : trace.reports)
        flags.push_back(report.readFromCache);
    return flags;
}

std::vector<fs::path> entriesIn(const fs::path &dir)
{
    std::vector<fs::path> entries;
    std::error_code ec;
    for (const auto &item : fs::directory_iterator(dir, ec))
        entries.push_back(item.path());
    std::sort(entries.begin(), entries.end());
    return entries;
}

// Loads `files` without a cache, then twice with one: the first load writes an entry per
// file, the second takes every report from them; all three captures are the same.
void comesBackTheSame(const std::vector<std::string> &files, TableSet tables = TableSet::all())
{
    QTemporaryDir dir;
    const fs::path cache = gaplens::test::pathIn(dir, "cache");
    const auto reference = load(files, {}, tables);
    QVERIFY(!reference->ranks.empty());
    const auto first = load(files, cache, tables);
    QCOMPARE(fromCache(*first), std::vector<bool>(files.size(), false));
    QCOMPARE(entriesIn(cache).size(), files.size());
    CHECK(sameCapture(*reference, *first));
    const auto second = load(files, cache, tables);
    QCOMPARE(fromCache(*second), std::vector<bool>(files.size(), true));
    CHECK(sameCapture(*reference, *second));
}

std::string minimalExportIn(const QTemporaryDir &dir, const std::string &name)
{
    return gaplens::test::writeExportIn(dir, name, gaplens::test::minimalExportSql());
}

} // namespace

class TestReportCache : public QObject
{
    Q_OBJECT

    std::vector<std::string> m_files;

private slots:
    void initTestCase() { gaplens::test::listRealExports(m_files, 14); }

    void realExportComesBackTheSame_data() { gaplens::test::addFileRows(m_files); }
    void realExportComesBackTheSame()
    {
        QFETCH(QString, file);
        CHECK(comesBackTheSame({ file.toStdString() }));
        // A command's own table set has entries of its own.
        CHECK(comesBackTheSame({ file.toStdString() }, TableSet(ExportTable::Kernels) | ExportTable::CudaApi));
    }

    // Every rank folder of real exports at once, read with one thread and with three.
    void realRankFolderComesBackTheSame()
    {
        const auto folder = gaplens::test::realFile("ring_6ranks");
        QVERIFY(!folder.empty());
        std::vector<LoadError> errors;
        const auto files = expandInputs({ folder }, errors);
        QVERIFY(errors.empty());
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto reference = load(files, {}, TableSet::all(), 1);
        load(files, cache, TableSet::all(), 3);
        const auto hit = load(files, cache, TableSet::all(), 1);
        QCOMPARE(fromCache(*hit), std::vector<bool>(files.size(), true));
        CHECK(sameCapture(*reference, *hit));
    }

    // A generated job with everything the generator writes: NVTX payloads and domains,
    // run-accounting phases, copies, memsets, several ranks.
    void generatedJobComesBackTheSame()
    {
        gaplens::test::SynthSample sample;
        const auto options = withRunPhases(gaplens::test::synthOptions(3, 12));
        QVERIFY(sample.write(options));
        CHECK(comesBackTheSame(sample.synth.files));
    }

    // Some reports cached, some not: each comes from where it can.
    void aPartlyCachedCaptureMixesHitsAndReads()
    {
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto a = minimalExportIn(dir, "rank0.sqlite");
        const auto b = minimalExportIn(dir, "rank1.sqlite");
        load({ a }, cache);
        const auto reference = load({ a, b }, {});
        const auto mixed = load({ a, b }, cache);
        QCOMPARE(fromCache(*mixed), (std::vector<bool> { true, false }));
        CHECK(sameCapture(*reference, *mixed));
        QCOMPARE(fromCache(*load({ a, b }, cache)), (std::vector<bool> { true, true }));
    }

    // The progress of a load with hits and misses never goes back and ends at 1000: the reads'
    // progress goes on from the hits'.
    void progressGoesOnFromTheHits()
    {
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto a = minimalExportIn(dir, "rank0.sqlite");
        const auto b = minimalExportIn(dir, "rank1.sqlite");
        const auto c = minimalExportIn(dir, "rank2.sqlite");
        load({ a, b }, cache);
        LoadOptions options;
        options.files = { a, b, c };
        options.cache.directory = cache;
        std::vector<int> permilles;
        const auto trace = loadTraceSet(options, [&](const LoadProgress &p) { permilles.push_back(p.permille); });
        QCOMPARE(fromCache(*trace), (std::vector<bool> { true, true, false }));
        QVERIFY(!permilles.empty());
        QVERIFY(std::is_sorted(permilles.begin(), permilles.end()));
        QCOMPARE(permilles.back(), 1000);
        QVERIFY(std::find(permilles.begin(), permilles.end(), 666) != permilles.end()); // two of three done
    }

    // A staged load (the app's) whose reports are all cached has no first stage: the capture
    // is ready at once. With one report not cached, every report is read in two parts again.
    void stagedLoadsUseTheCacheWhenEveryReportHasAnEntry()
    {
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto a = minimalExportIn(dir, "rank0.sqlite");
        const auto b = minimalExportIn(dir, "rank1.sqlite");
        const auto reference = load({ a, b }, {});
        auto staged = [&](int &calls) {
            LoadOptions options;
            options.files = { a, b };
            options.cache.directory = cache;
            options.onFirstStage = [&calls](std::shared_ptr<const TraceSet>) { ++calls; };
            return loadTraceSet(options);
        };
        load({ a }, cache);
        int calls = 0;
        const auto partly = staged(calls);
        QCOMPARE(calls, 1);
        QCOMPARE(fromCache(*partly), (std::vector<bool> { false, false }));
        CHECK(sameCapture(*reference, *partly));
        calls = 0;
        const auto whole = staged(calls);
        QCOMPARE(calls, 0);
        QCOMPARE(fromCache(*whole), (std::vector<bool> { true, true }));
        CHECK(sameCapture(*reference, *whole));
    }

    // A report that changes is read again, even when its size and modification time are
    // put back as they were.
    void aChangedReportIsReadAgain()
    {
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto file = minimalExportIn(dir, "rank0.sqlite");
        load({ file }, cache);
        QCOMPARE(fromCache(*load({ file }, cache)), std::vector<bool> { true });

        gaplens::test::SqlTestDb(file, gaplens::test::SqlTestDb::Mode::Create)
            .exec("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL;"
                  "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = start + 1000, end = end + 1000 WHERE rowid = 2;");
        const auto grown = load({ file }, cache);
        QCOMPARE(fromCache(*grown), std::vector<bool> { false });
        QCOMPARE(grown->gpus.at(0).kernelCount(), std::size_t(2));
        CHECK(sameCapture(*load({ file }, {}), *grown));

        // Same size, same modification time, one name's letter changed in place.
        const auto bytes = gaplens::test::readFile(file);
        const auto at = bytes.find("gemm");
        QVERIFY(at != std::string::npos);
        const auto modified = fs::last_write_time(file);
        gaplens::test::patchFile(file, at, "germ");
        fs::last_write_time(file, modified);
        QCOMPARE(fs::file_size(file), bytes.size());
        const auto renamed = load({ file }, cache);
        QCOMPARE(fromCache(*renamed), std::vector<bool> { false });
        const auto &kernels = renamed->gpus.at(0).streams.at(0).kernels;
        QCOMPARE(renamed->str(kernels.shortName.at(0)), std::string("germ"));
        QCOMPARE(fromCache(*load({ file }, cache)), std::vector<bool> { true });
    }

    // An entry is looked up under the path the report was opened by, with its table set.
    void anEntryBelongsToItsPathAndTableSet()
    {
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto file = minimalExportIn(dir, "rank0.sqlite");
        load({ file }, cache);
        QCOMPARE(fromCache(*load({ file }, cache, TableSet(ExportTable::Kernels))), std::vector<bool> { false });
        QCOMPARE(entriesIn(cache).size(), std::size_t(2));
        const auto copy = gaplens::test::pathIn(dir, "copy.sqlite");
        fs::copy_file(file, copy);
        QCOMPARE(fromCache(*load({ copy }, cache)), std::vector<bool> { false });
        QCOMPARE(entriesIn(cache).size(), std::size_t(3));
    }

    // Whatever happened to an entry, it is not trusted: the report is read again and the
    // entry rewritten.
    void aBadEntryIsReadAgainAndRewritten_data()
    {
        QTest::addColumn<QString>("damage");
        for (const char *damage : { "payload byte", "header checksum", "version", "magic", "truncated", "header only",
                 "empty", "longer", "not an entry" })
            QTest::newRow(damage) << QString(damage);
    }
    void aBadEntryIsReadAgainAndRewritten()
    {
        QFETCH(QString, damage);
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto file = minimalExportIn(dir, "rank0.sqlite");
        const auto reference = load({ file }, {});
        load({ file }, cache);
        const auto entries = entriesIn(cache);
        QCOMPARE(entries.size(), std::size_t(1));
        const auto entry = entries[0].string();
        const auto bytes = gaplens::test::readFile(entry);
        QVERIFY(bytes.size() > 200);
        const auto modified = fs::last_write_time(entry);
        if (damage == "payload byte") {
            auto changed = bytes;
            changed[changed.size() / 2] = char(changed[changed.size() / 2] ^ 0x40);
            QVERIFY(gaplens::test::writeFile(fs::path(entry), changed));
        } else if (damage == "header checksum") {
            gaplens::test::patchFile(entry, 40, std::string(8, '\x5a'));
        } else if (damage == "version") {
            gaplens::test::patchFile(entry, 8, std::string("\x63\x00\x00\x00", 4));
        } else if (damage == "magic") {
            gaplens::test::patchFile(entry, 0, "SQLite f");
        } else if (damage == "truncated") {
            QVERIFY(gaplens::test::writeFile(fs::path(entry), bytes.substr(0, bytes.size() - 9)));
        } else if (damage == "header only") {
            QVERIFY(gaplens::test::writeFile(fs::path(entry), bytes.substr(0, 64)));
        } else if (damage == "empty") {
            QVERIFY(gaplens::test::writeFile(fs::path(entry), std::string()));
        } else if (damage == "longer") {
            QVERIFY(gaplens::test::writeFile(fs::path(entry), bytes + std::string(16, '\0')));
        } else {
            QVERIFY(gaplens::test::writeFile(fs::path(entry), gaplens::test::readFile(file)));
        }
        fs::last_write_time(entry, modified);
        const auto again = load({ file }, cache);
        QCOMPARE(fromCache(*again), std::vector<bool> { false });
        CHECK(sameCapture(*reference, *again));
        QCOMPARE(gaplens::test::readFile(entry), bytes); // rewritten as it was
        QCOMPARE(fromCache(*load({ file }, cache)), std::vector<bool> { true });
    }

    // The checksum keeps damaged entries from being decoded at all; the decoder still trusts
    // nothing: every truncation of a payload, and every byte of it changed three ways, either
    // decodes or is refused (CorruptEntry), with no allocation beyond what the bytes hold
    // (the sanitizer builds run this too).
    void aDamagedPayloadIsRefusedOrDecodedNeverWorse()
    {
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        load({ minimalExportIn(dir, "rank0.sqlite") }, cache);
        const auto entries = entriesIn(cache);
        QCOMPARE(entries.size(), std::size_t(1));
        const auto payload = gaplens::test::readFile(entries[0].string()).substr(64);
        QVERIFY(payload.size() > 100);
        StringPool strings;
        std::vector<std::uint64_t> aligned; // the decoder reads columns in place, 8-byte aligned
        auto decodes = [&](const std::string &bytes) {
            aligned.assign(bytes.size() / 8 + 1, 0);
            std::memcpy(aligned.data(), bytes.data(), bytes.size());
            try {
                detail::readReportPayload(
                    { reinterpret_cast<const std::byte *>(aligned.data()), bytes.size() }, strings);
                return true;
            } catch (const detail::CorruptEntry &) {
                return false;
            }
        };
        QVERIFY(decodes(payload));
        for (std::size_t n = 0; n < payload.size(); ++n)
            QVERIFY2(!decodes(payload.substr(0, n)), qPrintable(QString("cut at %1").arg(n)));
        std::size_t refused = 0;
        for (std::size_t i = 0; i < payload.size(); ++i) {
            for (const unsigned flip : { 0x01u, 0x80u, 0xFFu }) {
                auto damaged = payload;
                damaged[i] = char(static_cast<unsigned char>(damaged[i]) ^ flip);
                refused += decodes(damaged) ? 0 : 1;
            }
        }
        QVERIFY(refused > payload.size()); // counts and lengths changed are refused
    }

    // Over the limit, the entries used longest ago go first; a hit counts as a use.
    void theLeastRecentlyUsedEntriesAreEvicted()
    {
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto a = minimalExportIn(dir, "a.sqlite");
        const auto b = minimalExportIn(dir, "b.sqlite");
        const auto c = minimalExportIn(dir, "c.sqlite");
        load({ a }, cache);
        const auto entryOfA = entriesIn(cache).at(0);
        const auto entrySize = fs::file_size(entryOfA);
        load({ b }, cache);
        auto entries = entriesIn(cache);
        QCOMPARE(entries.size(), std::size_t(2));
        const auto entryOfB = entries[0] == entryOfA ? entries[1] : entries[0];
        const auto now = fs::file_time_type::clock::now();
        fs::last_write_time(entryOfA, now - std::chrono::seconds(100));
        fs::last_write_time(entryOfB, now - std::chrono::seconds(50));

        auto options = [&](const std::string &file) {
            LoadOptions o;
            o.files = { file };
            o.cache.directory = cache;
            o.cache.maxBytes = 2 * entrySize + entrySize / 2;
            return o;
        };
        QCOMPARE(fromCache(*loadTraceSet(options(a))), std::vector<bool> { true }); // a used now
        QVERIFY(fs::last_write_time(entryOfA) > now - std::chrono::seconds(10));
        QCOMPARE(fromCache(*loadTraceSet(options(c))), std::vector<bool> { false });
        entries = entriesIn(cache);
        QCOMPARE(entries.size(), std::size_t(2));
        QVERIFY(std::find(entries.begin(), entries.end(), entryOfA) != entries.end());
        QVERIFY(std::find(entries.begin(), entries.end(), entryOfB) == entries.end());
        QCOMPARE(fromCache(*loadTraceSet(options(b))), std::vector<bool> { false });
    }

    // A cache folder that cannot be made or written leaves the load as it is without one, and
    // the capture says why (so that a user learns why every open is slow).
    void anUnwritableFolderOnlyCostsTheCache()
    {
        QTemporaryDir dir;
        const auto file = minimalExportIn(dir, "rank0.sqlite");
        const auto blocker = gaplens::test::pathIn(dir, "a-file");
        QVERIFY(gaplens::test::writeFile(fs::path(blocker), "not a folder"));
        const auto reference = load({ file }, {});
        QCOMPARE(reference->cacheProblem, std::string());
        const auto unwritable = fs::path(blocker) / "cache";
        for (int i = 0; i < 2; ++i) {
            const auto trace = load({ file }, unwritable);
            QCOMPARE(fromCache(*trace), std::vector<bool> { false });
            CHECK(sameCapture(*reference, *trace));
            QCOMPARE(trace->cacheProblem,
                "the report cache in " + unwritable.string()
                    + " was not written (cannot create the folder: Not a directory); the reports are read from "
                      "their exports each time");
        }
        const auto writable = load({ file }, gaplens::test::pathIn(dir, "cache"));
        QCOMPARE(writable->cacheProblem, std::string());
    }

    // A report taken from the cache views its entry: the big columns are the mapped bytes (no
    // copy), the capture keeps the mapping when the entry is evicted or replaced meanwhile, and
    // analyses see the same numbers.
    void aReopenViewsItsEntry()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(2, 40)));
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto reference = load(sample.synth.files, {});
        const auto first = load(sample.synth.files, cache);
        QVERIFY(!isMappedColumn(first->gpus.front().streams.front().kernels.start));
        const auto hit = load(sample.synth.files, cache);
        QCOMPARE(fromCache(*hit), std::vector<bool>(sample.synth.files.size(), true));
        std::size_t mapped = 0, owned = 0;
        for (const auto &gpu : hit->gpus)
            for (const auto &stream : gpu.streams)
                (isMappedColumn(stream.kernels.start) && isMappedColumn(stream.kernels.end) ? mapped : owned) += 1;
        for (const auto &thread : hit->threads)
            if (!thread.api.start.empty())
                (isMappedColumn(thread.api.start) && isMappedColumn(thread.api.correlationId) ? mapped : owned) += 1;
        QVERIFY(mapped > 0);
        QCOMPARE(owned, std::size_t(0));
        for (const auto &entry : entriesIn(cache))
            QVERIFY(fs::remove(entry)); // as an eviction by another process does
        CHECK(sameCapture(*reference, *hit));
    }

    // The memory guard counts a cached report at what stays in memory beside its mapped
    // columns: a capture refused when read from its exports opens from its entries.
    void theMemoryGuardCountsCachedReportsAtWhatTheyKeep()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(2, 40)));
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto reference = load(sample.synth.files, {});
        const auto whole = estimateLoad(sample.synth.files);
        QVERIFY(whole.bytes > 0);
        auto limited = [&](const fs::path &cacheDir) {
            LoadOptions options;
            options.files = sample.synth.files;
            options.cache.directory = cacheDir;
            options.memoryLimitBytes = whole.bytes / 2;
            return loadTraceSet(options);
        };
        const auto refused = limited({});
        QCOMPARE(refused->errors.size(), std::size_t(1));
        QVERIFY(refused->errors.front().message.find("too large to load") != std::string::npos);
        // No entry yet: refused with the cache too, and nothing is written.
        QCOMPARE(limited(cache)->errors.size(), std::size_t(1));
        QVERIFY(entriesIn(cache).empty());
        load(sample.synth.files, cache);
        const auto reopened = limited(cache);
        QVERIFY(reopened->errors.empty());
        QCOMPARE(fromCache(*reopened), std::vector<bool>(sample.synth.files.size(), true));
        CHECK(sameCapture(*reference, *reopened));
    }

    // A capture that fits only with its columns mapped, and has no entries yet, is read through
    // the cache: each report is written to its entry as soon as it is read and replaced by the
    // entry mapped, so only the report being read is held whole. Its numbers are the same.
    void aCaptureThatFitsOnlyMappedIsReadThroughTheCache()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(6, 40)));
        const auto &files = sample.synth.files;
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto reference = load(files, {});
        const auto whole = estimateLoad(files);
        auto limited = [&](const fs::path &cacheDir) {
            LoadOptions options;
            options.files = files;
            options.threads = 1; // one report held whole at a time
            options.cache.directory = cacheDir;
            options.memoryLimitBytes = whole.bytes * 6 / 10;
            return loadTraceSet(options);
        };
        QCOMPARE(limited({})->errors.size(), std::size_t(1)); // too large without the cache
        const auto through = limited(cache);
        QVERIFY(through->errors.empty());
        QCOMPARE(fromCache(*through), std::vector<bool>(files.size(), false)); // read from the exports
        QCOMPARE(entriesIn(cache).size(), files.size());
        for (const auto &gpu : through->gpus)
            for (const auto &stream : gpu.streams)
                QVERIFY(isMappedColumn(stream.kernels.start));
        CHECK(sameCapture(*reference, *through));
        const auto reopened = limited(cache);
        QCOMPARE(fromCache(*reopened), std::vector<bool>(files.size(), true));
        CHECK(sameCapture(*reference, *reopened));
    }

    // Nothing is kept of a file that fails, or of a time shard (it holds part of a file).
    void failuresAndTimeShardsAreNotCached()
    {
        QTemporaryDir dir;
        const fs::path cache = gaplens::test::pathIn(dir, "cache");
        const auto bad = gaplens::test::pathIn(dir, "bad.sqlite");
        QVERIFY(gaplens::test::writeFile(fs::path(bad), "not a database at all, but long enough to be read"));
        const auto good = minimalExportIn(dir, "good.sqlite");
        const auto trace = load({ bad, good }, cache);
        QCOMPARE(trace->errors.size(), std::size_t(1));
        QCOMPARE(entriesIn(cache).size(), std::size_t(1));
        QCOMPARE(load({ bad, good }, cache)->errors.size(), std::size_t(1));

        const fs::path shardCache = gaplens::test::pathIn(dir, "shard-cache");
        LoadOptions options;
        options.files = { good };
        options.tables = kTimeShardTables;
        options.windows = { StoredStartWindow {} };
        options.cache.directory = shardCache;
        QVERIFY(loadTraceSet(options)->errors.empty());
        QVERIFY(entriesIn(shardCache).empty());
    }
};

QTEST_APPLESS_MAIN(TestReportCache)
#include "tst_report_cache.moc"
