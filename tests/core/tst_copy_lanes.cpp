// SPDX-License-Identifier: MIT
// The timeline's copy lanes: one per (process, stream), packed into rows without overlap, on
// hand-built columns and on every real export (each copy in exactly one row of its own lane).
#include "gaplens/core/model/copy_lanes.h"
#include "testsupport.h"
#include "trace_counts.h"

#include <QTest>

#include <vector>

using namespace gaplens::core;

class TestCopyLanes : public QObject
{
    Q_OBJECT
private slots:
    void aLanePerProcessAndStreamWithARowPerOverlap()
    {
        // Sorted by start: stream 13 [0,10) [5,8) [10,20) [12,30); stream 14 [2,4); pid 9 stream 13 [3,6).
        const std::vector<std::uint32_t> pid { 7, 7, 7, 9, 7, 7 };
        const std::vector<std::uint32_t> stream { 13, 14, 13, 13, 13, 13 };
        const std::vector<TimeNs> start { 0, 2, 3, 5, 10, 12 };
        const std::vector<TimeNs> end { 10, 4, 6, 8, 20, 30 };
        // Copy 2 ([3,6) on 7/13) overlaps copy 0: a second row; copy 4 starts as copy 0 ends
        // (row 0 is free again); copy 5 overlaps copy 4 and takes row 1 again.
        const auto lanes = buildCopyLanes(pid, stream, start, end);
        QCOMPARE(lanes.lanes.size(), std::size_t(3));
        QCOMPARE(lanes.lanes[0].pid, 7u);
        QCOMPARE(lanes.lanes[0].streamId, 13u);
        QCOMPARE(lanes.lanes[0].firstRow, 0u);
        QCOMPARE(lanes.lanes[0].rowCount, 2u);
        QCOMPARE(lanes.lanes[1].streamId, 14u);
        QCOMPARE(lanes.lanes[1].firstRow, 2u);
        QCOMPARE(lanes.lanes[1].rowCount, 1u);
        QCOMPARE(lanes.lanes[2].pid, 9u);
        QCOMPARE(lanes.lanes[2].firstRow, 3u);
        QCOMPARE(lanes.rowCount(), std::size_t(4));
        QCOMPARE(lanes.rows[0], (std::vector<std::uint32_t> { 0, 4 }));
        QCOMPARE(lanes.rows[1], (std::vector<std::uint32_t> { 2, 5 }));
        QCOMPARE(lanes.rows[2], (std::vector<std::uint32_t> { 1 }));
        QCOMPARE(lanes.rows[3], (std::vector<std::uint32_t> { 3 }));
        QCOMPARE(lanes.rowOf, (std::vector<std::uint32_t> { 0, 2, 1, 3, 0, 1 }));
        QVERIFY(buildCopyLanes({}, {}, {}, {}).lanes.empty());
    }

    // Every copy of every real export is in one row of the lane of its process and stream,
    // rows never overlap, and a lane has as many rows as the most copies open at once on it.
    void everyCopyIsInOneRowOfItsLaneOnRealExports()
    {
        std::vector<std::string> files;
        gaplens::test::listRealExports(files, 14);
        std::size_t checked = 0;
        for (const auto &file : files) {
            const auto trace = gaplens::test::load({ file });
            for (const auto &gpu : trace->gpus) {
                const auto &c = gpu.copies;
                const auto &lanes = c.lanes;
                std::vector<int> seen(c.size(), 0);
                for (const auto &lane : lanes.lanes) {
                    std::uint32_t mostOpen = 0;
                    for (auto r = lane.firstRow; r < lane.firstRow + lane.rowCount; ++r) {
                        const auto &row = lanes.rows[r];
                        QVERIFY(!row.empty());
                        for (std::size_t k = 0; k < row.size(); ++k) {
                            const auto i = row[k];
                            ++seen[i];
                            QCOMPARE(c.pid[i], lane.pid);
                            QCOMPARE(c.streamId[i], lane.streamId);
                            QCOMPARE(lanes.rowOf[i], r);
                            if (k > 0)
                                QVERIFY(c.start[i] >= c.end[row[k - 1]]);
                        }
                    }
                    // The most copies of the lane open at one start.
                    for (std::uint32_t i = 0; i < c.size(); ++i) {
                        if (c.pid[i] != lane.pid || c.streamId[i] != lane.streamId)
                            continue;
                        std::uint32_t open = 0;
                        for (std::uint32_t j = 0; j < c.size(); ++j)
                            open += c.pid[j] == lane.pid && c.streamId[j] == lane.streamId && c.start[j] <= c.start[i]
                                && c.end[j] > c.start[i];
                        mostOpen = std::max(mostOpen, open);
                    }
                    QCOMPARE(lane.rowCount, std::max(mostOpen, 1u));
                }
                for (const int n : seen)
                    QCOMPARE(n, 1);
                checked += c.size();
            }
        }
        QVERIFY(checked > 0);
    }
};

QTEST_APPLESS_MAIN(TestCopyLanes)
#include "tst_copy_lanes.moc"
