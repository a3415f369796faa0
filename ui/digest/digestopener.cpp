// SPDX-License-Identifier: MIT
#include "ui/digest/digestopener.h"

#include "gaplens/core/util/units.h"
#include "ui/digest/digestwindow.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QProgressDialog>

#include <algorithm>

namespace gaplens::ui {
namespace {

QString bytes(std::uint64_t n)
{
    return QString::fromStdString(core::formatBytes(n));
}

QString stageText(const core::DigestReadProgress &p)
{
    if (p.stage == "checking")
        return QStringLiteral("Checking ranks: %1 of %2")
            .arg(QString::fromStdString(core::formatGrouped(double(p.done), 0)),
                QString::fromStdString(core::formatGrouped(double(p.total), 0)));
    return QStringLiteral("%1: %2 of %3")
        .arg(p.stage == "reading" ? QStringLiteral("Reading") : QStringLiteral("Parsing"), bytes(p.done),
            bytes(p.total));
}

// "3.2 s elapsed, ~4 s left" (heaptrack's message); what is left once a second has gone by.
QString timeText(qint64 elapsedMs, int permille)
{
    auto text = QStringLiteral("%1 s elapsed").arg(double(elapsedMs) / 1000.0, 0, 'f', 1);
    if (elapsedMs >= 1000 && permille >= 20 && permille < 1000)
        text += QStringLiteral(", ~%1 s left")
                    .arg(std::max<qint64>(1, qRound64(double(elapsedMs) * (1000 - permille) / permille / 1000.0)));
    return text;
}

} // namespace

DigestOpener::DigestOpener(QString path, QWidget *parent)
    : QObject(parent)
    , m_path(std::move(path))
    , m_jobs(this)
{
}

DigestOpener::~DigestOpener()
{
    delete m_dialog; // m_jobs then cancels the read and waits for it
}

DigestOpener *DigestOpener::open(const QString &path, QWidget *parent)
{
    auto *opener = new DigestOpener(path, parent);
    opener->start();
    return opener;
}

QProgressDialog *DigestOpener::progressDialog() const
{
    return m_dialog;
}

void DigestOpener::start()
{
    const QFileInfo file(m_path);
    const auto title = QStringLiteral("Opening %1 (%2)").arg(file.fileName(), bytes(std::uint64_t(file.size())));
    m_dialog = new QProgressDialog(title, QStringLiteral("Cancel"), 0, 1000, qobject_cast<QWidget *>(parent()));
    m_dialog->setWindowTitle(QStringLiteral("Opening digest"));
    m_dialog->setAutoClose(false);
    m_dialog->setAutoReset(false);
    m_dialog->setMinimumWidth(420);
    // Shown only when the read takes a moment; a small digest opens without a flash.
    m_dialog->setMinimumDuration(300);
    m_dialog->setValue(0);
    connect(m_dialog, &QProgressDialog::canceled, this, &DigestOpener::cancel);
    QElapsedTimer clock;
    clock.start();
    connect(this, &DigestOpener::progressChanged, m_dialog,
        [dialog = m_dialog.data(), title, clock](int permille, const QString &message) {
            if (dialog->wasCanceled())
                return; // setValue would show it again
            const auto time = timeText(clock.elapsed(), permille);
            dialog->setLabelText(
                title + QLatin1Char('\n') + message + (time.isEmpty() ? QString() : QLatin1Char('\n') + time));
            dialog->setValue(permille);
        });

    m_jobs.start(
        [this, path = m_path.toStdString(), hook = m_hook](const LatestJobContext &job) {
            int shown = -1;
            const auto progress = [&](const core::DigestReadProgress &p) {
                if (hook)
                    hook(p);
                if (p.permille == shown)
                    return; // at most a thousand updates, however large the file
                shown = p.permille;
                job.post(
                    [this, permille = p.permille, message = stageText(p)] { emit progressChanged(permille, message); });
            };
            return std::make_shared<core::DigestReadResult>(core::readDigest(path, progress, &job.cancel()));
        },
        [this](std::shared_ptr<core::DigestReadResult> result) { onRead(result); });
}

void DigestOpener::cancel()
{
    m_cancelled = true;
    if (m_dialog)
        m_dialog->cancel(); // hides it for good
    m_jobs.requestStop(); // the read still reports, as cancelled
}

void DigestOpener::onRead(const std::shared_ptr<core::DigestReadResult> &result)
{
    deleteLater();
    // The overview shows before the dialog goes, so that the application never has no window
    // (quit on last window closed) on the way.
    if (result->cancelled || m_cancelled) { // a read may end just after Cancel
        delete m_dialog;
        emit cancelled();
        return;
    }
    if (!result->digest) {
        delete m_dialog;
        emit failed(QString::fromStdString(result->error));
        return;
    }
    auto *window = new DigestWindow(std::move(*result->digest), m_path);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->show();
    delete m_dialog;
    emit opened(window);
}

} // namespace gaplens::ui
