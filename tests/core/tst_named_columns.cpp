// SPDX-License-Identifier: MIT
// The reader's column lists come from one name list per table: a missing optional column
// reads as NULL, a missing required one names itself, and the SELECT follows the enum.
#include "read/named_columns.h"

#include <QTest>

using namespace gaplens::core::detail;

namespace gaplens::core::detail {
enum class SampleColumn { Start, Label, Extra, Count };
template <>
inline constexpr ColumnList<SampleColumn> kColumnNames<SampleColumn> = { {
    { SampleColumn::Start, "start" },
    { SampleColumn::Label, "label", ColumnNeed::Required, ColumnKind::Text },
    { SampleColumn::Extra, "extra", ColumnNeed::Optional },
} };
static_assert(namesFollowEnumOrder<SampleColumn>());
} // namespace gaplens::core::detail

class TestNamedColumns : public QObject
{
    Q_OBJECT

private slots:
    void columnsFollowTheEnumAndAMissingOptionalOneIsNull()
    {
        std::string_view missing;
        const auto columns = scanColumns<SampleColumn>({ "label", "start", "other" }, missing);
        QVERIFY(columns.has_value());
        QCOMPARE(columns->size(), std::size_t(SampleColumn::Count));
        QCOMPARE((*columns)[std::size_t(SampleColumn::Start)].name, std::string("start"));
        QVERIFY(!(*columns)[std::size_t(SampleColumn::Start)].text);
        QCOMPARE((*columns)[std::size_t(SampleColumn::Label)].name, std::string("label"));
        QVERIFY((*columns)[std::size_t(SampleColumn::Label)].text);
        QCOMPARE((*columns)[std::size_t(SampleColumn::Extra)].name, std::string()); // reads as NULL
        QVERIFY(missing.empty());
        QCOMPARE(selectSql("T", *columns), std::string("SELECT \"start\", \"label\", NULL FROM \"T\""));
    }

    void aMissingRequiredColumnIsNamed()
    {
        std::string_view missing;
        QVERIFY(!scanColumns<SampleColumn>({ "start", "extra" }, missing));
        QCOMPARE(missing, std::string_view("label"));
    }
};

QTEST_APPLESS_MAIN(TestNamedColumns)
#include "tst_named_columns.moc"
