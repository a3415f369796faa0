// SPDX-License-Identifier: MIT
// The NVTX and CUDA API summaries (gaplens-cli nvtx / api, the GUI's summary panels) on a real
// export against an independent SQL computation: PyTorch's per-call names grouped, each group's
// calls, a rank's share and a window.
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/read/loader.h"
#include "sqltestdb.h"
#include "testsupport.h"

#include <QTest>

#include <cmath>
#include <map>
#include <regex>

using namespace gaplens::core;
using gaplens::test::SqlTestDb;

namespace {

// count, total, min, max of one name, as SQL gives them.
struct Expected
{
    std::int64_t count = 0, total = 0, min = 0, max = 0;
};

std::map<std::string, Expected> expectedOf(const SqlTestDb &db, const std::string &sql)
{
    std::map<std::string, Expected> out;
    for (const auto &row : db.rows(sql))
        out[row.at(0)] = { std::stoll(row.at(1)), std::stoll(row.at(2)), std::stoll(row.at(3)), std::stoll(row.at(4)) };
    return out;
}

void compareStats(const std::string &name, const DurationStats &stats, const Expected &e)
{
    QVERIFY2(std::int64_t(stats.count) == e.count, name.c_str());
    QVERIFY2(stats.totalNs == e.total, name.c_str());
    QVERIFY2(stats.minNs == e.min, name.c_str());
    QVERIFY2(stats.maxNs == e.max, name.c_str());
}

// The group of a PyTorch per-call name in SQL: everything before ", op_id = " (the only
// per-call field this export has; the test checks that).
const char *kGroupSql = "CASE WHEN instr(text, ', op_id = ') > 1 THEN substr(text, 1, instr(text, ', op_id = ') - 1) "
                        "ELSE text END";

std::string nvtxGroupsSql(const std::string &where)
{
    return std::string("SELECT ") + kGroupSql
        + ", count(*), sum(end - start), min(end - start), max(end - start) FROM NVTX_EVENTS WHERE eventType = 59 "
        + where + " GROUP BY 1";
}

} // namespace

class TestSummariesReal : public QObject
{
    Q_OBJECT

    std::string m_file;
    std::shared_ptr<TraceSet> m_trace;

private slots:
    void initTestCase()
    {
        m_file = gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY(!m_file.empty());
        LoadOptions options;
        options.files = { m_file };
        m_trace = loadTraceSet(options);
        QVERIFY(m_trace->errors.empty());
        SqlTestDb db(m_file);
        QCOMPARE(db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE eventType <> 59 OR text IS NULL OR end IS NULL"),
            std::int64_t(0));
        QCOMPARE(
            db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE text LIKE '%, seq = %' OR text LIKE '%, sizes = %'"),
            std::int64_t(0));
    }

    void nvtxGroupsEqualSql()
    {
        SqlTestDb db(m_file);
        const auto expected = expectedOf(db, nvtxGroupsSql(""));
        const auto s = summarizeNvtx(*m_trace, {}, NvtxCalls::Listed);
        QCOMPARE(s.rows.size(), expected.size());
        // 16,582 distinct names in 176 groups.
        QVERIFY(std::int64_t(s.rows.size()) * 50 < db.integer("SELECT count(DISTINCT text) FROM NVTX_EVENTS"));
        QCOMPARE(std::int64_t(s.instances), db.integer("SELECT count(*) FROM NVTX_EVENTS"));
        QCOMPARE(s.totalNs, db.integer("SELECT sum(end - start) FROM NVTX_EVENTS"));
        for (const auto &row : s.rows) {
            const auto &name = m_trace->str(row.name);
            QVERIFY2(expected.count(name), name.c_str());
            CHECK(compareStats(name, row.stats, expected.at(name)));
            QCOMPARE(row.kind, NvtxKind::PushPop);
            QCOMPARE(row.percent, 100.0 * double(row.stats.totalNs) / double(s.totalNs));
        }
    }

    // Each group's children are its distinct per-call names, with their own figures.
    void everyGroupListsItsPerCallNames()
    {
        SqlTestDb db(m_file);
        const auto calls = expectedOf(db,
            "SELECT text, count(*), sum(end - start), min(end - start), max(end - start) FROM NVTX_EVENTS "
            "WHERE instr(text, ', op_id = ') > 1 GROUP BY text");
        const auto s = summarizeNvtx(*m_trace, {}, NvtxCalls::Listed);
        std::size_t listed = 0;
        for (const auto &row : s.rows) {
            const auto &group = m_trace->str(row.name);
            const auto perGroup = db.integer(std::string("SELECT count(DISTINCT text) FROM NVTX_EVENTS WHERE ")
                + kGroupSql + " = '" + group + "' AND text <> '" + group + "'");
            QCOMPARE(std::int64_t(row.calls.size()), perGroup);
            std::uint64_t count = 0;
            for (std::size_t i = 0; i < row.calls.size(); ++i) {
                const auto &call = row.calls[i];
                const auto &name = m_trace->str(call.name);
                QVERIFY2(name.starts_with(group + ", op_id = "), name.c_str());
                CHECK(compareStats(name, call.stats, calls.at(name)));
                if (i > 0) // total desc
                    QVERIFY(row.calls[i - 1].stats.totalNs >= call.stats.totalNs);
                count += call.stats.count;
            }
            // The calls plus the ranges named the group itself make the group.
            const auto own = db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE text = '" + group + "'");
            QCOMPARE(std::int64_t(count) + own, std::int64_t(row.stats.count));
            listed += row.calls.size();
        }
        QCOMPARE(listed, calls.size());
        // Without asking for them, no calls are listed (what the CLI prints).
        for (const auto &row : summarizeNvtx(*m_trace).rows)
            QVERIFY(row.calls.empty());
    }

    // Median and standard deviation of the largest group, from its durations in SQL.
    void largestGroupsMedianAndStddevEqualSql()
    {
        SqlTestDb db(m_file);
        const auto s = summarizeNvtx(*m_trace);
        const auto &top = s.rows.front();
        const auto d = db.ints(std::string("SELECT end - start FROM NVTX_EVENTS WHERE ") + kGroupSql + " = '"
            + m_trace->str(top.name) + "' ORDER BY 1");
        QVERIFY(d.size() > 2);
        const std::size_t n = d.size();
        const double median = n % 2 ? double(d[n / 2][0]) : (double(d[n / 2 - 1][0]) + double(d[n / 2][0])) / 2;
        double mean = 0, sq = 0;
        for (const auto &v : d)
            mean += double(v[0]) / double(n);
        for (const auto &v : d)
            sq += (double(v[0]) - mean) * (double(v[0]) - mean);
        QCOMPARE(top.stats.medianNs, median);
        QVERIFY(std::abs(top.stats.stddevNs - std::sqrt(sq / double(n - 1))) < 1e-6 * top.stats.stddevNs);
    }

    // A rank's scope is its process's threads; a window takes the ranges that start in it.
    void rankScopeAndWindowEqualSql()
    {
        SqlTestDb db(m_file);
        const auto &rank = m_trace->ranks[1];
        SummaryOptions options;
        options.ranks = RankSelection::only({ 1 });
        const auto offset = m_trace->reports[rank.report].timeOffsetNs;
        const auto mid = (m_trace->span.start + m_trace->span.end) / 2;
        options.window = TimeRange { m_trace->span.start, mid };
        const auto where = " AND (globalTid >> 24) % 16777216 = " + std::to_string(rank.pid) + " AND start < "
            + std::to_string(mid - offset);
        const auto expected = expectedOf(db, nvtxGroupsSql(where));
        const auto s = summarizeNvtx(*m_trace, options);
        QCOMPARE(s.rows.size(), expected.size());
        QVERIFY(!s.rows.empty());
        for (const auto &row : s.rows)
            CHECK(compareStats(m_trace->str(row.name), row.stats, expected.at(m_trace->str(row.name))));
    }

    // CUDA API calls by name with nsys' version suffix ("_v7000") dropped, every call counted.
    void apiSummaryEqualsSql()
    {
        SqlTestDb db(m_file);
        std::map<std::string, std::vector<std::int64_t>> byName;
        const std::regex suffix("_v[0-9]+$");
        for (const auto &row : db.rows("SELECT s.value, r.end - r.start FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                                       "JOIN StringIds s ON s.id = r.nameId"))
            byName[std::regex_replace(row.at(0), suffix, "")].push_back(std::stoll(row.at(1)));
        const auto s = summarizeApi(*m_trace);
        QCOMPARE(s.rows.size(), byName.size());
        QCOMPARE(std::int64_t(s.instances), db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
        for (const auto &row : s.rows) {
            const auto &name = m_trace->str(row.name);
            auto d = byName.at(name);
            std::sort(d.begin(), d.end());
            std::int64_t total = 0;
            for (auto v : d)
                total += v;
            CHECK(compareStats(name, row.stats, { std::int64_t(d.size()), total, d.front(), d.back() }));
            const std::size_t n = d.size();
            QCOMPARE(row.stats.medianNs, n % 2 ? double(d[n / 2]) : (double(d[n / 2 - 1]) + double(d[n / 2])) / 2);
        }
        QCOMPARE(m_trace->str(s.rows.front().name).empty(), false);
    }
};

QTEST_APPLESS_MAIN(TestSummariesReal)
#include "tst_summaries_real.moc"
