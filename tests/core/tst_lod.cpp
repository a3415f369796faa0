// SPDX-License-Identifier: MIT
#include "gaplens/core/model/nesting.h"
#include "gaplens/core/view/lod.h"

#include <QTest>

#include <random>

using namespace gaplens::core;

namespace {

struct Row
{
    std::vector<TimeNs> start, end;
    RowView view() const { return RowView { start, end, {} }; }
};

// n non-overlapping events with random lengths and random gaps, sorted.
Row randomRow(std::size_t n, unsigned seed, TimeNs maxLen = 5'000, TimeNs maxGap = 20'000)
{
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<TimeNs> len(0, maxLen), gap(0, maxGap);
    Row row;
    row.start.reserve(n);
    row.end.reserve(n);
    TimeNs t = 1'000'000;
    for (std::size_t i = 0; i < n; ++i) {
        t += gap(rng);
        row.start.push_back(t);
        t += len(rng);
        row.end.push_back(t);
    }
    return row;
}

// The first event of each item drawn of `row` in `window`, in order.
std::vector<std::uint32_t> drawnFirsts(const Row &row, const ViewWindow &window)
{
    std::vector<DrawItem> items;
    buildDrawList(row.view(), window, items);
    std::vector<std::uint32_t> firsts;
    for (const auto &item : items)
        firsts.push_back(item.first);
    return firsts;
}

// Checks the draw list invariants against a brute-force scan of the row.
void checkInvariants(const RowView &row, const ViewWindow &w, const std::vector<DrawItem> &items, double minPx)
{
    std::size_t firstVisible = row.size(), visibleCount = 0;
    for (std::size_t p = 0; p < row.size(); ++p)
        if ((row.endAt(p) > w.start || (row.startAt(p) == row.endAt(p) && row.startAt(p) >= w.start))
            && row.startAt(p) < w.end) {
            firstVisible = std::min(firstVisible, p);
            ++visibleCount;
        }
    std::size_t sum = 0;
    std::size_t expectedPos = firstVisible;
    const double minNs = std::max(1.0, std::round(minPx * w.nsPerPx()));
    for (const auto &item : items) {
        QCOMPARE(std::size_t(item.first), expectedPos); // consecutive: nothing skipped, nothing twice
        QCOMPARE(item.count, item.last - item.first + 1);
        QCOMPARE(item.start, row.startAt(item.first));
        QCOMPARE(item.end, row.endAt(item.last));
        if (item.count == 1 && item.end - item.start >= minNs)
            QVERIFY(true); // a wide event: drawn alone
        for (std::uint32_t p = item.first; p <= item.last && item.folded(); ++p)
            QVERIFY2(double(row.endAt(p) - row.startAt(p)) < minNs, "a folded event must be narrower than minPx");
        expectedPos = item.last + 1;
        sum += item.count;
    }
    QCOMPARE(sum, visibleCount);
}

} // namespace

class TestLod : public QObject
{
    Q_OBJECT
private slots:
    void foldedItemsCoverEveryVisibleEventOnce_data()
    {
        QTest::addColumn<unsigned>("seed");
        QTest::addColumn<double>("fromFraction");
        QTest::addColumn<double>("toFraction");
        QTest::addColumn<double>("widthPx");
        QTest::newRow("full view") << 1u << -0.01 << 1.01 << 1000.0;
        QTest::newRow("middle tenth") << 2u << 0.45 << 0.55 << 800.0;
        QTest::newRow("deep zoom") << 3u << 0.5 << 0.5001 << 1920.0;
        QTest::newRow("narrow widget") << 4u << 0.0 << 1.0 << 7.0;
        QTest::newRow("left edge") << 5u << -0.5 << 0.1 << 500.0;
        QTest::newRow("right edge") << 6u << 0.9 << 1.5 << 500.0;
    }
    void foldedItemsCoverEveryVisibleEventOnce()
    {
        QFETCH(unsigned, seed);
        QFETCH(double, fromFraction);
        QFETCH(double, toFraction);
        QFETCH(double, widthPx);
        const Row row = randomRow(20'000, seed);
        const TimeNs t0 = row.start.front(), span = row.end.back() - t0;
        const ViewWindow w { t0 + TimeNs(fromFraction * double(span)), t0 + TimeNs(toFraction * double(span)),
            widthPx };
        std::vector<DrawItem> items;
        buildDrawList(row.view(), w, items);
        QVERIFY(!items.empty());
        checkInvariants(row.view(), w, items, kMinVisiblePx);
        for (std::size_t i = 1; i < items.size(); ++i)
            QVERIFY(items[i - 1].end <= items[i].start); // ordered, never overlapping
    }

    void fullZoomOutOfAMillionEventsYieldsAtMostWidthItems()
    {
        const Row row = randomRow(1'000'000, 42, 3'000, 3'000);
        const ViewWindow w { row.start.front(), row.end.back(), 1920.0 };
        std::vector<DrawItem> items;
        buildDrawList(row.view(), w, items);
        QVERIFY2(items.size() <= 1920, qPrintable(QString::number(items.size())));
        QVERIFY(items.size() >= 1);
        std::size_t sum = 0;
        for (const auto &item : items)
            sum += item.count;
        QCOMPARE(sum, std::size_t(1'000'000));
        QVERIFY(items.front().folded());
        QCOMPARE(items.front().first, 0u);
        QCOMPARE(items.back().last, 999'999u);
    }

    void windowEdgesExcludeEventsThatOnlyTouchThem()
    {
        const Row row { { 0, 100, 200, 300 }, { 100, 200, 300, 400 } };
        // [100, 300): event 0 ends at 100 (outside), event 3 starts at 300 (outside).
        QCOMPARE(drawnFirsts(row, { 100, 300, 200 }), (std::vector<std::uint32_t> { 1, 2 }));
        // A window inside one event shows that event alone.
        std::vector<DrawItem> items;
        buildDrawList(row.view(), ViewWindow { 150, 160, 100 }, items);
        QCOMPARE(items.size(), std::size_t(1));
        QCOMPARE(items[0].first, 1u);
        QVERIFY(!items[0].folded());
        // A window between rows' events, before and after everything: nothing.
        QVERIFY(drawnFirsts(row, { -50, 0, 100 }).empty());
        QVERIFY(drawnFirsts(row, { 400, 500, 100 }).empty());
        // Degenerate windows.
        QVERIFY(drawnFirsts(row, { 0, 400, 0 }).empty());
        QVERIFY(drawnFirsts(row, { 300, 100, 100 }).empty());
    }

    void anInstantAtTheLeftEdgeIsInsideAndAtTheRightEdgeOutside()
    {
        // Marks (start == end) at 100, 200, 300 beside an interval [50, 100) ending at 100.
        const Row row { { 50, 100, 200, 300 }, { 100, 100, 200, 300 } };
        // [100, 300): the interval only touches it, the instant at 100 is in, the one at 300 out.
        QCOMPARE(drawnFirsts(row, { 100, 300, 200 }), (std::vector<std::uint32_t> { 1, 2 }));
        QCOMPARE(visibleRange(row.view(), 100, 300).first, std::size_t(1));
        QCOMPARE(visibleRange(row.view(), 100, 301).last, std::size_t(4));
        QCOMPARE(visibleRange(row.view(), 101, 301).first, std::size_t(2));
    }

    void aVisibleGapSplitsFolds()
    {
        // Two clusters of 100 events of 1 ns each, 10 us apart; 1 px = 100 ns.
        Row row;
        for (int c = 0; c < 2; ++c)
            for (int i = 0; i < 100; ++i) {
                row.start.push_back(c * 10'000 + i * 2);
                row.end.push_back(c * 10'000 + i * 2 + 1);
            }
        std::vector<DrawItem> items;
        buildDrawList(row.view(), ViewWindow { 0, 20'000, 200 }, items);
        QCOMPARE(items.size(), std::size_t(2));
        QCOMPARE(items[0].count, 100u);
        QCOMPARE(items[1].count, 100u);
        QCOMPARE(items[1].first, 100u);
        QCOMPARE(items[0].end, TimeNs(199));
    }

    void wideEventsAreNeverFolded()
    {
        Row row;
        row.start = { 0, 1000, 1001, 1002, 1003, 5000 };
        row.end = { 900, 1001, 1002, 1003, 4000, 9000 };
        std::vector<DrawItem> items;
        buildDrawList(row.view(), ViewWindow { 0, 10'000, 100 }, items); // 100 ns per px, minNs 300
        QCOMPARE(items.size(), std::size_t(4));
        QVERIFY(!items[0].folded());
        QCOMPARE(items[1].first, 1u);
        QCOMPARE(items[1].last, 3u);
        QCOMPARE(items[2].first, 4u); // 3 us wide
        QVERIFY(!items[2].folded());
        QCOMPARE(items[3].first, 5u);
    }

    void indexedRowsFollowTheirNestingLevel()
    {
        // Outer ranges with nested children: level 1 holds the children only.
        std::vector<TimeNs> start { 0, 10, 20, 100, 110 };
        std::vector<TimeNs> end { 50, 15, 30, 200, 190 };
        NestingIndex nesting;
        const auto depth = nesting.build(start, end);
        QCOMPARE(depth[1], std::uint8_t(1));
        QCOMPARE(nesting.levelCount(), std::size_t(2));
        const RowView level1 { start, end, nesting.level(1) };
        std::vector<DrawItem> items;
        buildDrawList(level1, ViewWindow { 0, 200, 2000 }, items); // 0.1 ns per px: all wide
        QCOMPARE(items.size(), std::size_t(3));
        QCOMPARE(level1.at(items[0].first), 1u);
        QCOMPARE(level1.at(items[2].first), 4u);
        QCOMPARE(items[2].start, TimeNs(110));
    }

    void drawListOfAWindowIgnoresEventsOutsideIt()
    {
        // Frame cost is measured by the benchmark (tests/bench); here the behaviour behind it:
        // the items for a small window over 2M events equal those over only the events near
        // it, so nothing outside the window is visited or changes the result.
        const Row row = randomRow(2'000'000, 7, 1'000, 1'000);
        const std::size_t mid = 1'000'000;
        const ViewWindow window { row.start[mid], row.start[mid] + 10'000, 1000 };
        std::vector<DrawItem> items;
        buildDrawList(row.view(), window, items);

        Row near;
        const std::size_t from = mid - 100, to = mid + 100; // 200 events span far more than 10 us
        near.start.assign(row.start.begin() + from, row.start.begin() + to);
        near.end.assign(row.end.begin() + from, row.end.begin() + to);
        std::vector<DrawItem> nearItems;
        buildDrawList(near.view(), window, nearItems);

        QVERIFY(!items.empty() && items.size() < 20);
        QCOMPARE(items.size(), nearItems.size());
        for (std::size_t i = 0; i < items.size(); ++i) {
            QCOMPARE(items[i].start, nearItems[i].start);
            QCOMPARE(items[i].end, nearItems[i].end);
            QCOMPARE(items[i].count, nearItems[i].count);
            QCOMPARE(items[i].first, nearItems[i].first + std::uint32_t(from));
        }
        checkInvariants(row.view(), window, items, kMinVisiblePx);
    }

    void unionOfRowsMergesOverlappingStreams()
    {
        std::vector<TimeNs> s1 { 0, 100, 500 }, e1 { 50, 200, 600 };
        std::vector<TimeNs> s2 { 40, 200, 700 }, e2 { 60, 300, 800 };
        const RowView rows[] = { { s1, e1, {} }, { s2, e2, {} } };
        std::vector<TimeNs> us, ue;
        unionOfRows(rows, us, ue);
        QCOMPARE(us, (std::vector<TimeNs> { 0, 100, 500, 700 }));
        QCOMPARE(ue, (std::vector<TimeNs> { 60, 300, 600, 800 }));
    }
};

QTEST_APPLESS_MAIN(TestLod)
#include "tst_lod.moc"
