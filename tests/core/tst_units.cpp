// SPDX-License-Identifier: MIT
// Sizes are shown in one unit family, binary (B, KiB, MiB, GiB, TiB), by the GUI's tooltips,
// details and panels, the CLI's text and the reports alike; rates in the same units per second.
#include "gaplens/core/util/units.h"

#include <QTest>

using namespace gaplens::core;

class TestUnits : public QObject
{
    Q_OBJECT
private slots:
    void bytesUseBinaryUnits_data()
    {
        QTest::addColumn<quint64>("bytes");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << quint64(0) << QStringLiteral("0 B");
        QTest::newRow("below a KiB") << quint64(1023) << QStringLiteral("1023 B");
        QTest::newRow("one KiB") << quint64(1024) << QStringLiteral("1.0 KiB");
        QTest::newRow("1.5 KiB") << quint64(1536) << QStringLiteral("1.5 KiB");
        QTest::newRow("a decimal MB is less than a MiB") << quint64(1'000'000) << QStringLiteral("976.6 KiB");
        QTest::newRow("one MiB") << quint64(1 << 20) << QStringLiteral("1.0 MiB");
        QTest::newRow("4 GiB") << quint64(4) * (1 << 30) << QStringLiteral("4.0 GiB");
        QTest::newRow("3 TiB") << quint64(3) * (quint64(1) << 40) << QStringLiteral("3.0 TiB");
        QTest::newRow("past TiB stays TiB") << quint64(2048) * (quint64(1) << 40) << QStringLiteral("2048.0 TiB");
    }
    void bytesUseBinaryUnits()
    {
        QFETCH(quint64, bytes);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatBytes(bytes)), text);
    }

    void bandwidthUsesTheSameUnitsPerSecond_data()
    {
        QTest::addColumn<quint64>("bytes");
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<QString>("text");
        QTest::newRow("1 GiB in 1 s") << (quint64(1) << 30) << qint64(1'000'000'000) << QStringLiteral("1.0 GiB/s");
        QTest::newRow("1 MiB in 100 us") << quint64(1 << 20) << qint64(100'000) << QStringLiteral("9.8 GiB/s");
        QTest::newRow("512 B in 1 s") << quint64(512) << qint64(1'000'000'000) << QStringLiteral("512.0 B/s");
        QTest::newRow("4 KiB in 1 ms") << quint64(4096) << qint64(1'000'000) << QStringLiteral("3.9 MiB/s");
        QTest::newRow("no time") << quint64(4096) << qint64(0) << QStringLiteral("-");
        QTest::newRow("negative time") << quint64(4096) << qint64(-5) << QStringLiteral("-");
    }
    void bandwidthUsesTheSameUnitsPerSecond()
    {
        QFETCH(quint64, bytes);
        QFETCH(qint64, ns);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatBandwidth(bytes, ns)), text);
    }

    // The one duration parser (--window, --interval, the GUI's durations): exact ns, no unit
    // is seconds, exponents allowed.
    void durationsParseExactlyWithTheirUnit_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qint64>("ns");
        QTest::newRow("seconds") << QStringLiteral("1200s") << true << qint64(1'200'000'000'000);
        QTest::newRow("ms") << QStringLiteral("350ms") << true << qint64(350'000'000);
        QTest::newRow("us") << QStringLiteral("10us") << true << qint64(10'000);
        QTest::newRow("ns") << QStringLiteral("5ns") << true << qint64(5);
        QTest::newRow("fraction") << QStringLiteral("1.5ms") << true << qint64(1'500'000);
        QTest::newRow("leading dot") << QStringLiteral(".25s") << true << qint64(250'000'000);
        QTest::newRow("spaces") << QStringLiteral(" 2 us ") << true << qint64(2'000);
        QTest::newRow("negative") << QStringLiteral("-2s") << true << qint64(-2'000'000'000);
        QTest::newRow("trailing zeros below 1 ns") << QStringLiteral("1.5000us") << true << qint64(1'500);
        QTest::newRow("no unit is seconds") << QStringLiteral("2") << true << qint64(2'000'000'000);
        QTest::newRow("blanks between") << QStringLiteral(" 100 us ") << true << qint64(100'000);
        QTest::newRow("other unit") << QStringLiteral("3min") << false << qint64(0);
        QTest::newRow("below 1 ns") << QStringLiteral("1.5ns") << false << qint64(0);
        QTest::newRow("exponent") << QStringLiteral("1e3s") << true << qint64(1'000'000'000'000);
        QTest::newRow("negative exponent") << QStringLiteral("1e-3") << true << qint64(1'000'000);
        QTest::newRow("exponent and fraction") << QStringLiteral("2.5E2 us") << true << qint64(250'000);
        QTest::newRow("exponent below 1 ns") << QStringLiteral("1e-10") << false << qint64(0);
        QTest::newRow("zero, however small") << QStringLiteral("0.000e-20s") << true << qint64(0);
        QTest::newRow("exponent without digits") << QStringLiteral("1es") << false << qint64(0);
        QTest::newRow("only a unit") << QStringLiteral("ms") << false << qint64(0);
        QTest::newRow("dot without digits") << QStringLiteral("1.s") << false << qint64(0);
        QTest::newRow("overflow") << QStringLiteral("9300000000s") << false << qint64(0);
        QTest::newRow("garbage") << QStringLiteral("12abcs") << false << qint64(0);
        for (const char *text :
            { "", " ", "1 m", "1min", "1sec", "+1s", "inf", "nan", "1s2", "1e30s", "0x10", "1e999" })
            QTest::addRow("malformed '%s'", text) << QString::fromLatin1(text) << false << qint64(0);
    }
    void durationsParseExactlyWithTheirUnit()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(qint64, ns);
        const auto parsed = parseDuration(text.toStdString());
        QCOMPARE(parsed.has_value(), valid);
        if (valid)
            QCOMPARE(*parsed, ns);
    }
};

QTEST_APPLESS_MAIN(TestUnits)
#include "tst_units.moc"
