// SPDX-License-Identifier: MIT
#pragma once
// Runs the built gaplens-cli (GAPLENS_CLI_PATH, set by tests/cli/CMakeLists.txt) and parses
// its JSON, for the end-to-end CLI tests.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtGlobal>

namespace gaplens::test {

struct CliRun
{
    int exitCode = -1; // -1 when the process crashed or timed out
    QByteArray out, err;
};

inline CliRun runCli(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(GAPLENS_CLI_PATH), args);
    p.waitForFinished(120000);
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        p.readAllStandardError() };
}

// `gaplens-cli diff --before before --after after`, with `--format format` unless it is
// empty (the table) and then `more`.
inline CliRun runDiff(const QString &before, const QString &after, const QString &format = {}, QStringList more = {})
{
    QStringList args { QStringLiteral("diff"), QStringLiteral("--before"), before, QStringLiteral("--after"), after };
    if (!format.isEmpty())
        args << QStringLiteral("--format") << format;
    return runCli(args + more);
}

// The stdout of a run as a JSON object; warns with the text when it is not JSON.
inline QJsonObject json(const CliRun &run)
{
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(run.out, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("not JSON: %s\n%s", qPrintable(error.errorString()), run.out.constData());
    return doc.object();
}

} // namespace gaplens::test
