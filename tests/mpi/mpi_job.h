// SPDX-License-Identifier: MIT
#pragma once
// What the MPI suites share: a gaplens-mpi job under mpirun, the real exports' paths, the
// synthetic captures they run on, and the check that a job prints what gaplens-cli prints at
// P = 1 to 4. GAPLENS_MPIEXEC and GAPLENS_MPI_PATH come from tests/mpi/CMakeLists.txt.
#include "cli_runner.h"
#include "synth_sample.h"
#include "testsupport.h"

#include <QProcess>
#include <QStringList>
#include <QTest>

namespace gaplens::test {

inline CliRun runMpi(int processes, const QStringList &args, const QStringList &environment = {})
{
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    // Under the asan-ubsan preset, ASan and UBSan check gaplens-mpi but LeakSanitizer does not:
    // Open MPI leaves allocations at exit (MPI_Init's, and its progress thread's in a component
    // it has unloaded by then, so no suppression can name it). Leaks in the code gaplens-mpi
    // shares are checked by the other suites, which run the same core and commands.
    if (env.contains(QStringLiteral("ASAN_OPTIONS")))
        env.insert(QStringLiteral("ASAN_OPTIONS"),
            env.value(QStringLiteral("ASAN_OPTIONS")) + QStringLiteral(":detect_leaks=0"));
    // Every job here runs on one machine, where Open MPI's ob1 (over shared memory) is the
    // transport; the default, UCX, probes for networks first: 0.44 s against 0.22 s a job at
    // P = 4, and the two suites run over 1,000 jobs. A caller's own choice is kept.
    if (!env.contains(QStringLiteral("OMPI_MCA_pml")))
        env.insert(QStringLiteral("OMPI_MCA_pml"), QStringLiteral("ob1"));
    for (const auto &entry : environment)
        env.insert(entry.section(QLatin1Char('='), 0, 0), entry.section(QLatin1Char('='), 1));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(GAPLENS_MPIEXEC),
        QStringList { QStringLiteral("--allow-run-as-root"), QStringLiteral("--oversubscribe"), QStringLiteral("-np"),
            QString::number(processes), QStringLiteral(GAPLENS_MPI_PATH) }
            + args);
    if (!p.waitForFinished(120000))
        p.kill();
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        p.readAllStandardError() };
}

inline QStringList realInputs(const QString &relative)
{
    const auto dir = QString::fromStdString(realDataDir());
    QStringList inputs;
    for (const auto &part : relative.split(QLatin1Char(' ')))
        inputs << dir + QLatin1Char('/') + part;
    return inputs;
}

// The synthetic captures both suites run on, each in a temporary folder of its own.
struct MpiTestCaptures
{
    SynthSample synth; // 16 ranks
    SynthSample single; // one rank, one large file: split into time shards
    SynthSample phases; // four ranks with checkpoints, validation and data waits (throughput)
    SynthSample shorterPhases; // three ranks of the same kind, fewer steps
    SynthSample onePhases; // one rank of that kind, in one file: throughput in time shards

    bool write()
    {
        auto large = synthOptions(1, 300);
        large.jitter = 0.2; // distinct durations: the medians take the histogram passes
        large.scaleRuntimePerRank = 12000;
        large.scaleNvtxPerRank = 12000;
        return synth.write(synthOptions(16, 6)) && single.write(large)
            && phases.write(core::withRunPhases(synthOptions(4, 48)))
            && shorterPhases.write(core::withRunPhases(synthOptions(3, 40)))
            && onePhases.write(core::withRunPhases(synthOptions(1, 48)));
    }
};

// Runs the command with gaplens-mpi at P = 1..4: the exit status and stdout are gaplens-cli's
// (`cli`); with `inParts`, stderr starts with gaplens-cli's (mpirun adds its own lines about
// the status after the root's messages) and the command was not run whole.
inline void matchesAtEveryProcessCount(const QStringList &args, const CliRun &cli, bool inParts = false)
{
    for (int processes = 1; processes <= 4; ++processes) {
        const auto mpi = runMpi(processes, args);
        QVERIFY2(mpi.exitCode == cli.exitCode,
            qPrintable(QStringLiteral("P=%1: exit %2, gaplens-cli %3\n%4")
                           .arg(processes)
                           .arg(mpi.exitCode)
                           .arg(cli.exitCode)
                           .arg(QString::fromUtf8(mpi.err))));
        QVERIFY2(mpi.out == cli.out, qPrintable(QStringLiteral("P=%1: output differs").arg(processes)));
        if (inParts) {
            QVERIFY2(mpi.err.startsWith(cli.err), mpi.err.constData());
            QVERIFY2(!mpi.err.contains("process 0 runs it alone"), mpi.err.constData());
        }
    }
}

// Runs the command with gaplens-cli once and with gaplens-mpi at P = 1..4.
inline void compareAtEveryProcessCount(const QStringList &args)
{
    const auto cli = runCli(args);
    QVERIFY2(cli.exitCode == 0 || cli.exitCode == 1, cli.err.constData());
    QVERIFY(!cli.out.isEmpty());
    matchesAtEveryProcessCount(args, cli);
}

} // namespace gaplens::test
