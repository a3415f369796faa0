// SPDX-License-Identifier: MIT
// gaplens-bench-timeline: offscreen timeline frame time over a capture, at full zoom-out, a
// mid zoom (1/100 of the capture) and a 1 ms window, each the median of several repaints.
// Like the app, the view gets the capture as soon as it is loaded: the first frame is timed
// before the worker's gaps and fold indexes arrive, the medians after.
// --verify also checks, for every row at each window, that the draw list built through the fold
// index equals core::buildDrawList's (what the painter drew before the index existed).
// Then "threshold change to repaint": from TimelineModel::setGapThreshold (what the toolbar's
// threshold edit calls) until the new gaps are applied and one frame is painted, and until every
// side panel (wired as the main window wires them) has applied its result too; median of
// --threshold-runs changes, cycling through 50, 200, 500 and 100 us.
// Then the staged load (the app's, issue #19 target 1): time from the start of a load to the
// first frame of its GPU lanes, and to the full capture loaded and painted, against a
// single-stage load and its first frame; medians of --staged-runs runs, alternating.
// --json FILE writes the same figures as JSON.
// Usage: gaplens-bench-timeline [--frames N] [--threshold-runs N] [--staged-runs N] [--width PX] [--height PX]
//        [--verify] [--json FILE] FILE_OR_FOLDER...
#include "ui/panels/gapblamepanel.h"
#include "ui/panels/panelcontext.h"
#include "ui/panels/rankpacepanel.h"
#include "ui/panels/summarypanel.h"
#include "ui/panels/topkernelspanel.h"
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include "gaplens/core/read/loader.h"
#include "gaplens/core/view/lod.h"

#include <QApplication>
#include <QEventLoop>
#include <QThread>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    int frames = 15, thresholdRuns = 9, stagedRuns = 3, width = 1920, height = 1080;
    bool verify = false;
    std::string jsonPath;
    gaplens::core::LoadOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--frames" && i + 1 < argc)
            frames = std::max(1, std::stoi(argv[++i]));
        else if (a == "--threshold-runs" && i + 1 < argc)
            thresholdRuns = std::max(1, std::stoi(argv[++i]));
        else if (a == "--staged-runs" && i + 1 < argc)
            stagedRuns = std::max(1, std::stoi(argv[++i]));
        else if (a == "--width" && i + 1 < argc)
            width = std::stoi(argv[++i]);
        else if (a == "--height" && i + 1 < argc)
            height = std::stoi(argv[++i]);
        else if (a == "--verify")
            verify = true;
        else if (a == "--json" && i + 1 < argc)
            jsonPath = argv[++i];
        else
            options.files.push_back(a);
    }
    if (options.files.empty()) {
        fmt::print(stderr,
            "usage: gaplens-bench-timeline [--frames N] [--threshold-runs N] [--staged-runs N] [--width PX] "
            "[--height PX] [--verify] [--json FILE] FILES...\n");
        return 2;
    }
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto trace = gaplens::core::loadTraceSet(options);
    const double loadS = std::chrono::duration<double>(Clock::now() - t0).count();
    std::size_t kernels = 0;
    for (const auto &gpu : trace->gpus)
        kernels += gpu.kernelCount();

    gaplens::ui::TimelineView view;
    view.resize(width, height);
    view.show();
    QApplication::processEvents();
    view.viewport()->repaint(); // the empty view's message: fonts are set up before the timing
    const auto shown = Clock::now();
    view.setData(gaplens::ui::timelineDataOf(trace));
    const double setDataMs = std::chrono::duration<double, std::milli>(Clock::now() - shown).count();
    view.viewport()->repaint();
    const double firstFrameMs = std::chrono::duration<double, std::milli>(Clock::now() - shown).count() - setDataMs;
    // The first frame of the process also fills Qt's glyph caches; the second is the drawing alone.
    const auto second = Clock::now();
    view.viewport()->repaint();
    const double secondFrameMs = std::chrono::duration<double, std::milli>(Clock::now() - second).count();
    view.model()->waitForGaps();
    const std::size_t gapCount = view.model()->gapCount();
    const double derivedS = std::chrono::duration<double>(Clock::now() - shown).count();
    QApplication::processEvents();

    const auto span = trace->span;
    const auto mid = span.start + span.duration() / 2;
    struct Window
    {
        const char *name;
        gaplens::core::TimeNs start, end;
    };
    const Window windows[] = {
        { "full zoom-out", span.start, span.end },
        { "mid zoom (1/100 of the capture)", mid - span.duration() / 200, mid + span.duration() / 200 },
        { "1 ms window", mid - 500'000, mid + 500'000 },
    };
    fmt::print("timeline: {} ranks, {} kernels, {}x{} px, load {:.2f} s; median of {} repaints\n", trace->ranks.size(),
        kernels, width, height, loadS, frames);
    fmt::print(
        "before the worker's results (full zoom-out): setData {:.1f} ms, first frame {:.1f} ms, second {:.1f} ms; "
        "busy lanes, {} gaps and fold indexes after {:.2f} s\n",
        setDataMs, firstFrameMs, secondFrameMs, gapCount, derivedS);
    // Every row of the capture (not only the visible ones), each stream of a merged lane.
    auto countDifferentDrawLists = [&view] {
        const auto *model = view.model();
        const auto window = view.zoom()->viewWindow();
        std::vector<gaplens::core::DrawItem> indexed, plain;
        auto same = [&] {
            return indexed.size() == plain.size()
                && std::equal(indexed.begin(), indexed.end(), plain.begin(), [](const auto &a, const auto &b) {
                       return a.start == b.start && a.end == b.end && a.first == b.first && a.last == b.last
                           && a.count == b.count;
                   });
        };
        std::size_t checked = 0, different = 0;
        for (const auto &row : model->rows()) {
            using gaplens::ui::RowKind;
            if (row.kind == RowKind::MergedKernels) {
                for (std::uint32_t i = 0; i < gaplens::ui::at(model->trace()->gpus, row.gpu).streams.size(); ++i) {
                    const gaplens::core::StreamIndex s(i);
                    model->streamDrawList(row.gpu, s, window, indexed);
                    gaplens::core::buildDrawList(model->streamView(row.gpu, s), window, plain);
                    ++checked;
                    different += !same();
                }
            } else if (row.kind != RowKind::RankHeader) {
                model->rowDrawList(row, window, indexed);
                gaplens::core::buildDrawList(model->rowView(row), window, plain);
                ++checked;
                different += !same();
            }
        }
        return std::pair { checked, different };
    };
    fmt::print("{:<34} {:>12} {:>12} {:>10}\n", "window", "paint ms", "frame ms", "items");
    std::string jsonWindows;
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
        jsonWindows
            += fmt::format("{}\n    {{\"window\": \"{}\", \"paint_ms\": {:.4f}, \"frame_ms\": {:.4f}, \"items\": {}}}",
                jsonWindows.empty() ? "" : ",", w.name, paint[paint.size() / 2], frame[frame.size() / 2],
                view.lastItemCount());
        if (verify) {
            const auto [checked, different] = countDifferentDrawLists();
            fmt::print("  draw lists through the fold index vs core::buildDrawList: {} rows, {} different\n", checked,
                different);
        }
    }

    // Threshold change to repaint, at full zoom-out, with the panels wired as in MainWindow.
    view.zoom()->setWindow(span.start, span.end, false);
    gaplens::ui::PanelContext panelContext;
    QObject::connect(view.model(), &gaplens::ui::TimelineModel::gapThresholdChanged, &panelContext,
        &gaplens::ui::PanelContext::setGapThreshold);
    const std::vector<gaplens::ui::AnalysisPanel *> panels { new gaplens::ui::SummaryPanel(panelContext, &view),
        new gaplens::ui::TopKernelsPanel(panelContext, &view), new gaplens::ui::GapBlamePanel(panelContext, &view),
        new gaplens::ui::RankPacePanel(panelContext, &view) };
    panelContext.setGapThreshold(view.model()->gapThreshold());
    panelContext.setData(view.model()->sharedData()); // the panels compute once for the capture first
    // Short sleeps between event-loop turns: the wait costs at most ~1 ms of the figure.
    auto waitUntil = [&](auto done) {
        const auto giveUp = Clock::now() + std::chrono::seconds(120);
        while (!done()) {
            QCoreApplication::processEvents(QEventLoop::AllEvents);
            QThread::usleep(200);
            if (Clock::now() > giveUp) {
                for (const auto *p : panels)
                    fmt::print(stderr, "panel {}: generation {}, computing {}\n", p->metaObject()->className(),
                        p->generation(), p->isComputing());
                fmt::print(stderr, "gave up waiting\n");
                std::exit(1);
            }
        }
    };
    auto panelsUpdated = [&panels](const std::vector<int> &before) {
        for (std::size_t i = 0; i < panels.size(); ++i)
            if (panels[i]->generation() <= before[i] || panels[i]->isComputing())
                return false;
        return true;
    };
    waitUntil([&] { return panelsUpdated(std::vector<int>(panels.size(), 0)); });
    const gaplens::core::TimeNs thresholds[] = { 50'000, 200'000, 500'000, 100'000 };
    std::vector<double> toFrame, toPanels;
    std::size_t lastGapCount = 0;
    for (int run = 0; run < thresholdRuns; ++run) {
        std::vector<int> before;
        for (const auto *p : panels)
            before.push_back(p->generation());
        bool painted = false;
        const auto c0 = Clock::now();
        // The view repaints on gapsChanged; the frame is painted at once here, as a user sees it.
        const auto connection = QObject::connect(view.model(), &gaplens::ui::TimelineModel::gapsChanged, &view, [&] {
            view.viewport()->repaint();
            toFrame.push_back(std::chrono::duration<double, std::milli>(Clock::now() - c0).count());
            painted = true;
        });
        view.model()->setGapThreshold(thresholds[run % 4]);
        waitUntil([&] { return painted; });
        QObject::disconnect(connection);
        waitUntil([&] { return panelsUpdated(before); });
        toPanels.push_back(std::chrono::duration<double, std::milli>(Clock::now() - c0).count());
        lastGapCount = view.model()->gapCount();
    }
    std::vector<double> sortedFrame = toFrame, sortedPanels = toPanels;
    std::sort(sortedFrame.begin(), sortedFrame.end());
    std::sort(sortedPanels.begin(), sortedPanels.end());
    const double toFrameMs = sortedFrame[sortedFrame.size() / 2], toPanelsMs = sortedPanels[sortedPanels.size() / 2];
    fmt::print(
        "threshold change to repaint (full zoom-out, median of {}): gaps applied + one frame {:.1f} ms "
        "(min {:.1f}, max {:.1f}); and every panel updated {:.1f} ms (min {:.1f}, max {:.1f}); {} gaps at the last\n",
        thresholdRuns, toFrameMs, sortedFrame.front(), sortedFrame.back(), toPanelsMs, sortedPanels.front(),
        sortedPanels.back(), lastGapCount);
    for (auto *p : panels)
        delete p;

    // Staged against single-stage: the load on a thread of its own (as LoadController's), the
    // frames painted on this one as soon as what they draw has arrived.
    auto secondsSince = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    // CPU seconds of the process too: the machine is often shared, and wall times then say
    // more about the neighbours than about the two loads.
    auto cpuSecondsSince = [](std::clock_t c) { return double(std::clock() - c) / CLOCKS_PER_SEC; };
    struct StagedFigures
    {
        std::vector<double> firstPaint, fullLoad, fullPaint, singleLoad, singlePaint, stagedCpu, singleCpu;
    } staged;
    std::size_t firstStageKernels = 0;
    for (int run = 0; run < stagedRuns; ++run) {
        {
            std::promise<std::shared_ptr<const gaplens::core::TraceSet>> firstStage;
            auto stagedOptions = options;
            std::atomic<bool> given { false };
            stagedOptions.onFirstStage = [&](std::shared_ptr<const gaplens::core::TraceSet> first) {
                given = true;
                firstStage.set_value(std::move(first));
            };
            std::shared_ptr<gaplens::core::TraceSet> full;
            const auto s0 = Clock::now();
            const auto c0 = std::clock();
            std::thread loader([&] {
                full = gaplens::core::loadTraceSet(stagedOptions);
                if (!given.exchange(true)) // no NVTX table, or no file: no first stage
                    firstStage.set_value(nullptr);
            });
            const auto first = firstStage.get_future().get();
            if (!first) {
                loader.join();
                fmt::print(stderr, "no first stage: the capture has no NVTX to wait for\n");
                return 1;
            }
            view.setData(gaplens::ui::firstStageDataOf(first));
            view.zoom()->setWindow(first->span.start, first->span.end, false);
            view.viewport()->repaint();
            staged.firstPaint.push_back(secondsSince(s0));
            firstStageKernels = 0;
            for (const auto &gpu : first->gpus)
                firstStageKernels += gpu.kernelCount();
            loader.join();
            staged.fullLoad.push_back(secondsSince(s0));
            view.setData(gaplens::ui::timelineDataOf(full));
            view.viewport()->repaint();
            staged.fullPaint.push_back(secondsSince(s0));
            staged.stagedCpu.push_back(cpuSecondsSince(c0));
        }
        {
            const auto s0 = Clock::now();
            const auto c0 = std::clock();
            auto single = gaplens::core::loadTraceSet(options);
            staged.singleLoad.push_back(secondsSince(s0));
            view.setData(gaplens::ui::timelineDataOf(single));
            view.viewport()->repaint();
            staged.singlePaint.push_back(secondsSince(s0));
            staged.singleCpu.push_back(cpuSecondsSince(c0));
        }
    }
    auto median = [](std::vector<double> values) {
        std::sort(values.begin(), values.end());
        return values[values.size() / 2];
    };
    const double firstPaintS = median(staged.firstPaint), stagedLoadS = median(staged.fullLoad),
                 stagedPaintS = median(staged.fullPaint), singleLoadS = median(staged.singleLoad),
                 singlePaintS = median(staged.singlePaint), stagedCpuS = median(staged.stagedCpu),
                 singleCpuS = median(staged.singleCpu);
    fmt::print("staged load (median of {}, alternating): first GPU-lane frame {:.3f} s ({} kernels), full capture "
               "loaded {:.3f} s and painted {:.3f} s, {:.3f} CPU-s; single-stage: loaded {:.3f} s, first frame "
               "{:.3f} s, {:.3f} CPU-s\n",
        stagedRuns, firstPaintS, firstStageKernels, stagedLoadS, stagedPaintS, stagedCpuS, singleLoadS, singlePaintS,
        singleCpuS);

    if (!jsonPath.empty()) {
        std::ofstream out(jsonPath);
        out << fmt::format("{{\n  \"ranks\": {}, \"kernels\": {}, \"width\": {}, \"height\": {}, \"frames\": {},\n"
                           "  \"load_seconds\": {:.3f}, \"set_data_ms\": {:.3f}, \"first_frame_ms\": {:.3f}, "
                           "\"second_frame_ms\": {:.3f},\n  \"gaps\": {}, \"worker_results_seconds\": {:.3f},\n"
                           "  \"threshold_to_frame_ms\": {:.3f}, \"threshold_to_panels_ms\": {:.3f},\n"
                           "  \"staged_first_paint_seconds\": {:.3f}, \"staged_load_seconds\": {:.3f}, "
                           "\"staged_full_paint_seconds\": {:.3f},\n  \"single_stage_load_seconds\": {:.3f}, "
                           "\"single_stage_first_paint_seconds\": {:.3f},\n  \"staged_cpu_seconds\": {:.3f}, "
                           "\"single_stage_cpu_seconds\": {:.3f},\n"
                           "  \"windows\": [{}\n  ]\n}}\n",
            trace->ranks.size(), kernels, width, height, frames, loadS, setDataMs, firstFrameMs, secondFrameMs,
            gapCount, derivedS, toFrameMs, toPanelsMs, firstPaintS, stagedLoadS, stagedPaintS, singleLoadS,
            singlePaintS, stagedCpuS, singleCpuS, jsonWindows);
        fmt::print("JSON written to {}\n", jsonPath);
    }
    return 0;
}
