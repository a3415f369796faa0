// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/derived_capture.h"
#include "ui/jobs/latestjobrunner.h"

#include <QObject>

#include <memory>

namespace gaplens::ui {

// Runs core::compareTraces on a worker thread over the two timelines' derived captures (it
// walks every kernel of both captures and bootstraps the noise; busy time, gaps and blame are
// read from the derived captures, never recomputed). Latest wins (LatestJobRunner): a new compute() supersedes a
// running one, whose result is dropped. comparisonReady is emitted on the GUI thread.
class ComparisonController : public QObject
{
    Q_OBJECT
public:
    explicit ComparisonController(QObject *parent = nullptr);
    // Waits for a running job: it delivers into this object.
    ~ComparisonController() override;

    // A comparison is on its way (its inputs are still being derived): busy from now, and the
    // running one, if any, is dropped.
    void expectComparison();
    // Both derived at options.minGapNs (and options.includeCopies).
    void compute(std::shared_ptr<const core::DerivedCapture> before, std::shared_ptr<const core::DerivedCapture> after,
        const core::CompareOptions &options = {});
    bool isBusy() const { return m_busy; }
    const std::shared_ptr<const core::Comparison> &comparison() const { return m_comparison; }
    const core::CompareOptions &options() const { return m_options; }

signals:
    void busyChanged(bool busy);
    void comparisonReady(std::shared_ptr<const gaplens::core::Comparison> comparison);

private:
    void onFinished(std::shared_ptr<const core::Comparison> comparison);

    LatestJobRunner<std::shared_ptr<const core::Comparison>> m_jobs;
    bool m_busy = false;
    core::CompareOptions m_options;
    std::shared_ptr<const core::Comparison> m_comparison;
};

} // namespace gaplens::ui
