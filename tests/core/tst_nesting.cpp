// SPDX-License-Identifier: MIT
// NestingIndex::openAt and the analyses' galloping twin (openAtFrom) answer "which intervals
// are open at t, outermost first" exactly as a scan over every interval does, on properly
// nested tracks (where both stop at the first level with nothing open) and on tracks whose
// intervals cross (where they must not).
#include "gaplens/core/model/nesting.h"

#include "analysis/search_cursor.h"

#include <QTest>

#include <algorithm>
#include <random>
#include <vector>

using namespace gaplens::core;

namespace {

struct Track
{
    std::vector<TimeNs> start, end;
};

// Push/pop discipline: every interval ends within the one it started in. Some of zero length.
Track nestedTrack(std::mt19937 &random, int count)
{
    Track t;
    std::vector<TimeNs> openEnds; // ends of the open intervals, innermost last
    TimeNs now = 0;
    while (int(t.start.size()) < count) {
        now += TimeNs(random() % 20);
        while (!openEnds.empty() && openEnds.back() <= now)
            openEnds.pop_back();
        const TimeNs limit = openEnds.empty() ? now + 1000 : openEnds.back();
        const TimeNs end = now + TimeNs(random() % std::uint64_t(limit - now + 1));
        t.start.push_back(now);
        t.end.push_back(end);
        if (end > now)
            openEnds.push_back(end);
    }
    return t;
}

// Start/end ranges: mostly nested, but every 40th outlives the interval it started in.
Track crossingTrack(std::mt19937 &random, int count)
{
    Track t = nestedTrack(random, count);
    for (std::size_t i = 0; i < t.end.size(); i += 40)
        t.end[i] += 1 + TimeNs(random() % 200);
    return t;
}

// Every interval open at t, by depth (levels hold disjoint intervals: at most one per level).
std::vector<std::uint32_t> openByScan(const Track &t, std::span<const std::uint8_t> depth, TimeNs at)
{
    std::vector<std::uint32_t> open;
    for (std::uint32_t i = 0; i < t.start.size(); ++i)
        if (t.start[i] <= at && at < t.end[i])
            open.push_back(i);
    std::stable_sort(open.begin(), open.end(), [&](auto a, auto b) { return depth[a] < depth[b]; });
    return open;
}

} // namespace

class TestNesting : public QObject
{
    Q_OBJECT

    void compareWithScan(const Track &track, bool expectNested)
    {
        NestingIndex nesting;
        const auto depth = nesting.build(track.start, track.end);
        QCOMPARE(nesting.properlyNested(), expectNested);
        QVERIFY(nesting.levelCount() > 3); // deep enough for the early stop to matter
        // Below the clamp, where levels may overlap (a data problem of its own).
        QVERIFY(nesting.levelCount() < NestingIndex::kMaxDepth);

        std::mt19937 random(11);
        const TimeNs last = track.end.empty() ? 0 : *std::max_element(track.end.begin(), track.end.end());
        std::vector<TimeNs> times;
        for (int i = 0; i < 3000; ++i)
            times.push_back(TimeNs(random() % std::uint64_t(last + 10)) - 5);
        for (const TimeNs s : track.start) // boundaries: at a start, at an end
            if (times.size() < 6000)
                times.push_back(s);
        times.push_back(track.end[track.end.size() / 2]);

        // In ascending order (how the analyses query) and in random order, one cursor each.
        auto ascending = times;
        std::sort(ascending.begin(), ascending.end());
        for (const auto *order : { &ascending, &times }) {
            std::vector<std::uint32_t> positions, plain, galloped;
            for (const TimeNs at : *order) {
                const auto expected = openByScan(track, depth, at);
                nesting.openAt(track.start, track.end, at, plain);
                QCOMPARE(plain, expected);
                detail::openAtFrom(nesting, track.start, track.end, at, positions, galloped);
                QCOMPARE(galloped, expected);
            }
        }
    }

private slots:
    void nestedTrackAnswersAsAScan()
    {
        std::mt19937 random(3);
        compareWithScan(nestedTrack(random, 3000), true);
    }

    void crossingTrackAnswersAsAScan()
    {
        // Level 0 may have nothing open while a deeper level does: no early stop here.
        std::mt19937 random(5);
        compareWithScan(crossingTrack(random, 3000), false);
    }

    void crossingIsDetected()
    {
        // [0,10) holds [5,20): the inner one outlives it. At 15 only level 1 is open.
        const std::vector<TimeNs> start { 0, 5 }, end { 10, 20 };
        NestingIndex nesting;
        nesting.build(start, end);
        QVERIFY(!nesting.properlyNested());
        std::vector<std::uint32_t> open;
        nesting.openAt(start, end, 15, open);
        QCOMPARE(open, std::vector<std::uint32_t> { 1 });
    }
};

QTEST_GUILESS_MAIN(TestNesting)
#include "tst_nesting.moc"
