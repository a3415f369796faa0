// SPDX-License-Identifier: MIT
// `digest`: one file with every rank's figures and the path of its report, which the desktop
// app opens as an overview of all ranks (docs/digest.md). Each piece is the JSON its own
// command writes (command_json.h), so the digest says what the commands say.
#include "command_context.h"
#include "command_json.h"

#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/analysis/step_range.h"
#include "gaplens/core/read/digest.h"

#include <cstdio>
#include <filesystem>
#include <limits>

namespace gaplens::cli {
namespace {

std::string absolutePath(const std::string &path)
{
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(path, ec);
    return ec ? path : absolute.lexically_normal().string();
}

Json captureJson(const core::TraceSet &trace)
{
    Json capture;
    capture["span_start_ns"] = trace.span.start;
    capture["span_end_ns"] = trace.span.end;
    Json files = Json::array(), errors = Json::array();
    for (const auto &r : trace.reports)
        files.push_back(absolutePath(r.path));
    for (const auto &e : trace.errors) {
        Json error;
        error["file"] = absolutePath(e.path);
        error["message"] = e.message;
        errors.push_back(std::move(error));
    }
    capture["files"] = std::move(files);
    capture["errors"] = std::move(errors);
    capture["warnings"] = captureWarningsJson(trace);
    return capture;
}

DigestParts computeParts(const CommandContext &ctx, const std::optional<std::string> &stepRange)
{
    const auto &trace = ctx.t();
    DigestParts parts;
    if (stepRange) {
        core::PaceOptions paceOptions;
        paceOptions.rangeName = *stepRange;
        parts.pace = core::computePace(trace, paceOptions);
        if (parts.pace->ranks.empty()) {
            parts.pace.reset();
        } else {
            core::StepAccountingOptions stepOptions;
            stepOptions.includeCopies = ctx.options.withCopies;
            parts.steps = core::computeStepAccounting(trace, *parts.pace, stepOptions);
        }
        auto accountingOptions = runAccountingOptions(ctx.options);
        accountingOptions.stepRange = *stepRange;
        auto accounting = core::computeRunAccounting(trace, accountingOptions);
        if (accounting.error.empty())
            parts.accounting = std::move(accounting);
    }
    parts.kernels = core::summarizeKernelsPerRank(trace);
    auto intervalOptions = cli::intervalOptions(ctx.options);
    intervalOptions.top = std::numeric_limits<std::size_t>::max(); // every anomalous interval
    parts.intervals = core::computeIntervals(ctx.derivedKernelsOnly(), intervalOptions);
    parts.slots = presentCopySlots(parts.intervals);
    core::CaptureSummaryOptions findingOptions;
    findingOptions.minGapNs = ctx.options.minGapNs;
    if (parts.pace)
        findingOptions.stepRange = parts.pace->rangeName;
    parts.findings = core::summarizeCapture(ctx.derivedKernelsOnly(), findingOptions).findings;
    return parts;
}

} // namespace

Json digestRankJson(const CommandContext &ctx, const DigestParts &parts, std::uint32_t r)
{
    const auto &trace = ctx.t();
    const auto &derived = ctx.derived();
    const auto &rank = trace.ranks[r];
    Json out;
    out["rank"] = rank.rank;
    out["report"] = absolutePath(trace.reports[rank.report].path);
    out["pid"] = rank.pid;
    out["process"] = rank.processName;
    out["host"] = rank.host;
    out["span_start_ns"] = rank.span.start;
    out["span_end_ns"] = rank.span.end;

    core::TimeNs busy = 0, window = 0, gapNs = 0;
    std::uint64_t gapCount = 0, kernels = 0, copies = 0;
    Json devices = Json::array();
    for (auto g : rank.gpus) {
        const auto &b = derived.busy(core::GpuIndex(g));
        const auto &gaps = derived.gaps(core::GpuIndex(g));
        busy += b.busyNs;
        window += b.window.duration();
        gapCount += gaps.size();
        gapNs += gaps.totalNs;
        kernels += trace.gpus[g].kernelCount();
        copies += trace.gpus[g].copies.size();
        devices.push_back(deviceSummaryJson(ctx, r, g));
    }
    out["busy_ns"] = busy;
    out["window_ns"] = window;
    out["idle_ns"] = window - busy;
    out["idle_pct"] = window > 0 ? 100.0 * double(window - busy) / double(window) : 0.0;
    out["gap_count"] = gapCount;
    out["gap_ns"] = gapNs;
    out["kernel_count"] = kernels;
    out["copy_count"] = copies;
    std::optional<double> medianStep;
    if (parts.pace)
        for (const auto &p : parts.pace->ranks)
            if (p.rank == r && !p.iterations.empty())
                medianStep = p.medianNs;
    out["median_step_ns"] = numberOrNull(medianStep);
    out["devices"] = std::move(devices);

    Json blame;
    const auto *totals = derived.totalsOfRank(core::RankIndex(r));
    addBlameTotals(blame, ctx, totals ? *totals : core::BlameTotals {});
    out["blame"] = std::move(blame);

    Json topKernels;
    for (const auto &s : parts.kernels)
        if (s.rank == r)
            addKernelSummaryRows(topKernels, ctx, s, 10);
    out["top_kernels"] = std::move(topKernels);

    Json intervals = nullptr, transfers = nullptr;
    for (std::size_t e = 0; e < parts.intervals.ranks.size(); ++e)
        if (parts.intervals.ranks[e].rank == r) {
            intervals = Json::object();
            addIntervalRankFields(intervals, ctx, parts.intervals, e, parts.slots);
            transfers = Json::object();
            transfers["totals"] = copiesJson(rankCopyTotals(parts.intervals, e), parts.slots, true);
            transfers["ping_pong"] = pingPongJson(parts.intervals.pingPong[e]);
        }
    out["intervals"] = std::move(intervals);
    out["transfers"] = std::move(transfers);

    Json accounting = nullptr;
    if (parts.accounting)
        for (const auto &a : parts.accounting->ranks)
            if (a.rank == r)
                accounting = runAccountingRankJson(a, *parts.accounting);
    out["run_accounting"] = std::move(accounting);
    return out;
}

int writeDigest(const CommandContext &ctx, const DigestParts &parts, std::vector<Json> ranks)
{
    const auto &trace = ctx.t();
    if (ctx.options.range && !parts.pace)
        std::fprintf(stderr, "gaplens-cli: warning: no rank has an NVTX range named '%s': no pace in the digest\n",
            ctx.options.range->c_str());

    Json doc;
    doc["format"] = std::string(core::kDigestFormat);
    doc["version"] = core::kDigestVersion;
    doc["capture"] = captureJson(trace);
    Json settings;
    settings["min_gap_ns"] = ctx.options.minGapNs;
    settings["with_copies"] = ctx.options.withCopies;
    settings["interval_ns"] = parts.intervals.intervalNs;
    settings["origin_ns"] = parts.intervals.originNs;
    settings["metric"] = std::string(core::intervalMetricName(parts.intervals.metric));
    settings["step_range"] = parts.pace ? Json(parts.pace->rangeName) : Json(nullptr);
    doc["settings"] = std::move(settings);
    for (std::uint32_t r = 0; r < ranks.size(); ++r) {
        Json findings = Json::array();
        for (const auto &f : parts.findings)
            if (f.rank == r)
                findings.push_back(f.text);
        ranks[r]["findings"] = std::move(findings);
    }
    doc["ranks"] = std::move(ranks);
    Json findings = Json::array();
    for (const auto &f : parts.findings) {
        Json finding;
        finding["rank"] = rankNumberOrNull(ctx, f.rank);
        finding["text"] = f.text;
        findings.push_back(std::move(finding));
    }
    doc["findings"] = std::move(findings);
    Json pace = nullptr;
    if (parts.pace) {
        pace = Json::object();
        addPaceFields(pace, ctx, *parts.pace, parts.steps);
    }
    doc["pace"] = std::move(pace);

    // Never beside or over a report: only where --out says, and never onto an input.
    std::vector<std::string> inputs = ctx.options.files;
    for (const auto &r : trace.reports)
        inputs.push_back(r.path);
    const auto error = core::writeDigestFile(
        ctx.options.outputPath, doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n", inputs);
    if (!error.empty()) {
        std::fprintf(stderr, "gaplens-cli: error: %s\n", error.c_str());
        return 1;
    }
    std::printf("digest of %zu rank(s) written to %s\n", trace.ranks.size(), ctx.options.outputPath.c_str());
    return 0;
}

int runDigest(const CommandContext &ctx)
{
    const auto &trace = ctx.t();
    const auto stepRange = ctx.options.range ? ctx.options.range : core::proposePaceRangeName(trace);
    const auto parts = computeParts(ctx, stepRange);
    std::vector<Json> ranks;
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r)
        ranks.push_back(digestRankJson(ctx, parts, r));
    return writeDigest(ctx, parts, std::move(ranks));
}

} // namespace gaplens::cli
