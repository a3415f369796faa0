// SPDX-License-Identifier: MIT
// The hand-off to Nsight Compute: the ncu command line of one kernel launch, on built
// fixtures (launch order, other processes, time shards, quoting, no META_DATA_CAPTURE) and on
// every real export against SQL.
#include "gaplens/core/analysis/ncu_command.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/export_writer.h"

#include "shard_windows.h"
#include "sqltestdb.h"
#include "testsupport.h"

#include <fmt/format.h>

#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::core;
using namespace gaplens::test;

namespace {

std::shared_ptr<TraceSet> load(const std::string &path)
{
    LoadOptions options;
    options.files = { path };
    return loadTraceSet(options);
}

// Process 100 launches gemm three times (correlation ids 10, 20, 30; the third runs first on
// the GPU, on another stream) and once `other`; process 200 launches gemm twice.
void writeGemmFixture(const std::string &path, ExportWriter::Options options)
{
    ExportWriter writer(path, options);
    writer.addProcess(100, "python3");
    writer.addProcess(200, "python3");
    const auto kernel
        = [&](std::uint32_t pid, std::int64_t stream, std::uint32_t correlation, TimeNs start, const char *name) {
              writer.addKernel({ .start = start,
                  .end = start + 100,
                  .streamId = stream,
                  .correlationId = correlation,
                  .pid = pid,
                  .shortName = name,
                  .demangledName = std::string("void ") + name + "<float>(float *)" });
          };
    kernel(100, 7, 10, 1000, "gemm");
    kernel(100, 7, 20, 3000, "gemm");
    kernel(100, 8, 30, 2000, "gemm");
    kernel(100, 7, 40, 5000, "other");
    kernel(200, 7, 10, 1500, "gemm");
    kernel(200, 7, 11, 2500, "gemm");
    writer.finish();
}

ExportWriter::Options programOptions()
{
    ExportWriter::Options options;
    options.command = "python3";
    options.arguments = { "train.py", "--name", "my run", "it's", "-k", "\"[a b]\"" };
    options.workingDir = "/home/me/work dir";
    options.environment = { { "CUDA_VISIBLE_DEVICES", "0" }, { "RANK", "0" } };
    return options;
}

} // namespace

class TestNcuCommand : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void wordsAreQuotedForAPosixShell()
    {
        QCOMPARE(shellQuote("train.py"), std::string("train.py"));
        QCOMPARE(shellQuote("--nproc_per_node=2"), std::string("--nproc_per_node=2"));
        QCOMPARE(shellQuote(""), std::string("''"));
        QCOMPARE(shellQuote("my run"), std::string("'my run'"));
        QCOMPARE(shellQuote("it's"), std::string("'it'\\''s'"));
        QCOMPARE(shellQuote("$HOME"), std::string("'$HOME'"));
        QCOMPARE(shellQuote("\"[a b]\""), std::string("'\"[a b]\"'"));
        QCOMPARE(ncuOutputName("gemm", 2), std::string("gaplens_gemm_2"));
        QCOMPARE(ncuOutputName("void f<int>(int *)", 1), std::string("gaplens_void_f_int__int____1"));
    }

    void theSecondLaunchSkipsOneInLaunchOrderAndQuotesTheArguments()
    {
        const auto path = m_dir.filePath(QStringLiteral("gemm.sqlite")).toStdString();
        writeGemmFixture(path, programOptions());
        const auto trace = load(path);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->ranks.size(), std::size_t(2));

        const auto ncu = buildNcuCommand(*trace, { .kernel = "gemm", .instance = 2 });
        QCOMPARE(ncu.error, std::string());
        QCOMPARE(trace->ranks[ncu.rank].pid, 100u);
        QCOMPARE(ncu.launches, 3u); // process 200's two launches are not counted
        QCOMPARE(ncu.launchSkip, 1u);
        QVERIFY(ncu.programKnown);
        QCOMPARE(ncu.commandLine,
            std::string("ncu --kernel-name-base function --kernel-name gemm --launch-skip 1 --launch-count 1 -o "
                        "gaplens_gemm_2 python3 train.py --name 'my run' 'it'\\''s' -k '\"[a b]\"'"));
        QCOMPARE(ncu.argv.size(), std::size_t(18));
        QCOMPARE(ncu.argv.back(), std::string("\"[a b]\""));
        const std::vector<std::string> notes {
            "It profiles launch 2 of 3 of gemm in rank 0 (pid 100): --launch-skip 1 skips the 1 earlier launch of it "
            "in that process, in launch order (correlation ids).",
            "Rank 1 launched it too: --rank picks another.",
            "Launches before the capture began are not in the export: if it started late (a delay, a capture range, "
            "a cut window), add them to --launch-skip.",
            "The program and its arguments are PROCESS_0's in META_DATA_CAPTURE.",
            "Run it in the program's working directory at capture time: /home/me/work dir",
            "The environment is not reproduced: the export recorded 2 variables of the program; run it with the same "
            "(CUDA_VISIBLE_DEVICES, rank variables).",
            "The report holds 2 GPU processes (ranks 0, 1); ncu follows the program's child processes by default "
            "(--target-processes all) and may profile this launch in each: rank 0's result is the one from pid 100.",
        };
        QCOMPARE(ncu.notes, notes);

        // The third launch (correlation id 30) ran before the second on the GPU: launch order counts.
        const auto &gpu = trace->gpus[0];
        for (std::uint32_t s = 0; s < gpu.streams.size(); ++s)
            for (std::uint32_t i = 0; i < gpu.streams[s].kernels.size(); ++i) {
                const auto &k = gpu.streams[s].kernels;
                const std::uint32_t expected = gpu.streams[s].pid == 200 ? (k.correlationId[i] == 10 ? 1 : 2)
                    : trace->str(k.shortName[i]) == "other"              ? 1
                                                                         : k.correlationId[i] / 10;
                QCOMPARE(kernelInstance(*trace, 0, s, i), expected);
            }
    }

    void anotherRanksLaunchesAreItsOwn()
    {
        const auto path = m_dir.filePath(QStringLiteral("gemm-rank1.sqlite")).toStdString();
        writeGemmFixture(path, programOptions());
        const auto trace = load(path);
        const auto ncu = buildNcuCommand(*trace, { .kernel = "gemm", .instance = 2, .rankNumber = 1 });
        QCOMPARE(ncu.error, std::string());
        QCOMPARE(trace->ranks[ncu.rank].pid, 200u);
        QCOMPARE(ncu.launches, 2u);
        QCOMPARE(ncu.launchSkip, 1u);
        QCOMPARE(ncu.notes.front(),
            std::string("It profiles launch 2 of 2 of gemm in rank 1 (pid 200): --launch-skip 1 skips the 1 earlier "
                        "launch of it in that process, in launch order (correlation ids)."));

        QCOMPARE(buildNcuCommand(*trace, { .kernel = "gemm", .instance = 3, .rankNumber = 1 }).error,
            std::string("rank 1 launched 'gemm' 2 times: there is no launch 3"));
        QCOMPARE(buildNcuCommand(*trace, { .kernel = "other", .rankNumber = 1 }).error,
            std::string("rank 1 launched no kernel named 'other' (rank 0 did)"));
        QCOMPARE(buildNcuCommand(*trace, { .kernel = "gemm", .rankNumber = 7 }).error,
            std::string("no rank 7 in the capture"));
        QCOMPARE(buildNcuCommand(*trace, { .kernel = "nope" }).error,
            std::string("no kernel named 'nope' in the capture (`gaplens-cli kernels` lists them)"));
        QCOMPARE(buildNcuCommand(*trace, { .kernel = "gemm", .instance = 0 }).error,
            std::string("launches are counted from 1: there is no launch 0"));
        QCOMPARE(buildNcuCommand(*trace, { .kernel = "other", .instance = 2 }).error,
            std::string("rank 0 launched 'other' once: there is no launch 2"));
    }

    // gaplens-mpi's steps: launchers united over processes that each hold some ranks, the rank
    // chosen over the capture's rank numbers, the command built where the rank is.
    void theStepsOverProcessesGiveTheWholeCommand()
    {
        const auto path = m_dir.filePath(QStringLiteral("gemm-steps.sqlite")).toStdString();
        writeGemmFixture(path, programOptions());
        const auto trace = load(path);
        const auto whole = ncuLaunchers(*trace, "gemm");
        QCOMPARE(whole.byShortName, (std::vector<std::int32_t> { 0, 1 }));
        QCOMPARE(whole.byDemangledName, std::vector<std::int32_t> {});
        QCOMPARE(
            ncuLaunchers(*trace, "void gemm<float>(float *)").byDemangledName, (std::vector<std::int32_t> { 0, 1 }));
        QCOMPARE(ncuLaunchers(*trace, "nope").byShortName, std::vector<std::int32_t> {});

        // As two processes would have them: rank 1's, then rank 0's, then rank 1's again.
        NcuLaunchers united;
        uniteNcuLaunchers(united, { { 1 }, {} });
        uniteNcuLaunchers(united, { { 0 }, { 5 } });
        uniteNcuLaunchers(united, { { 1 }, {} });
        QCOMPARE(united.byShortName, (std::vector<std::int32_t> { 0, 1 }));
        QCOMPARE(united.byDemangledName, std::vector<std::int32_t> { 5 });

        const std::vector<std::int32_t> numbers { 0, 1 };
        const NcuRequest request { .kernel = "gemm", .instance = 2 };
        const auto choice = chooseNcuRank(whole, request, numbers);
        QCOMPARE(choice.error, std::string());
        QCOMPARE(choice.rankNumber, 0);
        QVERIFY(!choice.demangled);
        QCOMPARE(buildNcuCommand(*trace, request, choice).commandLine, buildNcuCommand(*trace, request).commandLine);
        QCOMPARE(buildNcuCommand(*trace, request, choice).notes, buildNcuCommand(*trace, request).notes);

        // By the demangled name only when no rank launched it by its short name.
        const NcuRequest demangled { .kernel = "void gemm<float>(float *)" };
        QVERIFY(chooseNcuRank({ {}, { 1 } }, demangled, numbers).demangled);
        QCOMPARE(chooseNcuRank({ {}, { 1 } }, demangled, numbers).rankNumber, 1);
        QVERIFY(!chooseNcuRank({ { 0 }, { 1 } }, demangled, numbers).demangled);
        // The errors the whole command gives, from the launchers and rank numbers alone.
        QCOMPARE(chooseNcuRank({}, request, numbers).error,
            std::string("no kernel named 'gemm' in the capture (`gaplens-cli kernels` lists them)"));
        QCOMPARE(chooseNcuRank(whole, { .kernel = "gemm", .instance = 0 }, numbers).error,
            std::string("launches are counted from 1: there is no launch 0"));
        QCOMPARE(chooseNcuRank(whole, { .kernel = "gemm", .rankNumber = 7 }, numbers).error,
            std::string("no rank 7 in the capture"));
        QCOMPARE(chooseNcuRank({ { 0, 3 }, {} }, { .kernel = "gemm", .rankNumber = 1 }, { 0, 1, 3 }).error,
            std::string("rank 1 launched no kernel named 'gemm' (ranks 0, 3 did)"));
        // A choice whose rank this part does not hold is refused, not built on another rank.
        auto elsewhere = choice;
        elsewhere.rankNumber = 9;
        QCOMPARE(buildNcuCommand(*trace, request, elsewhere).error, std::string("no rank 9 in the capture"));
    }

    // gaplens-mpi's time shards of one report: each part holds the launches that start in it
    // and every rank of the report; the counts added up give the whole file's command.
    void theLaunchesOfTimeShardsAddUp()
    {
        const auto path = m_dir.filePath(QStringLiteral("gemm-shards.sqlite")).toStdString();
        writeGemmFixture(path, programOptions());
        const auto whole = load(path);
        // Rank 0's gemm launches start at 1000 | 2000 | 3000; rank 1's at 1500 | 2500 |.
        const auto parts = loadInWindows(path, windowsOf({ 1800, 2800 }));
        QCOMPARE(parts.size(), std::size_t(3));
        const NcuRequest request { .kernel = "gemm", .instance = 3 };
        const auto choice = chooseNcuRank(ncuLaunchers(*whole, request.kernel), request, { 0, 1 });
        QCOMPARE(choice.rankNumber, 0);
        NcuLaunchCount counted;
        for (const auto &part : parts) {
            QCOMPARE(part->ranks.size(), std::size_t(2));
            const auto own = ncuLaunchCount(*part, request, choice);
            QCOMPARE(own.launches, 1u);
            counted.launches += own.launches;
            counted.byStart = counted.byStart || own.byStart;
        }
        QCOMPARE(ncuLaunchCount(*whole, request, choice).launches, 3u);
        const auto expected = buildNcuCommand(*whole, request);
        QCOMPARE(expected.error, std::string());
        for (const auto &part : parts) {
            const auto fromPart = buildNcuCommand(*part, request, choice, counted);
            QCOMPARE(fromPart.error, std::string());
            QCOMPARE(ncuCommandText(fromPart), ncuCommandText(expected));
        }
        // Alone, a part knows only its own launch: the third is not there.
        QCOMPARE(buildNcuCommand(*parts[0], request, choice).error,
            std::string("rank 0 launched 'gemm' once: there is no launch 3"));

        // A part without a kernel of the name counts none (its strings lack the name, and the
        // empty string must not match unnamed kernels): rank 0's `other` starts in the last.
        const NcuRequest other { .kernel = "other" };
        const auto otherChoice = chooseNcuRank(ncuLaunchers(*whole, other.kernel), other, { 0, 1 });
        QCOMPARE(ncuLaunchCount(*parts[0], other, otherChoice).launches, 0u);
        QCOMPARE(ncuLaunchCount(*parts[2], other, otherChoice).launches, 1u);
        // A part that does not hold the chosen rank counts none.
        auto elsewhere = choice;
        elsewhere.rankNumber = 9;
        QCOMPARE(ncuLaunchCount(*whole, request, elsewhere).launches, 0u);
    }

    // One shard's launch without a correlation id orders every launch by start time: the
    // parts' orders are joined as the whole file's.
    void aShardsLaunchWithoutCorrelationIdOrdersAllByStart()
    {
        const auto path = m_dir.filePath(QStringLiteral("gemm-no-correlation.sqlite")).toStdString();
        {
            ExportWriter writer(path, programOptions());
            writer.addProcess(100, "python3");
            writer.addKernel({ .start = 1000,
                .end = 1100,
                .streamId = 7,
                .correlationId = 10,
                .pid = 100,
                .shortName = "gemm",
                .demangledName = "void gemm<float>(float *)" });
            writer.addKernel({ .start = 3000,
                .end = 3100,
                .streamId = 7,
                .correlationId = 0,
                .pid = 100,
                .shortName = "gemm",
                .demangledName = "void gemm<float>(float *)" });
            writer.finish();
        }
        const auto whole = load(path);
        const auto parts = loadInWindows(path, windowsOf({ 2000 }));
        const NcuRequest request { .kernel = "gemm", .instance = 2 };
        const auto choice = chooseNcuRank(ncuLaunchers(*whole, request.kernel), request, { 0 });
        const auto first = ncuLaunchCount(*parts[0], request, choice);
        const auto second = ncuLaunchCount(*parts[1], request, choice);
        QCOMPARE(first.launches, 1u);
        QVERIFY(!first.byStart);
        QCOMPARE(second.launches, 1u);
        QVERIFY(second.byStart);
        const NcuLaunchCount counted { 2, first.byStart || second.byStart };
        const auto expected = buildNcuCommand(*whole, request);
        QVERIFY(ncuCommandText(expected).find("GPU start times: some launches have no correlation id")
            != std::string::npos);
        QCOMPARE(ncuCommandText(buildNcuCommand(*parts[0], request, choice, counted)), ncuCommandText(expected));
    }

    void aDemangledNameIsMatchedAsDemangled()
    {
        const auto path = m_dir.filePath(QStringLiteral("gemm-demangled.sqlite")).toStdString();
        writeGemmFixture(path, programOptions());
        const auto trace = load(path);
        const auto ncu = buildNcuCommand(*trace, { .kernel = "void gemm<float>(float *)", .instance = 3 });
        QCOMPARE(ncu.error, std::string());
        QVERIFY(ncu.demangled);
        QCOMPARE(ncu.launchSkip, 2u);
        QVERIFY(
            ncu.commandLine.starts_with("ncu --kernel-name-base demangled --kernel-name 'void gemm<float>(float "
                                        "*)' --launch-skip 2 --launch-count 1 -o gaplens_void_gemm_float__float____3 "
                                        "python3 "));
    }

    void withoutMetaDataCaptureTheProgramIsAMarkedPlaceholder()
    {
        const auto path = m_dir.filePath(QStringLiteral("no-meta.sqlite")).toStdString();
        ExportWriter::Options options;
        options.writeCaptureMetadata = false;
        writeGemmFixture(path, options);
        QVERIFY(!SqlTestDb(path).hasTable("META_DATA_CAPTURE"));
        const auto trace = load(path);
        QVERIFY(trace->errors.empty());
        QVERIFY(!trace->reports[0].hasCaptureMetadata);
        const auto ncu = buildNcuCommand(*trace, { .kernel = "gemm" });
        QCOMPARE(ncu.error, std::string());
        QVERIFY(!ncu.programKnown);
        QCOMPARE(ncu.commandLine,
            std::string("ncu --kernel-name-base function --kernel-name gemm --launch-skip 0 --launch-count 1 -o "
                        "gaplens_gemm_1 <program> <args>"));
        QCOMPARE(ncu.notes[3],
            std::string("<program> <args> is a placeholder: the export has no META_DATA_CAPTURE table, so the program "
                        "and its arguments are not known; put them there."));
        QCOMPARE(ncu.notes[4],
            std::string("The working directory and the environment are not in the export: run it where and as the "
                        "program ran."));
    }

    void aMetaDataCaptureWithoutACommandSaysSo()
    {
        const auto path = m_dir.filePath(QStringLiteral("no-command.sqlite")).toStdString();
        writeGemmFixture(path, programOptions());
        execSql(path, "DELETE FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:COMMAND'");
        const auto trace = load(path);
        const auto ncu = buildNcuCommand(*trace, { .kernel = "gemm" });
        QVERIFY(!ncu.programKnown);
        QVERIFY(ncu.commandLine.ends_with(" -o gaplens_gemm_1 <program> <args>"));
        QCOMPARE(ncu.notes[3],
            std::string("<program> <args> is a placeholder: META_DATA_CAPTURE names no program (no PROCESS_<n>:COMMAND "
                        "row); put the profiled program and its arguments there."));
    }

    void aMissingArgumentRowIsSaidAndNULLsReadAsEmpty()
    {
        const auto path = m_dir.filePath(QStringLiteral("gap-in-args.sqlite")).toStdString();
        writeGemmFixture(path, programOptions());
        execSql(path,
            "DELETE FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:ARGUMENT_1';"
            "UPDATE META_DATA_CAPTURE SET value = NULL WHERE name = 'PROCESS_0:ARGUMENT_2';"
            "INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_x:COMMAND', 'not a program');");
        const auto trace = load(path);
        QVERIFY(trace->errors.empty());
        const auto &report = trace->reports[0];
        QCOMPARE(report.programs.size(), std::size_t(1));
        QCOMPARE(
            report.programs[0].arguments, (std::vector<std::string> { "train.py", "", "it's", "-k", "\"[a b]\"" }));
        QVERIFY(!report.programs[0].argumentsComplete);
        QVERIFY(std::find(report.warnings.begin(), report.warnings.end(),
                    "META_DATA_CAPTURE lacks an argument of PROCESS_0: its command line is incomplete")
            != report.warnings.end());
        const auto ncu = buildNcuCommand(*trace, { .kernel = "gemm" });
        QVERIFY(ncu.commandLine.ends_with(" python3 train.py '' 'it'\\''s' -k '\"[a b]\"'"));
        QCOMPARE(ncu.notes[4],
            std::string("META_DATA_CAPTURE lacks some of PROCESS_0's arguments: the command line is incomplete."));
    }

    void realExportsGiveTheCapturedProgramAndTheLaunchCount_data() { addFileRows(realExportFiles()); }
    void realExportsGiveTheCapturedProgramAndTheLaunchCount()
    {
        QFETCH(QString, file);
        const auto path = file.toStdString();
        SqlTestDb db(path);
        if (!db.hasTable("CUPTI_ACTIVITY_KIND_KERNEL")) {
            const auto trace = load(path);
            QVERIFY(trace->gpus.empty());
            return; // no kernel to hand off (the NVTX-only export)
        }
        // The most launched kernel of the first such process, by SQL.
        const auto top = db.rows(
            "SELECT k.globalPid, s.value, COUNT(*) AS n, MAX(k.correlationId) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
            "JOIN StringIds s ON s.id = k.shortName GROUP BY k.globalPid, s.value "
            "ORDER BY n DESC, k.globalPid, s.value LIMIT 1");
        QCOMPARE(top.size(), std::size_t(1));
        const auto pid = std::uint32_t((std::stoll(top[0][0]) >> 24) & 0xFFFFFF);
        const auto &name = top[0][1];
        const auto count = std::uint32_t(std::stoul(top[0][2]));
        const auto lastCorrelation = std::uint32_t(std::stoul(top[0][3]));

        const auto trace = load(path);
        QVERIFY(trace->errors.empty());
        const auto rank = findFirst(trace->ranks, [&](const Rank &r) { return r.pid == pid; });
        QVERIFY(rank);
        const auto ncu = buildNcuCommand(*trace, { .kernel = name, .instance = count, .rankNumber = rank->rank });
        QCOMPARE(ncu.error, std::string());
        QCOMPARE(ncu.launches, count);
        QCOMPARE(ncu.launchSkip, count - 1);

        std::string expected = fmt::format("ncu --kernel-name-base function --kernel-name {} --launch-skip {} "
                                           "--launch-count 1 -o {}",
            shellQuote(name), count - 1, ncuOutputName(name, count));
        const bool hasMeta = db.hasTable("META_DATA_CAPTURE");
        QCOMPARE(trace->reports[0].hasCaptureMetadata, hasMeta);
        if (hasMeta) {
            expected
                += " " + shellQuote(db.text("SELECT value FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:COMMAND'"));
            for (const auto &row : db.rows("SELECT value FROM META_DATA_CAPTURE WHERE name LIKE 'PROCESS_0:ARGUMENT_%' "
                                           "ORDER BY CAST(substr(name, 20) AS INTEGER)"))
                expected += " " + shellQuote(row[0]);
        } else {
            expected += " <program> <args>";
        }
        QCOMPARE(ncu.commandLine, expected);
        QCOMPARE(ncu.programKnown, hasMeta);

        // The launch with the highest correlation id is the last in launch order.
        bool found = false;
        for (std::uint32_t g = 0; g < trace->gpus.size(); ++g)
            for (std::uint32_t s = 0; s < trace->gpus[g].streams.size(); ++s) {
                const auto &stream = trace->gpus[g].streams[s];
                for (std::uint32_t i = 0; stream.pid == pid && i < stream.kernels.size(); ++i)
                    if (stream.kernels.correlationId[i] == lastCorrelation
                        && trace->str(stream.kernels.shortName[i]) == name) {
                        QCOMPARE(kernelInstance(*trace, g, s, i), count);
                        found = true;
                    }
            }
        QVERIFY(found);
    }

    void theH100CommandIsBashWithItsQuotedScript()
    {
        const auto path = realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY(!path.empty());
        const auto trace = load(path);
        const auto name = SqlTestDb(path).text(
            "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
            "ORDER BY k.start LIMIT 1");
        const auto ncu = buildNcuCommand(*trace, { .kernel = name });
        QCOMPARE(ncu.error, std::string());
        QVERIFY2(ncu.commandLine.ends_with(" bash -c 'pytest -vs --assert=plain "
                                           "./fastvideo/tests/performance/test_inference_performance.py -k "
                                           "\"[wan-t2v-1.3b-h100-sp2]\"'"),
            ncu.commandLine.c_str());
        QVERIFY(std::find(ncu.notes.begin(), ncu.notes.end(),
                    "Run it in the program's working directory at capture time: /FastVideo")
            != ncu.notes.end());
    }
};

QTEST_APPLESS_MAIN(TestNcuCommand)
#include "tst_ncu_command.moc"
