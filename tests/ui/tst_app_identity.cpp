// SPDX-License-Identifier: MIT
// The app's windows carry the gaplens icon from resources/, and the desktop-file id matches
// the installed .desktop entry, so the window manager shows the menu entry's icon.
#include "ui/appidentity.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QTest>

class TestAppIdentity : public QObject
{
    Q_OBJECT
private slots:
    void windowsUseTheIconFromResources()
    {
        gaplens::ui::setDesktopIdentity();
        QVERIFY(QFile::exists(QStringLiteral(":/icons/gaplens.svg")));
        const QIcon icon = QApplication::windowIcon();
        QVERIFY(!icon.isNull());
        // The SVG drawn: a dark rounded square with a white lens in the middle, transparent
        // corners.
        const QImage image = icon.pixmap(128, 128).toImage();
        QCOMPARE(image.size(), QSize(128, 128));
        QCOMPARE(qAlpha(image.pixel(0, 0)), 0);
        const QColor background = image.pixelColor(10, 64);
        QVERIFY2(background.lightness() < 60, qPrintable(background.name()));
        const QColor lensRing = image.pixelColor(64, 44); // top of the ring, 19 px above its centre
        QVERIFY2(lensRing.lightness() > 200, qPrintable(lensRing.name()));

        gaplens::ui::MainWindow window;
        QCOMPARE(window.windowIcon().cacheKey(), icon.cacheKey());
    }

    void desktopFileNameIsTheApplicationId()
    {
        gaplens::ui::setDesktopIdentity();
        QCOMPARE(QGuiApplication::desktopFileName(), QStringLiteral("io.github.gaplens.gaplens"));
        QCOMPARE(gaplens::ui::applicationId(), QGuiApplication::desktopFileName());
    }
};

QTEST_MAIN(TestAppIdentity)
#include "tst_app_identity.moc"
