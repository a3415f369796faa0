// SPDX-License-Identifier: MIT
// The summaries' exact per-group statistics by repeated walks (analysis/grouped_duration_stats.h)
// against computeDurationStats over every group's durations kept in full, field by field, on
// distributions that drive each branch of the median's search.
#include "analysis/grouped_duration_stats.h"
#include "gaplens/core/analysis/duration_stats.h"
#include "testsupport.h"

#include <QTest>

#include <cstring>
#include <random>

using namespace gaplens::core;
using Groups = detail::GroupedDurationStats<int>;

namespace {

struct Event
{
    int group;
    TimeNs duration;
};

// Every figure equal to the one computed from the group's durations kept in full; the
// floating-point ones bit for bit (same order, same formula).
void compareWithKeptDurations(const std::vector<Event> &events, int groupCount, int *walks = nullptr)
{
    int calls = 0;
    const Groups groups(std::size_t(groupCount), [&](auto sink) {
        ++calls;
        for (const auto &e : events)
            sink(std::size_t(e.group), e.group, e.duration);
    });
    if (walks)
        *walks = calls;
    std::vector<std::vector<TimeNs>> kept(static_cast<std::size_t>(groupCount));
    TimeNs total = 0;
    for (const auto &e : events) {
        kept[std::size_t(e.group)].push_back(e.duration);
        total += e.duration;
    }
    QCOMPARE(groups.total(), total);
    QCOMPARE(groups.count(), std::uint64_t(events.size()));
    int built = 0;
    groups.build([&](int group, const DurationStats &s, double) {
        ++built;
        const DurationStats expected = computeDurationStats(kept[std::size_t(group)]);
        const QByteArray where = "group " + QByteArray::number(group);
        QVERIFY2(s.count == expected.count, where);
        QVERIFY2(s.totalNs == expected.totalNs, where);
        QVERIFY2(s.minNs == expected.minNs, where);
        QVERIFY2(s.maxNs == expected.maxNs, where);
        QVERIFY2(std::memcmp(&s.avgNs, &expected.avgNs, sizeof(double)) == 0, where);
        QVERIFY2(std::memcmp(&s.medianNs, &expected.medianNs, sizeof(double)) == 0,
            where + ": median " + QByteArray::number(s.medianNs, 'f', 1) + " instead of "
                + QByteArray::number(expected.medianNs, 'f', 1));
        QVERIFY2(std::memcmp(&s.stddevNs, &expected.stddevNs, sizeof(double)) == 0, where);
    });
    int nonEmpty = 0;
    for (const auto &k : kept)
        nonEmpty += k.empty() ? 0 : 1;
    QCOMPARE(built, nonEmpty);
}

} // namespace

class TestGroupedDurationStats : public QObject
{
    Q_OBJECT

private slots:
    void smallGroupsAreCollectedOnce()
    {
        std::mt19937_64 random(1);
        std::vector<Event> events;
        for (int i = 0; i < 20000; ++i)
            events.push_back({ int(random() % 97), TimeNs(random() % 1'000'000) });
        int walks = 0;
        CHECK(compareWithKeptDurations(events, 97, &walks));
        // Counting, then collecting: no group is larger than kCollect.
        QCOMPARE(walks, 2);
    }

    void largeGroupsNarrowToTheMiddleRanks()
    {
        std::mt19937_64 random(2);
        std::lognormal_distribution<double> spread(10.0, 2.0);
        std::vector<Event> events;
        for (int i = 0; i < 300001; ++i) // an odd and an even group
            events.push_back({ i % 2, TimeNs(spread(random)) });
        int walks = 0;
        CHECK(compareWithKeptDurations(events, 2, &walks));
        QVERIFY(walks >= 3);
        QVERIFY(walks <= 10);
    }

    void oneValueAmongOutliersNarrowsToAOneNanosecondRange()
    {
        // 100,000 launches of 1000 ns and three of about a second: every bin but the first is
        // nearly empty, and the middle ranks share one value.
        std::vector<Event> events(100000, Event { 0, 1000 });
        events.push_back({ 0, 999'999'999 });
        events.push_back({ 0, 1'000'000'000 });
        events.push_back({ 0, 7 });
        int walks = 0;
        CHECK(compareWithKeptDurations(events, 1, &walks));
        QVERIFY(walks <= 10);
    }

    void theTwoMiddleRanksInDistantBins()
    {
        // An even count split between two far values (1 ns and 1000 s): the median is their mean.
        std::vector<Event> events;
        for (int i = 0; i < 50000; ++i) {
            events.push_back({ 0, 1 });
            events.push_back({ 0, 1'000'000'000'000 });
        }
        CHECK(compareWithKeptDurations(events, 1));
    }

    void groupsAtTheCollectLimitAndJustAbove()
    {
        std::mt19937_64 random(3);
        std::vector<Event> events;
        for (std::uint64_t i = 0; i < Groups::kCollect; ++i)
            events.push_back({ 0, TimeNs(random() % 5000) });
        for (std::uint64_t i = 0; i <= Groups::kCollect; ++i)
            events.push_back({ 1, TimeNs(random() % 5000) });
        CHECK(compareWithKeptDurations(events, 2));
    }

    void fewDistinctValuesManyTimes()
    {
        std::mt19937_64 random(4);
        std::vector<Event> events;
        for (int i = 0; i < 200000; ++i)
            events.push_back({ i % 3, TimeNs(5 + random() % 3) });
        CHECK(compareWithKeptDurations(events, 3));
    }

    void negativeAndHugeDurationsStayExact()
    {
        // Nonsense times: a range of 8e18 ns must not overflow the bins. The pairs of -4e18 and
        // +4e18 keep every partial total within int64.
        std::mt19937_64 random(5);
        std::vector<Event> events;
        for (int i = 0; i < 2500; ++i) {
            events.push_back({ 0, -4'000'000'000'000'000'000 });
            events.push_back({ 0, 4'000'000'000'000'000'000 });
        }
        for (int i = 0; i < 20001; ++i)
            events.push_back({ 0, TimeNs(random() % 2'000'000'000'000) - 1'000'000'000'000 });
        CHECK(compareWithKeptDurations(events, 1));
    }

    void noEventsNoGroups()
    {
        int walks = 0;
        CHECK(compareWithKeptDurations({}, 4, &walks));
        QCOMPARE(walks, 2);
    }
};

QTEST_APPLESS_MAIN(TestGroupedDurationStats)
#include "tst_grouped_duration_stats.moc"
