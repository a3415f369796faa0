// SPDX-License-Identifier: MIT
#include "ui/timeline/timelinedata.h"

namespace gaplens::ui {

std::shared_ptr<const TimelineData> prepareTimelineData(std::shared_ptr<const core::TraceSet> trace)
{
    auto data = std::make_shared<TimelineData>();
    data->trace = trace;
    if (!trace)
        return data;
    data->gpus.resize(trace->gpus.size());
    for (std::uint32_t g = 0; g < trace->gpus.size(); ++g) {
        const core::GpuBusy busy = core::computeGpuBusy(*trace, g);
        auto &lane = data->gpus[g];
        lane.busyStart.reserve(busy.intervals.size());
        lane.busyEnd.reserve(busy.intervals.size());
        for (const auto &r : busy.intervals) {
            lane.busyStart.push_back(r.start);
            lane.busyEnd.push_back(r.end);
        }
    }
    return data;
}

} // namespace gaplens::ui
