// SPDX-License-Identifier: MIT
#include "ui/loading/derivedcapturecontroller.h"

#include <QThread>

namespace gaplens::ui {

DerivedCaptureController::DerivedCaptureController(QObject *parent)
    : QObject(parent)
    , m_runner(this) // one thread of its own: a superseded build gives up at its next cancel check
{
}

DerivedCaptureController::~DerivedCaptureController() = default;

bool DerivedCaptureController::matches(const core::DerivedCapture *derived) const
{
    return derived && m_trace && derived->sharedTrace() == m_trace && derived->minGapNs() == m_options.minGapNs
        && derived->options().includeCopies == m_options.includeCopies;
}

void DerivedCaptureController::setTrace(
    std::shared_ptr<const core::TraceSet> trace, std::shared_ptr<const core::DerivedCapture> ready)
{
    m_runner.discard();
    m_trace = std::move(trace);
    m_derived.reset();
    m_lender = ready && ready->sharedTrace() == m_trace ? ready : nullptr;
    emit traceChanged();
    if (matches(m_lender.get())) {
        // Built already (on the loading thread): delivered like a build, after this returns,
        // so every reader sees the capture first and its gaps with derivedChanged.
        m_runner.start([ready](const LatestJobContext &) { return ready; },
            [this](std::shared_ptr<const core::DerivedCapture> d) { apply(std::move(d)); });
        return;
    }
    requestBuild();
}

void DerivedCaptureController::setGapThreshold(core::TimeNs ns)
{
    ns = std::max<core::TimeNs>(1, ns);
    if (ns == m_options.minGapNs)
        return;
    m_options.minGapNs = ns;
    emit gapThresholdChanged(ns);
    requestBuild();
}

void DerivedCaptureController::requestBuild()
{
    if (!m_trace || isReady()) {
        m_runner.discard(); // nothing to build, or back at what is shown
        return;
    }
    ++m_buildCount;
    // The newest derived capture of this trace lends its busy lanes, fold indexes and step tables.
    auto previous = m_lender;
    m_runner.start(
        [trace = m_trace, options = m_options, previous](const LatestJobContext &job) {
            return core::DerivedCapture::build(trace, options, &job.cancel(), previous.get());
        },
        [this](std::shared_ptr<const core::DerivedCapture> d) { apply(std::move(d)); });
}

void DerivedCaptureController::apply(std::shared_ptr<const core::DerivedCapture> derived)
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (!matches(derived.get()) || derived == m_derived)
        return; // cancelled (null), or for an earlier request
    m_derived = std::move(derived);
    m_lender = m_derived;
    emit derivedChanged();
}

bool DerivedCaptureController::waitUntilReady()
{
    if (!m_trace)
        return false;
    if (!isReady())
        m_runner.waitAndDeliver();
    return isReady();
}

void DerivedCaptureController::adopt(std::shared_ptr<const core::DerivedCapture> derived)
{
    if (!derived || derived->sharedTrace() != m_trace || derived == m_derived)
        return;
    m_runner.discard();
    const bool thresholdChanged = derived->minGapNs() != m_options.minGapNs;
    m_options.minGapNs = derived->minGapNs();
    m_options.includeCopies = derived->options().includeCopies;
    m_derived = std::move(derived);
    m_lender = m_derived;
    if (thresholdChanged)
        emit gapThresholdChanged(m_options.minGapNs);
    emit derivedChanged();
}

} // namespace gaplens::ui
