// SPDX-License-Identifier: MIT
// divideFiles: every file goes to exactly one process, the loads follow the longest
// processing time rule, and spare processes get nothing.
#include "gaplens/core/read/work_division.h"

#include <QTest>

#include <algorithm>
#include <numeric>

using namespace gaplens::core;
using Files = std::vector<std::vector<std::size_t>>;

class TestWorkDivision : public QObject
{
    Q_OBJECT

private slots:
    void equalFilesGoRoundTheProcesses()
    {
        QCOMPARE(divideFiles({ 10, 10, 10, 10, 10, 10 }, 3), (Files { { 0, 3 }, { 1, 4 }, { 2, 5 } }));
        QCOMPARE(divideFiles({ 10, 10, 10, 10, 10, 10 }, 1), (Files { { 0, 1, 2, 3, 4, 5 } }));
    }

    void bigFilesAreSpreadFirst()
    {
        // 100 and 90 go to processes 0 and 1; then 60 to 1 (90 < 100), 50 to 0 (100 < 150),
        // and the two 10s to 0 (150) and 1 (150 + 10 > 150: 0 is lower after the first).
        QCOMPARE(divideFiles({ 50, 100, 10, 90, 60, 10 }, 2), (Files { { 0, 1, 2 }, { 3, 4, 5 } }));
    }

    void moreProcessesThanFilesLeaveSomeIdle()
    {
        QCOMPARE(divideFiles({ 5, 7 }, 4), (Files { { 1 }, { 0 }, {}, {} }));
        QCOMPARE(divideFiles({}, 2), (Files { {}, {} }));
    }

    void everyFileOnceAndTheBusiestWithinFourThirds()
    {
        std::vector<std::uint64_t> rows;
        for (std::uint64_t i = 0; i < 97; ++i)
            rows.push_back((i * 7919) % 1000 + 1);
        for (std::size_t p : { 1u, 2u, 3u, 5u, 16u }) {
            const auto files = divideFiles(rows, p);
            std::vector<int> seen(rows.size(), 0);
            std::uint64_t busiest = 0;
            for (const auto &mine : files) {
                QVERIFY(std::is_sorted(mine.begin(), mine.end()));
                std::uint64_t load = 0;
                for (auto f : mine) {
                    ++seen[f];
                    load += rows[f];
                }
                busiest = std::max(busiest, load);
            }
            QVERIFY(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
            const auto total = std::accumulate(rows.begin(), rows.end(), std::uint64_t(0));
            const auto largest = *std::max_element(rows.begin(), rows.end());
            // The optimum is at least the mean load and at least the largest file.
            const auto lowerBound = std::max<std::uint64_t>((total + p - 1) / p, largest);
            QVERIFY2(busiest * 3 <= lowerBound * 4,
                qPrintable(QString("P=%1: %2 vs %3").arg(p).arg(busiest).arg(lowerBound)));
        }
    }

    void saturatesInsteadOfWrapping()
    {
        const auto files = divideFiles({ UINT64_MAX, UINT64_MAX, 1 }, 2);
        QCOMPARE(files, (Files { { 0, 2 }, { 1 } }));
    }

    void noProcessIsAnError() { QVERIFY_THROWS_EXCEPTION(std::invalid_argument, divideFiles({ 1 }, 0)); }
};

QTEST_APPLESS_MAIN(TestWorkDivision)
#include "tst_work_division.moc"
