// SPDX-License-Identifier: MIT
// gaplens-cli nvtx, api and ranks end to end on real exports, against SQL: the figures the GUI's
// NVTX and CUDA API summary panels and its Ranks dialog show (they call the same core functions).
#include "cli_runner.h"
#include "sqltestdb.h"
#include "testsupport.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <map>
#include <regex>

using namespace gaplens::test;

namespace {

struct Figures
{
    qint64 count = 0, total = 0, min = 0, max = 0;
};

// name -> figures from rows of (name, count, total, min, max).
std::map<std::string, Figures> figuresOf(const std::vector<std::vector<std::string>> &rows)
{
    std::map<std::string, Figures> out;
    for (const auto &r : rows)
        out[r.at(0)] = { std::stoll(r.at(1)), std::stoll(r.at(2)), std::stoll(r.at(3)), std::stoll(r.at(4)) };
    return out;
}

void compareRows(const QJsonArray &rows, const char *countKey, const std::map<std::string, Figures> &expected)
{
    QCOMPARE(std::size_t(rows.size()), expected.size());
    for (const auto &v : rows) {
        const auto row = v.toObject();
        const auto name = row[QStringLiteral("name")].toString().toStdString();
        QVERIFY2(expected.count(name), name.c_str());
        const auto &e = expected.at(name);
        QCOMPARE(row[QLatin1String(countKey)].toInteger(), e.count);
        QCOMPARE(row[QStringLiteral("total_ns")].toInteger(), e.total);
        QCOMPARE(row[QStringLiteral("min_ns")].toInteger(), e.min);
        QCOMPARE(row[QStringLiteral("max_ns")].toInteger(), e.max);
    }
}

} // namespace

class TestCliSummaries : public QObject
{
    Q_OBJECT

    std::string m_h100;

private slots:
    void initTestCase()
    {
        m_h100 = realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY(!m_h100.empty());
    }

    // PyTorch's per-call names grouped: everything before ", op_id = " in SQL.
    void nvtxEqualsSqlGroups()
    {
        const auto run = runCli({ QStringLiteral("nvtx"), QStringLiteral("--format"), QStringLiteral("json"),
            QString::fromStdString(m_h100) });
        QCOMPARE(run.exitCode, 0);
        SqlTestDb db(m_h100);
        CHECK(compareRows(json(run)[QStringLiteral("ranges")].toArray(), "instances",
            figuresOf(db.rows("SELECT CASE WHEN instr(text, ', op_id = ') > 1 THEN substr(text, 1, instr(text, ', "
                              "op_id = ') - 1) ELSE text END, count(*), sum(end - start), min(end - start), "
                              "max(end - start) FROM NVTX_EVENTS GROUP BY 1"))));
    }

    // CUDA API calls by name without nsys' "_vNNNN" suffix.
    void apiEqualsSqlByName()
    {
        const auto run = runCli({ QStringLiteral("api"), QStringLiteral("--format"), QStringLiteral("json"),
            QString::fromStdString(m_h100) });
        QCOMPARE(run.exitCode, 0);
        SqlTestDb db(m_h100);
        std::map<std::string, Figures> expected;
        const std::regex suffix("_v[0-9]+$");
        for (const auto &r : db.rows("SELECT s.value, r.end - r.start FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN "
                                     "StringIds s ON s.id = r.nameId")) {
            auto &e = expected[std::regex_replace(r.at(0), suffix, "")];
            const qint64 d = std::stoll(r.at(1));
            e.min = e.count ? std::min(e.min, d) : d;
            e.max = e.count ? std::max(e.max, d) : d;
            e.total += d;
            ++e.count;
        }
        CHECK(compareRows(json(run)[QStringLiteral("calls")].toArray(), "calls", expected));
    }

    // Each rank from PMI_RANK in its report's environment; --rank-map moves two of them and
    // says so, as the Ranks dialog's Apply does.
    void ranksSayHowEachRankWasDecided()
    {
        const auto ring = QString::fromStdString(realFile("ring_6ranks"));
        QVERIFY(!ring.isEmpty());
        const auto run = runCli({ QStringLiteral("ranks"), QStringLiteral("--format"), QStringLiteral("json"), ring });
        QCOMPARE(run.exitCode, 0);
        const auto ranks = json(run)[QStringLiteral("ranks")].toArray();
        QCOMPARE(ranks.size(), 6);
        QString rank0File, rank1File;
        for (const auto &v : ranks) {
            const auto r = v.toObject();
            const auto file = r[QStringLiteral("file")].toString();
            SqlTestDb db(file.toStdString());
            const auto env = db.text("SELECT value FROM META_DATA_CAPTURE WHERE value LIKE 'PMI_RANK=%'");
            QCOMPARE(r[QStringLiteral("rank_source")].toString(), QStringLiteral("environment"));
            QCOMPARE(r[QStringLiteral("rank_detail")].toString().toStdString(), env);
            QCOMPARE("PMI_RANK=\"" + std::to_string(r[QStringLiteral("rank")].toInt()) + "\"", env);
            if (r[QStringLiteral("rank")].toInt() == 0)
                rank0File = file;
            if (r[QStringLiteral("rank")].toInt() == 1)
                rank1File = file;
        }
        QVERIFY(!rank0File.isEmpty() && !rank1File.isEmpty());
        const auto swapped = runCli({ QStringLiteral("ranks"), QStringLiteral("--format"), QStringLiteral("json"),
            QStringLiteral("--rank-map"), QFileInfo(rank0File).fileName() + QStringLiteral("=1"),
            QStringLiteral("--rank-map"), QFileInfo(rank1File).fileName() + QStringLiteral("=0"), ring });
        QCOMPARE(swapped.exitCode, 0);
        const auto after = json(swapped)[QStringLiteral("ranks")].toArray();
        QCOMPARE(after[0].toObject()[QStringLiteral("file")].toString(), rank1File);
        QCOMPARE(after[0].toObject()[QStringLiteral("rank_source")].toString(), QStringLiteral("override"));
        QCOMPARE(after[0].toObject()[QStringLiteral("rank_detail")].toString(), QStringLiteral("set by the user"));
        QCOMPARE(after[1].toObject()[QStringLiteral("file")].toString(), rank0File);
        QCOMPARE(after[2].toObject()[QStringLiteral("rank_source")].toString(), QStringLiteral("environment"));
    }
};

QTEST_APPLESS_MAIN(TestCliSummaries)
#include "tst_cli_summaries.moc"
