// SPDX-License-Identifier: MIT
#include "ui/timeline/timelinedata.h"

namespace gaplens::ui {

std::shared_ptr<const TimelineData> timelineDataOf(std::shared_ptr<const core::TraceSet> trace)
{
    auto data = std::make_shared<TimelineData>();
    data->trace = std::move(trace);
    return data;
}

std::shared_ptr<const TimelineData> firstStageDataOf(std::shared_ptr<const core::TraceSet> trace)
{
    auto data = std::make_shared<TimelineData>();
    data->trace = std::move(trace);
    data->firstStage = true;
    return data;
}

std::shared_ptr<const TimelineData> prepareTimelineData(std::shared_ptr<const core::TraceSet> trace)
{
    auto data = std::make_shared<TimelineData>();
    data->trace = std::move(trace);
    if (data->trace) {
        data->derived = core::DerivedCapture::build(data->trace, core::DerivedOptions {});
        data->busy = data->derived ? data->derived->busyLanes() : nullptr;
    }
    return data;
}

} // namespace gaplens::ui
