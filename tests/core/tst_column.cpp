// SPDX-License-Identifier: MIT
// Column<T> (model/column.h): a column that views bytes someone else owns keeps them alive,
// leaves them as they are when made, and never writes or frees them: a copy owns its items, a
// move keeps the view, and growing moves the items to storage of the column's own.
#include "gaplens/core/model/column.h"

#include <QTest>

#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

using namespace gaplens::core;

namespace {

// Stands for a mapped entry: items the column must neither change nor free.
std::shared_ptr<std::vector<std::int64_t>> mappedItems(std::size_t count)
{
    auto items = std::make_shared<std::vector<std::int64_t>>(count);
    std::iota(items->begin(), items->end(), 100);
    return items;
}

} // namespace

class TestColumn : public QObject
{
    Q_OBJECT

private slots:
    void aViewIsTheMappedItems()
    {
        auto items = mappedItems(1000);
        const auto *first = items->data();
        std::weak_ptr<std::vector<std::int64_t>> watch = items;
        {
            auto column = viewColumn<std::int64_t>(first, items->size(), items);
            items.reset(); // the column alone keeps them now
            QVERIFY(!watch.expired());
            QCOMPARE(column.size(), std::size_t(1000));
            QCOMPARE(column.data(), first); // no copy
            QVERIFY(isMappedColumn(column));
            QCOMPARE(column.front(), std::int64_t(100)); // not zero-filled when made
            QCOMPARE(column.back(), std::int64_t(1099));
        }
        QVERIFY(watch.expired()); // released with the column, never freed by it
    }

    void aCopyOwnsItsItems()
    {
        auto items = mappedItems(10);
        const auto column = viewColumn<std::int64_t>(items->data(), items->size(), items);
        Column<std::int64_t> copy = column;
        QVERIFY(!isMappedColumn(copy));
        QVERIFY(copy.data() != items->data());
        QCOMPARE(copy, column);
        copy[0] = -1;
        QCOMPARE((*items)[0], std::int64_t(100));
    }

    void aMoveKeepsTheView()
    {
        auto items = mappedItems(10);
        auto column = viewColumn<std::int64_t>(items->data(), items->size(), items);
        Column<std::int64_t> moved = std::move(column);
        QCOMPARE(moved.data(), items->data());
        QVERIFY(isMappedColumn(moved));
        Column<std::int64_t> assigned;
        assigned = std::move(moved);
        QCOMPARE(assigned.data(), items->data());
        Column<std::int64_t> swapped;
        swapped.swap(assigned);
        QCOMPARE(swapped.data(), items->data());
        QVERIFY(assigned.empty());
        // A moved-from column grows in storage of its own, never into the view again.
        assigned.resize(10);
        QVERIFY(assigned.data() != items->data());
        QCOMPARE(assigned, Column<std::int64_t>(10, 0));
    }

    void growingLeavesTheMappedItemsAlone()
    {
        auto items = mappedItems(8);
        auto column = viewColumn<std::int64_t>(items->data(), items->size(), items);
        column.push_back(7);
        QVERIFY(!isMappedColumn(column));
        QCOMPARE(column.size(), std::size_t(9));
        QCOMPARE(column[0], std::int64_t(100));
        QCOMPARE(column[8], std::int64_t(7));
        column.resize(20); // value-initialised in storage of its own
        QCOMPARE(column[19], std::int64_t(0));
        QCOMPARE(*items, *mappedItems(8));
    }

    void anOwnedColumnIsAPlainVector()
    {
        Column<std::int64_t> column(5);
        QCOMPARE(column, Column<std::int64_t>(5, 0)); // value-initialised
        QVERIFY(!isMappedColumn(column));
        column.assign({ 3, 1, 2 });
        QCOMPARE(column.size(), std::size_t(3));
        QVERIFY(!isMappedColumn(Column<std::int64_t>()));
    }
};

QTEST_APPLESS_MAIN(TestColumn)
#include "tst_column.moc"
