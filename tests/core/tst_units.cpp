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

    void durationsParseWithTheirUnit_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ns");
        QTest::newRow("seconds") << QStringLiteral("1s") << qint64(1'000'000'000);
        QTest::newRow("no unit is seconds") << QStringLiteral("2") << qint64(2'000'000'000);
        QTest::newRow("milliseconds with a fraction") << QStringLiteral("2.5ms") << qint64(2'500'000);
        QTest::newRow("blanks around and between") << QStringLiteral(" 100 us ") << qint64(100'000);
        QTest::newRow("nanoseconds") << QStringLiteral("250ns") << qint64(250);
        QTest::newRow("exponent") << QStringLiteral("1e-3") << qint64(1'000'000);
        QTest::newRow("rounded to the nearest ns") << QStringLiteral("1.6ns") << qint64(2);
        QTest::newRow("negative") << QStringLiteral("-10ms") << qint64(-10'000'000);
        QTest::newRow("leading point") << QStringLiteral(".5s") << qint64(500'000'000);
    }
    void durationsParseWithTheirUnit()
    {
        QFETCH(QString, text);
        QFETCH(qint64, ns);
        QCOMPARE(parseDuration(text.toStdString()), std::optional<TimeNs>(ns));
    }

    void malformedDurationsAreRefused()
    {
        for (const char *text : { "", " ", "ms", "1 m", "1min", "1sec", "+1s", "inf", "nan", "1s2", "1e30s", "0x10" })
            QVERIFY2(!parseDuration(text), text);
    }
};

QTEST_APPLESS_MAIN(TestUnits)
#include "tst_units.moc"
