// SPDX-License-Identifier: MIT
// The summaries' exact per-group statistics by repeated walks (analysis/grouped_duration_stats.h)
// against computeDurationStats over every group's durations kept in full, field by field, on
// distributions that drive each branch of the median's search.
#include "analysis/grouped_duration_stats.h"
#include "gaplens/core/analysis/duration_stats.h"
#include "testsupport.h"
#include "thread_parts.h"

#include <QTest>

#include <cstring>
#include <random>
#include <string>

using namespace gaplens::core;
using Groups = detail::GroupedDurationStats<int>;

namespace {

struct Event
{
    int group;
    TimeNs duration;
};

bool sameBits(const DurationStats &a, const DurationStats &b)
{
    return a.count == b.count && a.totalNs == b.totalNs && a.minNs == b.minNs && a.maxNs == b.maxNs
        && std::memcmp(&a.avgNs, &b.avgNs, sizeof(double)) == 0
        && std::memcmp(&a.medianNs, &b.medianNs, sizeof(double)) == 0
        && std::memcmp(&a.stddevNs, &b.stddevNs, sizeof(double)) == 0;
}

// Group keys for computing in parts: a group's number as text, and back (its slot is itself).
struct NumberKeys
{
    std::string text(int group) const { return std::to_string(group); }
    std::pair<std::size_t, int> find(const std::string &text) const
    {
        const int group = std::stoi(text);
        return { std::size_t(group), group };
    }
};

// The same events dealt over `partCount` parts (event i to part i % partCount): every part
// gets every group of the whole, with the whole's figures bit for bit, in the keys' text order.
void compareInParts(const std::vector<Event> &events, int groupCount, std::size_t partCount)
{
    const Groups whole(std::size_t(groupCount), [&](auto sink) {
        for (const auto &e : events)
            sink(std::size_t(e.group), e.group, e.duration);
    });
    std::vector<std::pair<int, DurationStats>> expected;
    whole.build([&](int group, const DurationStats &s, double) { expected.push_back({ group, s }); });
    std::sort(expected.begin(), expected.end(),
        [](const auto &a, const auto &b) { return std::to_string(a.first) < std::to_string(b.first); });

    std::vector<std::vector<std::pair<int, DurationStats>>> got(partCount);
    std::vector<TimeNs> totals(partCount);
    gaplens::test::ThreadParts(partCount).run([&](std::size_t part, const PartsReduction &parts) {
        const Groups groups(
            std::size_t(groupCount),
            [&](auto sink) {
                for (std::size_t i = part; i < events.size(); i += partCount)
                    sink(std::size_t(events[i].group), events[i].group, events[i].duration);
            },
            parts, NumberKeys());
        totals[part] = groups.total();
        groups.build([&](int group, const DurationStats &s, double) { got[part].push_back({ group, s }); });
    });
    for (std::size_t part = 0; part < partCount; ++part) {
        const QByteArray where
            = "part " + QByteArray::number(qulonglong(part)) + " of " + QByteArray::number(qulonglong(partCount));
        QVERIFY2(totals[part] == whole.total(), where);
        QVERIFY2(got[part].size() == expected.size(), where);
        for (std::size_t g = 0; g < expected.size(); ++g) {
            QVERIFY2(got[part][g].first == expected[g].first, where);
            QVERIFY2(sameBits(got[part][g].second, expected[g].second),
                where + ", group " + QByteArray::number(expected[g].first) + ": median "
                    + QByteArray::number(got[part][g].second.medianNs, 'f', 1) + " instead of "
                    + QByteArray::number(expected[g].second.medianNs, 'f', 1));
        }
    }
}

// Every figure equal to the one computed from the group's durations kept in full; the
// floating-point ones bit for bit (the same exact moments, the same median). The same again
// computed in 2, 3 and 5 parts.
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
    for (const std::size_t parts : { 2, 3, 5 })
        CHECK(compareInParts(events, groupCount, parts));
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
        QCOMPARE(walks, 1); // counting finds nothing to search
    }

    void aGroupOnlyOnePartHas()
    {
        // Events 0, 5, 10, ... (part 0 of 5) are the only ones of group 7, and part 4 has
        // none of group 0: each part still lists both, with the whole capture's figures.
        std::mt19937_64 random(6);
        std::vector<Event> events;
        for (int i = 0; i < 50000; ++i)
            events.push_back({ i % 5 == 0 ? 7 : (i % 5 == 4 ? 1 : 0), TimeNs(random() % 100'000) });
        CHECK(compareInParts(events, 8, 5));
    }

    void morePartsThanEvents()
    {
        const std::vector<Event> events { { 0, 10 }, { 1, 20 }, { 0, 30 } };
        CHECK(compareInParts(events, 2, 5));
    }
};

QTEST_APPLESS_MAIN(TestGroupedDurationStats)
#include "tst_grouped_duration_stats.moc"
