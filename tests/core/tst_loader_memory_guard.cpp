// SPDX-License-Identifier: MIT
// A capture larger than memory fails up front with a message naming the files, the estimate
// and the limit, instead of swapping the machine and failing later.
#include "gaplens/core/loader.h"
#include "gaplens/core/synth.h"

#include <QTemporaryDir>
#include <QTest>

#include <string>

using namespace gaplens::core;

class TestLoaderMemoryGuard : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    SynthResult m_capture;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        SynthOptions options;
        options.ranks = 2;
        options.steps = 3;
        m_capture = writeSyntheticCapture(m_dir.path().toStdString(), options);
    }

    void estimateCountsEveryKeptRow()
    {
        const auto estimate = estimateLoad(m_capture.files);
        std::uint64_t rows = 0;
        for (const auto &t : m_capture.ranks)
            rows += t.kernels + t.memcpys + t.memsets + t.runtimeCalls + t.backtraceRows + t.nvtxRanges + t.nvtxMarks
                + t.nvtxDomains;
        // Plus the StringIds rows, a few dozen per file.
        QVERIFY2(estimate.rows > rows && estimate.rows < rows + 200, std::to_string(estimate.rows).c_str());
        QVERIFY(estimate.bytes > estimate.rows * 32);
    }

    void tinyLimitFailsBeforeLoadingWithAClearMessage()
    {
        LoadOptions options;
        options.files = {m_dir.path().toStdString()};
        options.memoryLimitBytes = 1000;
        const auto trace = loadTraceSet(options);
        QCOMPARE(trace->errors.size(), std::size_t(1));
        QVERIFY(trace->ranks.empty());
        QVERIFY(trace->gpus.empty());
        const auto &message = trace->errors[0].message;
        QVERIFY2(message.find("too large to load") != std::string::npos, message.c_str());
        for (const auto &file : m_capture.files)
            QVERIFY2(message.find(file) != std::string::npos, message.c_str());
        QVERIFY2(message.find("estimated") != std::string::npos, message.c_str());
        QVERIFY2(message.find("the limit is 1000 B") != std::string::npos, message.c_str());
    }

    void limitAboveTheEstimateLoads()
    {
        LoadOptions options;
        options.files = m_capture.files;
        options.memoryLimitBytes = estimateLoad(m_capture.files).bytes;
        const auto trace = loadTraceSet(options);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->ranks.size(), std::size_t(2));
    }

    void unreadableFilesDoNotCountAndStillReportTheirOwnError()
    {
        const auto missing = m_dir.filePath(QStringLiteral("missing.sqlite")).toStdString();
        QCOMPARE(estimateLoad({missing}).rows, std::uint64_t(0));
        LoadOptions options;
        options.files = {missing};
        options.memoryLimitBytes = 1000;
        const auto trace = loadTraceSet(options);
        QCOMPARE(trace->errors.size(), std::size_t(1));
        QVERIFY2(trace->errors[0].message.find("does not exist") != std::string::npos,
                 trace->errors[0].message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestLoaderMemoryGuard)
#include "tst_loader_memory_guard.moc"
