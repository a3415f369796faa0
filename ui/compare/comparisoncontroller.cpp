// SPDX-License-Identifier: MIT
#include "ui/compare/comparisoncontroller.h"

#include <QThread>

namespace gaplens::ui {

ComparisonController::ComparisonController(QObject *parent)
    : QObject(parent)
    , m_jobs(this) // one thread: superseded jobs finish in order; only the latest is delivered
{
}

ComparisonController::~ComparisonController() = default; // m_jobs waits for a running job

void ComparisonController::expectComparison()
{
    m_jobs.discard();
    if (!m_busy) {
        m_busy = true;
        emit busyChanged(true);
    }
}

void ComparisonController::compute(std::shared_ptr<const core::DerivedCapture> before,
    std::shared_ptr<const core::DerivedCapture> after, const core::CompareOptions &options)
{
    m_options = options;
    expectComparison();
    m_jobs.start(
        [before = std::move(before), after = std::move(after), options](const LatestJobContext &) {
            std::shared_ptr<const core::Comparison> result;
            if (before && after)
                result = std::make_shared<const core::Comparison>(core::compareTraces(*before, *after, options));
            return result;
        },
        [this](std::shared_ptr<const core::Comparison> comparison) { onFinished(std::move(comparison)); });
}

void ComparisonController::onFinished(std::shared_ptr<const core::Comparison> comparison)
{
    Q_ASSERT(QThread::currentThread() == thread());
    m_busy = false;
    m_comparison = std::move(comparison);
    emit busyChanged(false);
    emit comparisonReady(m_comparison);
}

} // namespace gaplens::ui
