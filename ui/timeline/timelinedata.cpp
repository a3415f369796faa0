// SPDX-License-Identifier: MIT
#include "ui/timeline/timelinedata.h"

#include "gaplens/core/analysis/gpu_busy.h"

namespace gaplens::ui {

std::shared_ptr<const GpuBusyLanes> computeBusyLanes(const core::TraceSet &trace)
{
    auto lanes = std::make_shared<GpuBusyLanes>();
    lanes->gpus.resize(trace.gpus.size());
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
        const core::GpuBusy busy = core::computeGpuBusy(trace, g);
        auto &lane = lanes->gpus[g];
        lane.start.reserve(busy.intervals.size());
        lane.end.reserve(busy.intervals.size());
        for (const auto &r : busy.intervals) {
            lane.start.push_back(r.start);
            lane.end.push_back(r.end);
        }
    }
    return lanes;
}

std::shared_ptr<const TimelineData> timelineDataOf(std::shared_ptr<const core::TraceSet> trace)
{
    auto data = std::make_shared<TimelineData>();
    data->trace = std::move(trace);
    return data;
}

std::shared_ptr<const TimelineData> prepareTimelineData(std::shared_ptr<const core::TraceSet> trace)
{
    auto data = std::make_shared<TimelineData>();
    data->trace = std::move(trace);
    if (data->trace)
        data->busy = computeBusyLanes(*data->trace);
    return data;
}

} // namespace gaplens::ui
