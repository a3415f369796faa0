// SPDX-License-Identifier: MIT
#include "ui/jobs/latestjobrunner.h"

namespace gaplens::ui {

void LatestJobContext::post(std::function<void()> onGuiThread) const
{
    if (m_job->discarded.load())
        return;
    QMetaObject::invokeMethod(
        qApp,
        [job = m_job, onGuiThread = std::move(onGuiThread)] {
            if (!job->discarded.load() && !job->delivered.load() && job->receiver)
                onGuiThread();
        },
        Qt::QueuedConnection);
}

} // namespace gaplens::ui
