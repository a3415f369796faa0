// SPDX-License-Identifier: MIT
#include "ui/compare/comparisoncontroller.h"

#include <QMetaObject>
#include <QThread>

namespace gaplens::ui {

ComparisonController::ComparisonController(QObject *parent)
    : QObject(parent)
{
    m_pool.setMaxThreadCount(1); // superseded jobs finish in order; only the latest is delivered
}

ComparisonController::~ComparisonController()
{
    m_pool.waitForDone();
}

void ComparisonController::compute(std::shared_ptr<const core::TraceSet> before, std::shared_ptr<const core::TraceSet> after,
                                   const core::CompareOptions &options)
{
    const quint64 job = ++m_job;
    m_options = options;
    if (!m_busy) {
        m_busy = true;
        emit busyChanged(true);
    }
    m_pool.start([this, job, before = std::move(before), after = std::move(after), options] {
        std::shared_ptr<const core::Comparison> result;
        if (before && after)
            result = std::make_shared<const core::Comparison>(core::compareTraces(*before, *after, options));
        QMetaObject::invokeMethod(this, [this, job, result] { onFinished(job, result); }, Qt::QueuedConnection);
    });
}

void ComparisonController::onFinished(quint64 job, std::shared_ptr<const core::Comparison> comparison)
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (job != m_job)
        return; // superseded
    m_busy = false;
    m_comparison = std::move(comparison);
    emit busyChanged(false);
    emit comparisonReady(m_comparison);
}

} // namespace gaplens::ui
