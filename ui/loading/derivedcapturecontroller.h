// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/derived_capture.h"
#include "ui/jobs/latestjobrunner.h"

#include <QObject>

#include <memory>

namespace gaplens::ui {

// The one owner of a window's derived capture: the loaded capture, the gap threshold and
// options, and the newest core::DerivedCapture built for them off the GUI thread (newest
// request wins; what does not depend on the threshold is shared with the previous one). The
// timeline model, the panels, the compare view, exports and reports all read it, so a
// threshold change builds exactly one DerivedCapture.
class DerivedCaptureController : public QObject
{
    Q_OBJECT
public:
    explicit DerivedCaptureController(QObject *parent = nullptr);
    ~DerivedCaptureController() override;

    // A new capture: nothing derived is shown for it until its build arrives. `ready` (may be
    // null) is one already built for it (prepared on the calling thread): used when its
    // options are the current ones.
    void setTrace(
        std::shared_ptr<const core::TraceSet> trace, std::shared_ptr<const core::DerivedCapture> ready = nullptr);
    const std::shared_ptr<const core::TraceSet> &trace() const { return m_trace; }
    // Takes the threshold at once (gapThresholdChanged) and builds for it.
    void setGapThreshold(core::TimeNs ns);
    core::TimeNs gapThreshold() const { return m_options.minGapNs; }
    const core::DerivedOptions &options() const { return m_options; }

    // The newest build applied: for the current capture, though maybe for an earlier threshold
    // while the current one is being built; null until the capture's first build arrives.
    const std::shared_ptr<const core::DerivedCapture> &derived() const { return m_derived; }
    // derived() is for the current capture and options.
    bool isReady() const { return matches(m_derived.get()); }
    bool matches(const core::DerivedCapture *derived) const;
    // Blocks until the current build is done and applies it (offscreen renders, exports,
    // tests). Returns isReady(); false without a capture.
    bool waitUntilReady();
    // Uses `derived` (built for the current capture and options elsewhere) instead of building.
    void adopt(std::shared_ptr<const core::DerivedCapture> derived);
    // Builds started so far (tests: one threshold change, one build).
    int buildCount() const { return m_buildCount; }

signals:
    void traceChanged();
    void gapThresholdChanged(gaplens::core::TimeNs ns);
    // derived() changed: a build for the current capture arrived.
    void derivedChanged();

private:
    void requestBuild();
    void apply(std::shared_ptr<const core::DerivedCapture> derived);

    std::shared_ptr<const core::TraceSet> m_trace;
    core::DerivedOptions m_options;
    std::shared_ptr<const core::DerivedCapture> m_derived;
    std::shared_ptr<const core::DerivedCapture> m_lender; // the newest of this trace, for build's `previous`
    LatestJobRunner<std::shared_ptr<const core::DerivedCapture>> m_runner;
    int m_buildCount = 0;
};

} // namespace gaplens::ui
