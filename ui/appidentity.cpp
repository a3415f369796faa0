// SPDX-License-Identifier: MIT
#include "appidentity.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QIcon>

// resources/gaplens.qrc is in a static library: calling its initialiser keeps it linked in.
// Q_INIT_RESOURCE must be used outside any namespace.
static void initResources()
{
    Q_INIT_RESOURCE(gaplens);
}

namespace gaplens::ui {

void setApplicationNames()
{
    QCoreApplication::setOrganizationName(QStringLiteral("gaplens"));
    QCoreApplication::setApplicationName(QStringLiteral("gaplens"));
    QCoreApplication::setApplicationVersion(QStringLiteral(GAPLENS_VERSION));
}

void setDesktopIdentity()
{
    initResources();
    QGuiApplication::setDesktopFileName(applicationId());
    QGuiApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/gaplens.svg")));
}

QString applicationId()
{
    return QStringLiteral(GAPLENS_APP_ID);
}

} // namespace gaplens::ui
