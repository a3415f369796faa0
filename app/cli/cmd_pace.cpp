// SPDX-License-Identifier: MIT
// `pace`: which rank is slow — per-rank iterations of a repeating NVTX range.
#include "command_context.h"
#include "command_json.h"

#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/step_range.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <cstdio>

namespace gaplens::cli {

std::string paceVerdict(const core::TraceSet &trace, const core::PaceReport &pace)
{
    return pace.straggler ? core::describeStraggler(trace, *pace.straggler)
                          : std::string("no rank is consistently the slowest");
}

void addPaceFields(
    Json &doc, const CommandContext &ctx, const core::PaceReport &pace, const std::vector<core::RankSteps> &steps)
{
    const auto verdict = paceVerdict(ctx.t(), pace);
    doc["range"] = pace.rangeName;
    doc["time"] = ctx.options.gpuProjection ? "gpu_projection" : "cpu";
    doc["ranks"] = perRankJson(ctx, pace.ranks, [&](const auto &r, std::size_t i, Json &out) {
        out["median_ns"] = r.medianNs;
        out["p95_ns"] = r.p95Ns;
        out["times_slowest"] = r.timesSlowest;
        Json iterations = Json::array();
        for (std::size_t k = 0; k < r.iterations.size(); ++k) {
            const auto &it = r.iterations[k];
            Json iteration;
            iteration["index"] = std::uint64_t(k);
            iteration["start_ns"] = it.time.start;
            iteration["end_ns"] = it.time.end;
            iteration["duration_ns"] = it.durationNs;
            iteration["delta_ns"] = it.deltaToPreviousNs;
            if (i < steps.size() && k < steps[i].steps.size()) {
                iteration["kernel_ns"] = steps[i].steps[k].kernelNs;
                iteration["gpu_busy_ns"] = steps[i].steps[k].busyNs;
                iteration["gpu_busy_pct"] = steps[i].steps[k].busyPercent;
            }
            iterations.push_back(std::move(iteration));
        }
        out["iterations"] = std::move(iterations);
    });
    Json iterations = Json::array();
    for (const auto &it : pace.iterations) {
        Json out;
        out["index"] = it.index;
        out["median_ns"] = it.medianNs;
        // kNoIndex: several ranks tie for the slowest.
        out["slowest_rank"] = rankNumberOrNull(ctx, it.slowestRank);
        out["slowest_ns"] = it.slowestNs;
        iterations.push_back(std::move(out));
    }
    doc["iterations"] = std::move(iterations);
    Json straggler = nullptr;
    if (pace.straggler) {
        const auto &s = *pace.straggler;
        straggler["rank"] = ctx.rankNumber(s.rank);
        straggler["slowest_count"] = s.slowestCount;
        straggler["iterations"] = s.iterations;
        straggler["pct_above_median"] = s.percentAboveMedian;
        straggler["text"] = verdict;
    }
    doc["straggler"] = std::move(straggler);
    doc["verdict"] = verdict;
}

core::PaceOptions paceOptions(const CommandContext &ctx, const std::string &rangeName)
{
    core::PaceOptions options;
    options.rangeName = rangeName;
    options.ranks = ctx.rankSelection();
    options.useGpuProjection = ctx.options.gpuProjection;
    return options;
}

core::StepAccountingOptions stepAccountingOptions(const Options &options)
{
    core::StepAccountingOptions stepOptions;
    stepOptions.includeCopies = options.withCopies;
    return stepOptions;
}

int printNoStepRange(const core::StepRangeChoice &choice)
{
    const auto why = core::describeMissingStepRange(choice);
    std::fprintf(stderr, "gaplens-cli: error: no step to pace: %s; choose one with --range NAME\n", why.c_str());
    return 1;
}

int runPace(const CommandContext &ctx)
{
    const auto &trace = ctx.t();
    const auto name = ctx.options.range ? ctx.options.range : core::proposePaceRangeName(trace);
    if (!name)
        return printNoStepRange(core::chooseStepRange(trace));
    const auto pace = core::computePace(trace, paceOptions(ctx, *name));
    return printPace(ctx, pace, core::computeStepAccounting(trace, pace, stepAccountingOptions(ctx.options)));
}

int printPace(const CommandContext &ctx, const core::PaceReport &pace, const std::vector<core::RankSteps> &steps)
{
    if (pace.ranks.empty()) {
        std::fprintf(stderr, "gaplens-cli: error: no rank has an NVTX range named '%s'\n", pace.rangeName.c_str());
        return 1;
    }
    const std::string verdict = paceVerdict(ctx.t(), pace);

    if (ctx.options.format == Format::Json) {
        auto doc = jsonDocument(ctx);
        addPaceFields(doc, ctx, pace, steps);
        printJson(doc);
        return 0;
    }

    // Iterations x ranks matrix: each cell the duration, the slowest of the row marked with '*'.
    Table matrix(fmt::format("Pace of NVTX range '{}' ({} time); * = slowest rank of the iteration", pace.rangeName,
        ctx.options.gpuProjection ? "GPU-projected" : "CPU"));
    matrix.addColumn("iteration", "index");
    for (const auto &r : pace.ranks)
        matrix.addColumn(
            fmt::format("rank {}", ctx.rankNumber(r.rank)), fmt::format("rank_{}_ns", ctx.rankNumber(r.rank)));
    matrix.addColumn("median", "median_ns");
    for (const auto &it : pace.iterations) {
        std::vector<Cell> row { countCell(it.index) };
        for (const auto &r : pace.ranks) {
            auto cell = durationCell(double(r.iterations[it.index].durationNs));
            if (r.rank == it.slowestRank)
                cell.text += " *";
            row.push_back(cell);
        }
        row.push_back(durationCell(it.medianNs));
        matrix.addRow(std::move(row));
    }

    Table perRank("Per rank");
    for (const char *h :
        { "rank", "iterations", "median", "p95", "times slowest", "kernel time/step", "GPU busy/step" })
        perRank.addColumn(h);
    for (std::size_t i = 0; i < pace.ranks.size(); ++i) {
        const auto &r = pace.ranks[i];
        double kernelSum = 0, busyPctSum = 0;
        std::size_t n = i < steps.size() ? steps[i].steps.size() : 0;
        for (std::size_t k = 0; k < n; ++k) {
            kernelSum += double(steps[i].steps[k].kernelNs);
            busyPctSum += steps[i].steps[k].busyPercent;
        }
        perRank.addRow({ countCell(std::uint64_t(ctx.rankNumber(r.rank))), countCell(r.iterations.size()),
            durationCell(r.medianNs), durationCell(double(r.p95Ns)), countCell(r.timesSlowest),
            n ? durationCell(kernelSum / double(n)) : textCell("-"),
            n ? percentCell(busyPctSum / double(n)) : textCell("-") });
    }
    printTables(ctx.options.format, { matrix, perRank });
    if (ctx.options.format == Format::Table)
        std::printf("\nverdict: %s\n", verdict.c_str());
    return 0;
}

} // namespace gaplens::cli
