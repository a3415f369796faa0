// SPDX-License-Identifier: MIT
// The fold index (fold_index.h) must not change what is drawn: for any row meeting
// buildDrawList's contract and any window, the draw list built with the index equals the one
// built without it. Rows are random but seeded: runs of tiny events, long events, long idle stretches,
// zero-length events, plain rows and rows selected through an index list (a nesting level).
#include "gaplens/core/view/fold_index.h"
#include "gaplens/core/view/lod.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace gaplens;
using core::TimeNs;

namespace {

struct Row
{
    std::vector<TimeNs> start, end;
};

// Non-overlapping events sorted by start. Durations and holes are drawn from a mix of scales,
// in bursts, so that every zoom sees both folds and single events.
Row randomRow(std::size_t n, std::uint32_t seed)
{
    std::mt19937_64 rng(seed);
    auto pick = [&](std::initializer_list<TimeNs> scales) {
        std::uniform_int_distribution<std::size_t> which(0, scales.size() - 1);
        const TimeNs scale = *(scales.begin() + which(rng));
        return std::uniform_int_distribution<TimeNs>(0, scale)(rng);
    };
    Row row;
    TimeNs t = 1'000'000'000;
    for (std::size_t i = 0; i < n; ++i) {
        const bool burst = (i / 500) % 3 != 0;
        t += burst ? pick({ 0, 10, 200 }) : pick({ 0, 1'000, 50'000, 5'000'000 });
        row.start.push_back(t);
        t += burst ? pick({ 0, 50, 300 }) : pick({ 100, 20'000, 2'000'000 });
        row.end.push_back(t);
    }
    return row;
}

std::vector<core::ViewWindow> windows(const Row &row, std::uint32_t seed)
{
    std::mt19937_64 rng(seed);
    const TimeNs first = row.start.front(), last = row.end.back();
    std::vector<core::ViewWindow> out = {
        { first, last, 1920 }, // everything
        { first - 1000, last + 1000, 300 }, { first, first + 1, 1000 }, // one nanosecond
    };
    for (int i = 0; i < 200; ++i) {
        const TimeNs span
            = TimeNs(double(last - first) * std::pow(10.0, -std::uniform_real_distribution<double>(0, 6)(rng)));
        const TimeNs start = first + std::uniform_int_distribution<TimeNs>(-span / 2, last - first)(rng);
        out.push_back(
            { start, start + std::max<TimeNs>(1, span), double(std::uniform_int_distribution<int>(50, 4000)(rng)) });
    }
    return out;
}

bool sameItems(const std::vector<core::DrawItem> &a, const std::vector<core::DrawItem> &b, QString &why)
{
    if (a.size() != b.size()) {
        why = QStringLiteral("%1 items instead of %2").arg(a.size()).arg(b.size());
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].start != b[i].start || a[i].end != b[i].end || a[i].first != b[i].first || a[i].last != b[i].last
            || a[i].count != b[i].count) {
            why = QStringLiteral("item %1: [%2..%3] x%4 instead of [%5..%6] x%7")
                      .arg(i)
                      .arg(a[i].first)
                      .arg(a[i].last)
                      .arg(a[i].count)
                      .arg(b[i].first)
                      .arg(b[i].last)
                      .arg(b[i].count);
            return false;
        }
    return true;
}

} // namespace

class TestFoldIndex : public QObject
{
    Q_OBJECT
private slots:
    void indexedDrawListsEqualCoresOnEveryWindow_data()
    {
        QTest::addColumn<int>("events");
        QTest::addColumn<bool>("throughIndexList");
        QTest::addColumn<double>("minPx");
        QTest::newRow("tiny row (no index)") << 40 << false << 3.0;
        QTest::newRow("just below the index size") << 255 << false << 3.0;
        QTest::newRow("two levels") << 20'000 << false << 3.0;
        QTest::newRow("three levels") << 300'000 << false << 3.0;
        QTest::newRow("three levels, 1 px") << 300'000 << false << 1.0;
        QTest::newRow("nesting level (index list)") << 100'000 << true << 3.0;
    }
    void indexedDrawListsEqualCoresOnEveryWindow()
    {
        QFETCH(int, events);
        QFETCH(bool, throughIndexList);
        QFETCH(double, minPx);
        Row row = randomRow(std::size_t(events), std::uint32_t(events));
        // An index list picks every other event of a row twice as long, as a nesting level does.
        Row doubled;
        std::vector<std::uint32_t> level;
        if (throughIndexList) {
            for (std::size_t i = 0; i < row.start.size(); ++i) {
                doubled.start.push_back(row.start[i]);
                doubled.end.push_back(row.end[i]);
                level.push_back(std::uint32_t(doubled.start.size() - 1));
                doubled.start.push_back(row.start[i]); // a nested child, not on this level
                doubled.end.push_back(row.start[i]);
            }
        }
        const Row &columns = throughIndexList ? doubled : row;
        const core::RowView view { columns.start, columns.end, level };
        const core::FoldIndex index(view);
        QCOMPARE(index.isEmpty(), events < 256);
        std::vector<core::DrawItem> expected, actual;
        std::size_t folds = 0, singles = 0;
        for (const auto &w : windows(row, 7)) {
            core::buildDrawList(view, w, expected, minPx);
            core::buildDrawList(view, w, actual, minPx, &index);
            QString why;
            QVERIFY2(sameItems(actual, expected, why),
                qPrintable(
                    QStringLiteral("window [%1, %2) over %3 px: ").arg(w.start).arg(w.end).arg(w.widthPx) + why));
            for (const auto &item : actual)
                (item.folded() ? folds : singles) += 1;
        }
        // The windows exercised both kinds of items.
        QVERIFY(folds > 0);
        QVERIFY(singles > 0);
    }

    void aFullWidthFoldIsFoundWithoutVisitingItsEvents()
    {
        // One million 1 ns events 2 ns apart: at full zoom-out a single fold. Through the index
        // the fold's end is found by climbing the maxima (core's loop needs ~width/3 searches).
        Row row;
        for (TimeNs i = 0; i < 1'000'000; ++i) {
            row.start.push_back(2 * i);
            row.end.push_back(2 * i + 1);
        }
        const core::RowView view { row.start, row.end, {} };
        const core::FoldIndex index(view);
        std::vector<core::DrawItem> items;
        core::buildDrawList(view, { 0, 2'000'000, 1920 }, items, core::kMinVisiblePx, &index);
        QCOMPARE(items.size(), std::size_t(1));
        QCOMPARE(items[0].count, 1'000'000u);
        QCOMPARE(items[0].end, TimeNs(1'999'999));
        // A hole of 3 px or more splits it exactly there.
        for (std::size_t i = 500'000; i < row.start.size(); ++i) {
            row.start[i] += 10'000;
            row.end[i] += 10'000;
        }
        const core::FoldIndex split(core::RowView { row.start, row.end, {} });
        core::buildDrawList(
            core::RowView { row.start, row.end, {} }, { 0, 2'010'000, 1920 }, items, core::kMinVisiblePx, &split);
        QCOMPARE(items.size(), std::size_t(2));
        QCOMPARE(items[0].last, 499'999u);
        QCOMPARE(items[1].first, 500'000u);
    }
};

QTEST_APPLESS_MAIN(TestFoldIndex)
#include "tst_fold_index.moc"
