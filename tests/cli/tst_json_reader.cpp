// SPDX-License-Identifier: MIT
// gaplens-cli's minimal JSON reader (used for `check --baseline`), compiled into this test
// directly: values, escapes, exact integers, and errors that say where.
#include "json_reader.h"

#include <QTest>

using gaplens::cli::JsonParseError;
using gaplens::cli::JsonValue;
using gaplens::cli::parseJson;

namespace {

// The error a text gives, or an empty message when it parses.
JsonParseError errorOf(std::string_view text)
{
    try {
        parseJson(text);
    } catch (const JsonParseError &e) {
        return e;
    }
    return {};
}

} // namespace

class TestJsonReader : public QObject
{
    Q_OBJECT

private slots:
    void readsEveryKindOfValueInADocument()
    {
        const auto doc = parseJson(" {\"a\": [1, -2.5, 3e2, true, false, null], \"b\": {\"c\": \"d\"}, \"e\": {}} ");
        QVERIFY(doc.isObject());
        QCOMPARE(doc.members().size(), std::size_t(3));
        const auto *a = doc.find("a");
        QVERIFY(a && a->isArray());
        QCOMPARE(a->items().size(), std::size_t(6));
        QCOMPARE(a->items()[0].number(), 1.0);
        QCOMPARE(*a->items()[0].integer(), std::int64_t(1));
        QCOMPARE(a->items()[1].number(), -2.5);
        QVERIFY(!a->items()[1].integer());
        QCOMPARE(a->items()[2].number(), 300.0);
        QVERIFY(!a->items()[2].integer()); // an exponent is not an integer literal
        QVERIFY(a->items()[3].isBool() && a->items()[3].boolean());
        QVERIFY(a->items()[4].isBool() && !a->items()[4].boolean());
        QVERIFY(a->items()[5].isNull());
        QCOMPARE(doc.find("b")->find("c")->string(), std::string("d"));
        QVERIFY(doc.find("e")->isObject() && doc.find("e")->members().empty());
        QVERIFY(!doc.find("missing"));
    }

    void keepsNanosecondTimestampsExact()
    {
        // 1.7e18 + 1 is not representable as a double; the integer is kept exactly.
        const auto doc = parseJson("{\"t\": 1700000000000000001, \"big\": 123456789012345678901234}");
        QCOMPARE(*doc.find("t")->integer(), std::int64_t(1700000000000000001));
        QVERIFY(!doc.find("big")->integer()); // beyond int64: a double only
        QCOMPARE(doc.find("big")->number(), 123456789012345678901234.0);
    }

    void decodesEscapesAndSurrogatePairs()
    {
        const auto doc = parseJson("[\"a\\\"b\\\\c\\/d\\n\\t\", \"\\u00e9\\u20ac\", \"\\ud83d\\ude00\"]");
        QCOMPARE(doc.items()[0].string(), std::string("a\"b\\c/d\n\t"));
        QCOMPARE(doc.items()[1].string(), std::string("\xC3\xA9\xE2\x82\xAC"));    // é €
        QCOMPARE(doc.items()[2].string(), std::string("\xF0\x9F\x98\x80"));        // U+1F600
    }

    void theLastOfRepeatedKeysWins()
    {
        QCOMPARE(parseJson("{\"k\": 1, \"k\": 2}").find("k")->number(), 2.0);
    }

    void rejectsMalformedTextWithLineAndColumn()
    {
        const auto e = errorOf("{\n  \"a\" 1\n}");
        QCOMPARE(e.message, std::string("expected ':' after an object key"));
        QCOMPARE(e.line, std::size_t(2));
        QCOMPARE(e.column, std::size_t(7));
        QCOMPARE(e.describe(), std::string("line 2, column 7: expected ':' after an object key"));

        QCOMPARE(errorOf("").message, std::string("unexpected end of input, expected a value"));
        QCOMPARE(errorOf("[1, 2").message, std::string("unexpected end of input, expected ',' or ']' in an array"));
        QCOMPARE(errorOf("[1,]").message, std::string("expected a value"));
        QCOMPARE(errorOf("{\"a\": 1,}").message, std::string("expected a string key in an object"));
        QCOMPARE(errorOf("01").message, std::string("unexpected text after the JSON value"));
        QCOMPARE(errorOf("1.").message, std::string("invalid number (digits expected after '.')"));
        QCOMPARE(errorOf("-").message, std::string("invalid number"));
        QCOMPARE(errorOf("tru").message, std::string("invalid literal (expected a value)"));
        QCOMPARE(errorOf("\"abc").message, std::string("unterminated string"));
        QCOMPARE(errorOf("\"a\tb\"").message, std::string("control character in a string (must be escaped)"));
        QCOMPARE(errorOf("\"\\x\"").message, std::string("invalid escape in a string"));
        QCOMPARE(errorOf("\"\\ud83d\"").message, std::string("unpaired UTF-16 surrogate in \\u escape"));
        QCOMPARE(errorOf("{} {}").message, std::string("unexpected text after the JSON value"));
        QCOMPARE(errorOf("this is not json").message, std::string("invalid literal (expected a value)"));
    }

    void refusesNestingDeepEnoughToExhaustTheStack()
    {
        const std::string deep(100000, '[');
        QCOMPARE(errorOf(deep).message, std::string("nested too deeply"));
        std::string fine = std::string(200, '[') + std::string(200, ']');
        QVERIFY(parseJson(fine).isArray());
    }
};

QTEST_APPLESS_MAIN(TestJsonReader)
#include "tst_json_reader.moc"
