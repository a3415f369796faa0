// SPDX-License-Identifier: MIT
// gaplens-bench-timeline: offscreen timeline frame time over a capture, at full zoom-out, a
// mid zoom (1/100 of the capture) and a 1 ms window, each the median of several repaints.
// Usage: gaplens-bench-timeline [--frames N] [--width PX] [--height PX] FILE_OR_FOLDER...
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include "gaplens/core/loader.h"

#include <QApplication>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    int frames = 15, width = 1920, height = 1080;
    gaplens::core::LoadOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--frames" && i + 1 < argc)
            frames = std::max(1, std::stoi(argv[++i]));
        else if (a == "--width" && i + 1 < argc)
            width = std::stoi(argv[++i]);
        else if (a == "--height" && i + 1 < argc)
            height = std::stoi(argv[++i]);
        else
            options.files.push_back(a);
    }
    if (options.files.empty()) {
        fmt::print(stderr, "usage: gaplens-bench-timeline [--frames N] [--width PX] [--height PX] FILES...\n");
        return 2;
    }
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto trace = gaplens::core::loadTraceSet(options);
    const auto data = gaplens::ui::prepareTimelineData(trace);
    const double prepareS = std::chrono::duration<double>(Clock::now() - t0).count();
    std::size_t kernels = 0;
    for (const auto &gpu : trace->gpus)
        kernels += gpu.kernelCount();

    gaplens::ui::TimelineView view;
    view.resize(width, height);
    view.setData(data);
    view.show();
    QApplication::processEvents();

    const auto span = trace->span;
    const auto mid = span.start + span.duration() / 2;
    struct Window
    {
        const char *name;
        gaplens::core::TimeNs start, end;
    };
    const Window windows[] = {
        {"full zoom-out", span.start, span.end},
        {"mid zoom (1/100 of the capture)", mid - span.duration() / 200, mid + span.duration() / 200},
        {"1 ms window", mid - 500'000, mid + 500'000},
    };
    fmt::print("timeline: {} ranks, {} kernels, {}x{} px, load + prepare {:.2f} s; median of {} repaints\n",
               trace->ranks.size(), kernels, width, height, prepareS, frames);
    fmt::print("{:<34} {:>12} {:>12} {:>10}\n", "window", "paint ms", "frame ms", "items");
    for (const auto &w : windows) {
        view.zoom()->setWindow(w.start, w.end, false);
        QApplication::processEvents();
        std::vector<double> paint, frame;
        for (int i = 0; i < frames; ++i) {
            const auto f0 = Clock::now();
            view.viewport()->repaint(); // synchronous paint event
            frame.push_back(std::chrono::duration<double, std::milli>(Clock::now() - f0).count());
            paint.push_back(double(view.lastPaintNs()) / 1e6);
        }
        std::sort(paint.begin(), paint.end());
        std::sort(frame.begin(), frame.end());
        fmt::print("{:<34} {:>12.3f} {:>12.3f} {:>10}\n", w.name, paint[paint.size() / 2], frame[frame.size() / 2],
                   view.lastItemCount());
    }
    return 0;
}
