// SPDX-License-Identifier: MIT
#pragma once
// The one way the app opens a digest (File > Open, `gaplens RUN.gldigest`): core::readDigest
// runs on a worker thread (LatestJobRunner) while a progress dialog names the file and its
// size, says how far the read has come and offers Cancel; the GUI thread never waits for it.
// A 1,024-rank digest is hundreds of MB and takes seconds to read.
#include "gaplens/core/read/digest.h"
#include "ui/digest/digestwindow.h" // complete, for the signal opened
#include "ui/jobs/latestjobrunner.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <memory>

class QProgressDialog;
class QWidget;

namespace gaplens::ui {

class DigestOpener : public QObject
{
    Q_OBJECT
public:
    // A child of `parent` (closing it cancels the read), whose progress dialog is too.
    explicit DigestOpener(QString path, QWidget *parent = nullptr);
    // Cancels a running read and waits for its worker to stop.
    ~DigestOpener() override;

    // new DigestOpener(path, parent), started.
    static DigestOpener *open(const QString &path, QWidget *parent = nullptr);

    // Starts the read. The opener then emits exactly one of opened, failed and cancelled, and
    // deletes itself (deleteLater) right after.
    void start();
    // As the dialog's Cancel: the read stops, and cancelled follows.
    void cancel();

    const QString &path() const { return m_path; }
    // Null once the read has ended.
    QProgressDialog *progressDialog() const;
    // Tests: runs on the reading thread at each progress report, before the read goes on (to
    // make a read slow, or to cancel during it, deterministically). Set before start().
    void setProgressHook(std::function<void(const core::DigestReadProgress &)> hook) { m_hook = std::move(hook); }

signals:
    // Per mille of the whole read, and what it is doing ("Parsing: 120 MiB of 300 MiB").
    void progressChanged(int permille, const QString &message);
    // The overview, shown, deleted on close.
    void opened(gaplens::ui::DigestWindow *window);
    // The reader's message, which names the file and the field.
    void failed(const QString &error);
    // Nothing was opened and nothing is to be said.
    void cancelled();

private:
    void onRead(const std::shared_ptr<core::DigestReadResult> &result);

    QString m_path;
    QPointer<QProgressDialog> m_dialog;
    bool m_cancelled = false;
    std::function<void(const core::DigestReadProgress &)> m_hook;
    LatestJobRunner<std::shared_ptr<core::DigestReadResult>> m_jobs;
};

} // namespace gaplens::ui
