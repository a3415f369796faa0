// SPDX-License-Identifier: MIT
// `pace`: which rank is slow — per-rank iterations of a repeating NVTX range.
#include "command_context.h"

#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/units.h"

#include <fmt/format.h>

#include <cstdio>

namespace gaplens::cli {

int runPace(const CommandContext &ctx)
{
    const auto &trace = ctx.t();
    const auto name = ctx.options.range ? ctx.options.range : core::proposePaceRangeName(trace);
    if (!name) {
        std::fprintf(stderr, "gaplens-cli: error: the capture has no NVTX ranges, so there is no step to pace\n");
        return 1;
    }
    core::PaceOptions options;
    options.rangeName = *name;
    options.ranks = ctx.rankSelection();
    options.useGpuProjection = ctx.options.gpuProjection;
    const auto pace = core::computePace(trace, options);
    core::StepAccountingOptions stepOptions;
    stepOptions.includeCopies = ctx.options.withCopies;
    const auto steps = core::computeStepAccounting(trace, pace, stepOptions);
    if (pace.ranks.empty()) {
        std::fprintf(stderr, "gaplens-cli: error: no rank has an NVTX range named '%s'\n", name->c_str());
        return 1;
    }
    const std::string verdict = pace.straggler ? core::describeStraggler(trace, *pace.straggler)
                                               : std::string("no rank is consistently the slowest");

    if (ctx.options.format == Format::Json) {
        JsonWriter json;
        beginJsonDocument(json, ctx);
        json.field("range", pace.rangeName);
        json.field("time", ctx.options.gpuProjection ? "gpu_projection" : "cpu");
        json.key("ranks").beginArray();
        for (std::size_t i = 0; i < pace.ranks.size(); ++i) {
            const auto &r = pace.ranks[i];
            json.beginObject();
            json.field("rank", ctx.rankNumber(r.rank));
            json.field("median_ns", r.medianNs);
            json.field("p95_ns", r.p95Ns);
            json.field("times_slowest", r.timesSlowest);
            json.key("iterations").beginArray();
            for (std::size_t k = 0; k < r.iterations.size(); ++k) {
                const auto &it = r.iterations[k];
                json.beginObject();
                json.field("index", std::uint64_t(k));
                json.field("start_ns", it.time.start);
                json.field("end_ns", it.time.end);
                json.field("duration_ns", it.durationNs);
                json.field("delta_ns", it.deltaToPreviousNs);
                if (i < steps.size() && k < steps[i].steps.size()) {
                    json.field("kernel_ns", steps[i].steps[k].kernelNs);
                    json.field("gpu_busy_ns", steps[i].steps[k].busyNs);
                    json.field("gpu_busy_pct", steps[i].steps[k].busyPercent);
                }
                json.endObject();
            }
            json.endArray();
            json.endObject();
        }
        json.endArray();
        json.key("iterations").beginArray();
        for (const auto &it : pace.iterations) {
            json.beginObject();
            json.field("index", it.index);
            json.field("median_ns", it.medianNs);
            if (it.slowestRank == core::kNoIndex)
                json.key("slowest_rank").null(); // several ranks tie
            else
                json.field("slowest_rank", ctx.rankNumber(it.slowestRank));
            json.field("slowest_ns", it.slowestNs);
            json.endObject();
        }
        json.endArray();
        if (pace.straggler) {
            const auto &s = *pace.straggler;
            json.key("straggler").beginObject();
            json.field("rank", ctx.rankNumber(s.rank));
            json.field("slowest_count", s.slowestCount);
            json.field("iterations", s.iterations);
            json.field("pct_above_median", s.percentAboveMedian);
            json.field("text", verdict);
            json.endObject();
        } else {
            json.key("straggler").null();
        }
        json.field("verdict", verdict);
        json.endObject();
        printJson(json);
        return 0;
    }

    // Iterations x ranks matrix: each cell the duration, the slowest of the row marked with '*'.
    Table matrix(fmt::format("Pace of NVTX range '{}' ({} time); * = slowest rank of the iteration", pace.rangeName,
                             ctx.options.gpuProjection ? "GPU-projected" : "CPU"));
    matrix.addColumn("iteration", "index");
    for (const auto &r : pace.ranks)
        matrix.addColumn(fmt::format("rank {}", ctx.rankNumber(r.rank)), fmt::format("rank_{}_ns", ctx.rankNumber(r.rank)));
    matrix.addColumn("median", "median_ns");
    for (const auto &it : pace.iterations) {
        std::vector<Cell> row{countCell(it.index)};
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
    for (const char *h : {"rank", "iterations", "median", "p95", "times slowest", "kernel time/step", "GPU busy/step"})
        perRank.addColumn(h);
    for (std::size_t i = 0; i < pace.ranks.size(); ++i) {
        const auto &r = pace.ranks[i];
        double kernelSum = 0, busyPctSum = 0;
        std::size_t n = i < steps.size() ? steps[i].steps.size() : 0;
        for (std::size_t k = 0; k < n; ++k) {
            kernelSum += double(steps[i].steps[k].kernelNs);
            busyPctSum += steps[i].steps[k].busyPercent;
        }
        perRank.addRow({countCell(std::uint64_t(ctx.rankNumber(r.rank))), countCell(r.iterations.size()),
                        durationCell(r.medianNs), durationCell(double(r.p95Ns)), countCell(r.timesSlowest),
                        n ? durationCell(kernelSum / double(n)) : textCell("-"),
                        n ? percentCell(busyPctSum / double(n)) : textCell("-")});
    }
    printTables(ctx.options.format, {matrix, perRank});
    if (ctx.options.format == Format::Table)
        std::printf("\nverdict: %s\n", verdict.c_str());
    return 0;
}

} // namespace gaplens::cli
