// SPDX-License-Identifier: MIT
// The NVTX reader's text cache returns exactly the id it was given for a text, never another
// text's, however the hashes collide, across its growth and its predictions of the next
// text, and stops storing at its bounds.
#include "read/text_id_cache.h"

#include <QTest>

#include <string>

using namespace gaplens::core;
using gaplens::core::detail::TextIdCache;

class TestTextIdCache : public QObject
{
    Q_OBJECT

private slots:
    void findsWhatWasInsertedAcrossGrowth()
    {
        TextIdCache cache;
        QVERIFY(!cache.find("aten::mm, op_id = 1", TextIdCache::hashOf("aten::mm, op_id = 1")));
        // 5000 entries take the slot array from 1024 through four doublings.
        constexpr int kCount = 5000;
        for (int i = 1; i <= kCount; ++i) {
            const auto text = "aten::mm, op_id = " + std::to_string(i);
            cache.insert(text, TextIdCache::hashOf(text), StringId(i));
        }
        QCOMPARE(cache.size(), std::size_t(kCount));
        for (int i = 1; i <= kCount; ++i) {
            const auto text = "aten::mm, op_id = " + std::to_string(i);
            const auto id = cache.find(text, TextIdCache::hashOf(text));
            QVERIFY(id);
            QCOMPARE(*id, StringId(i));
        }
        const std::string absent = "aten::mm, op_id = 5001";
        QVERIFY(!cache.find(absent, TextIdCache::hashOf(absent)));
    }

    // Equal hashes (so equal tags and the same first slot): only the bytes decide, including
    // for a text that is a prefix of another.
    void equalHashesAreToldApartByTheirText()
    {
        TextIdCache cache;
        constexpr std::size_t kSameHash = 0x1234'5678'9abc'def0;
        cache.insert("abc", kSameHash, StringId(7));
        cache.insert("ab", kSameHash, StringId(8));
        cache.insert("abd", kSameHash, StringId(9));
        QCOMPARE(cache.find("abc", kSameHash).value_or(0), StringId(7));
        QCOMPARE(cache.find("ab", kSameHash).value_or(0), StringId(8));
        QCOMPARE(cache.find("abd", kSameHash).value_or(0), StringId(9));
        QVERIFY(!cache.find("a", kSameHash));
        QVERIFY(!cache.find("abcd", kSameHash));
    }

    // A sequence seen once is found again in order through each entry's successor, and a
    // text that is not the predicted one (another order, another text of the predicted one's
    // length, a prefix of it) is still found by its hash, or not found.
    void aRepeatedSequenceAndDeparturesFromIt()
    {
        TextIdCache cache;
        const std::string a = "aten::mm", b = "aten::add", c = "aten::bmm", d = "aten::sub";
        QVERIFY(!cache.find(a));
        cache.insert(a, StringId(1));
        QVERIFY(!cache.find(b));
        cache.insert(b, StringId(2));
        QVERIFY(!cache.find(c));
        cache.insert(c, StringId(3));
        for (int step = 0; step < 3; ++step) { // a -> b -> c, as a training step repeats
            QCOMPARE(cache.find(a).value_or(0), StringId(1));
            QCOMPARE(cache.find(b).value_or(0), StringId(2));
            QCOMPARE(cache.find(c).value_or(0), StringId(3));
        }
        QCOMPARE(cache.find(a).value_or(0), StringId(1));
        QCOMPARE(cache.find(c).value_or(0), StringId(3)); // b predicted
        QCOMPARE(cache.find(a).value_or(0), StringId(1));
        QCOMPARE(cache.find(c).value_or(0), StringId(3)); // c predicted now, after a
        QCOMPARE(cache.find(c).value_or(0), StringId(3)); // a text after itself
        QCOMPARE(cache.find(c).value_or(0), StringId(3));
        QCOMPARE(cache.find(a).value_or(0), StringId(1));
        QVERIFY(!cache.find(d)); // c predicted: the same length as d, another text
        QVERIFY(!cache.find("aten::bm")); // c still predicted: a prefix of it
        cache.insert(d, StringId(4)); // stored after a, the last one found
        QCOMPARE(cache.find(a).value_or(0), StringId(1));
        QCOMPARE(cache.find(d).value_or(0), StringId(4));
        QCOMPARE(cache.find(b).value_or(0), StringId(2));
        QCOMPARE(cache.find(c).value_or(0), StringId(3));
    }

    // Colliding hashes and a successor: the successor is compared by its bytes as well.
    void aPredictionAmongEqualHashes()
    {
        TextIdCache cache;
        constexpr std::size_t kSameHash = 42;
        cache.insert("x", kSameHash, StringId(1));
        cache.insert("xy", kSameHash, StringId(2));
        QCOMPARE(cache.find("x", kSameHash).value_or(0), StringId(1));
        QVERIFY(!cache.find("xz", kSameHash)); // "xy" predicted
        QCOMPARE(cache.find("xy", kSameHash).value_or(0), StringId(2));
        QCOMPARE(cache.find("x", kSameHash).value_or(0), StringId(1));
    }

    void theEmptyTextIsNeverStored()
    {
        TextIdCache cache;
        cache.insert("", TextIdCache::hashOf(""), kEmptyString);
        QCOMPARE(cache.size(), std::size_t(0));
        QVERIFY(!cache.find(""));
    }

    void stopsStoringAtItsEntryBound()
    {
        TextIdCache cache;
        const auto count = TextIdCache::kMaxEntries + 10;
        for (std::size_t i = 1; i <= count; ++i) {
            const auto text = std::to_string(i);
            cache.insert(text, TextIdCache::hashOf(text), StringId(i));
        }
        QCOMPARE(cache.size(), TextIdCache::kMaxEntries);
        const auto last = std::to_string(TextIdCache::kMaxEntries);
        QCOMPARE(cache.find(last, TextIdCache::hashOf(last)).value_or(0), StringId(TextIdCache::kMaxEntries));
        const auto first = std::to_string(TextIdCache::kMaxEntries + 1);
        QVERIFY(!cache.find(first, TextIdCache::hashOf(first)));
    }

    void stopsStoringAtItsByteBound()
    {
        TextIdCache cache;
        const std::string big(TextIdCache::kMaxTextBytes / 2, 'x');
        cache.insert(big + "1", TextIdCache::hashOf(big + "1"), StringId(1));
        cache.insert(big + "2", TextIdCache::hashOf(big + "2"), StringId(2)); // one byte over
        cache.insert("small", TextIdCache::hashOf("small"), StringId(3));
        QCOMPARE(cache.size(), std::size_t(2));
        QCOMPARE(cache.find(big + "1", TextIdCache::hashOf(big + "1")).value_or(0), StringId(1));
        QVERIFY(!cache.find(big + "2", TextIdCache::hashOf(big + "2")));
        QCOMPARE(cache.find("small", TextIdCache::hashOf("small")).value_or(0), StringId(3));
    }
};

QTEST_APPLESS_MAIN(TestTextIdCache)
#include "tst_text_id_cache.moc"
