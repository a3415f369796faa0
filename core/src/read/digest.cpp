// SPDX-License-Identifier: MIT
#include "gaplens/core/read/digest.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <system_error>

namespace gaplens::core {
namespace {

using nlohmann::json;

// Thrown inside the reader only: the JSON path of the field and what is wrong with it.
struct Problem
{
    std::string where, what;
};

// Thrown inside the reader only: its CancelToken was set.
struct Cancelled
{
};

constexpr std::uint64_t kProgressStep = 1 << 20; // bytes read or parsed between two reports

// Reports a read's progress and stops it (by throwing Cancelled) once it is cancelled.
class Reporter
{
public:
    Reporter(const DigestProgressFn &progress, const CancelToken *cancel)
        : m_progress(progress)
        , m_cancel(cancel)
    {
    }
    // `done` of `total` in `stage`, which spans `from`..`to` per mille of the whole read.
    void report(std::string_view stage, std::uint64_t done, std::uint64_t total, int from, int to) const
    {
        if (m_cancel && m_cancel->isCancelled())
            throw Cancelled {};
        if (!m_progress)
            return;
        const double fraction = total > 0 ? double(std::min(done, total)) / double(total) : 1.0;
        m_progress({ stage, done, total, from + int(fraction * (to - from)) });
        if (m_cancel && m_cancel->isCancelled()) // the callback may wait; do not go on cancelled
            throw Cancelled {};
    }

private:
    const DigestProgressFn &m_progress;
    const CancelToken *m_cancel;
};

// The text as nlohmann's parser reads it, one character at a time: every kProgressStep
// characters it reports how far the parse has come (and stops a cancelled one).
class ParseIterator
{
public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char *;
    using reference = const char &;

    struct Text
    {
        std::string_view text;
        const Reporter &reporter;
        std::size_t nextReport = kProgressStep;
    };

    ParseIterator() = default;
    ParseIterator(Text *text, std::size_t offset)
        : m_text(text)
        , m_offset(offset)
    {
    }
    reference operator*() const { return m_text->text[m_offset]; }
    ParseIterator &operator++()
    {
        if (++m_offset == m_text->nextReport) {
            m_text->nextReport += kProgressStep;
            m_text->reporter.report("parsing", m_offset, m_text->text.size(), 50, 750);
        }
        return *this;
    }
    ParseIterator operator++(int)
    {
        auto before = *this;
        ++*this;
        return before;
    }
    bool operator==(const ParseIterator &other) const { return m_offset == other.m_offset; }

private:
    Text *m_text = nullptr;
    std::size_t m_offset = 0;
};

// A JSON value and its path ("ranks[3].busy_ns"), with typed accessors that name the field
// and the expected type when the value is missing or of another type. The path is spelled
// out only for an error (from the chain of parents, which outlive their children here):
// formatting it for every field was a third of the time of checking a large digest.
class Field
{
public:
    explicit Field(const json &document)
        : m_value(document)
    {
    }

    const json &value() const { return m_value; }
    bool isNull() const { return m_value.is_null(); }

    Field at(std::string_view key) const
    {
        if (!m_value.is_object())
            fail("expected an object");
        const auto it = m_value.find(key);
        if (it == m_value.end())
            throw Problem { Field(m_value, this, key).path(), "missing" };
        return { *it, this, key };
    }
    // A field that may be absent; null either way when absent.
    std::optional<Field> find(std::string_view key) const
    {
        if (!m_value.is_object())
            fail("expected an object");
        const auto it = m_value.find(key);
        if (it == m_value.end())
            return std::nullopt;
        return Field { *it, this, key };
    }

    template <class Each> void forEach(Each each) const
    {
        if (!m_value.is_array())
            fail("expected an array");
        for (std::size_t i = 0; i < m_value.size(); ++i)
            each(Field { m_value[i], this, i });
    }

    std::string path() const
    {
        if (!m_parent)
            return {};
        const auto parent = m_parent->path();
        if (!m_key.data()) // an element of an array
            return fmt::format("{}[{}]", parent, m_index);
        return parent.empty() ? std::string(m_key) : fmt::format("{}.{}", parent, m_key);
    }

    std::int64_t integer() const
    {
        if (m_value.is_number_integer()
            && !(m_value.is_number_unsigned()
                && m_value.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())))
            return m_value.get<std::int64_t>();
        fail("expected an integer");
    }
    std::uint64_t count() const
    {
        if (m_value.is_number_unsigned())
            return m_value.get<std::uint64_t>();
        if (m_value.is_number_integer() && m_value.get<std::int64_t>() >= 0)
            return std::uint64_t(m_value.get<std::int64_t>());
        fail("expected a count (an integer of at least 0)");
    }
    std::int32_t rank() const
    {
        const auto n = integer();
        if (n < std::numeric_limits<std::int32_t>::min() || n > std::numeric_limits<std::int32_t>::max())
            fail("rank number out of range");
        return std::int32_t(n);
    }
    double number() const
    {
        if (m_value.is_number())
            return m_value.get<double>();
        fail("expected a number");
    }
    std::optional<double> numberOrNull() const { return m_value.is_null() ? std::nullopt : std::optional(number()); }
    std::optional<std::int32_t> rankOrNull() const { return m_value.is_null() ? std::nullopt : std::optional(rank()); }
    std::string text() const
    {
        if (m_value.is_string())
            return m_value.get<std::string>();
        fail("expected a string");
    }
    bool boolean() const
    {
        if (m_value.is_boolean())
            return m_value.get<bool>();
        fail("expected true or false");
    }

    [[noreturn]] void fail(std::string what) const { throw Problem { path(), std::move(what) }; }

private:
    Field(const json &value, const Field *parent, std::string_view key)
        : m_value(value)
        , m_parent(parent)
        , m_key(key)
    {
    }
    Field(const json &value, const Field *parent, std::size_t index)
        : m_value(value)
        , m_parent(parent)
        , m_index(index)
    {
    }

    const json &m_value;
    const Field *m_parent = nullptr; // null for the document
    std::string_view m_key; // null data() for an element of an array
    std::size_t m_index = 0;
};

// A rank's `intervals` object: its rows, and which of them are anomalous.
void readIntervals(const Field &intervals, DigestRank &r)
{
    intervals.at("intervals").forEach([&](const Field &i) {
        DigestInterval iv;
        iv.index = i.at("index").integer();
        iv.startNs = i.at("start_ns").integer();
        iv.kernelCount = i.at("kernel_count").count();
        iv.kernelNs = i.at("kernel_ns").integer();
        iv.kernelStddevNs = i.at("kernel_stddev_ns").numberOrNull();
        iv.busyNs = i.at("busy_ns").integer();
        iv.stallNs = i.at("stall_ns").integer();
        // A rank's intervals are consecutive from its first (intervals' rows are).
        if (!r.intervals.empty()) {
            const auto previous = r.intervals.back().index;
            if (previous == std::numeric_limits<std::int64_t>::max() || iv.index != previous + 1)
                i.at("index").fail(fmt::format("expected {} (the interval after the previous one)", previous + 1));
        }
        r.intervals.push_back(iv);
    });
    if (!r.intervals.empty())
        intervals.at("anomalies").forEach([&](const Field &a) {
            const auto index = a.at("index").integer();
            const auto first = r.intervals.front().index;
            // Unsigned: the distance of any two int64 values fits, never overflows.
            if (index >= first && std::uint64_t(index) - std::uint64_t(first) < r.intervals.size())
                r.intervals[std::size_t(std::uint64_t(index) - std::uint64_t(first))].anomalous = true;
        });
}

DigestRank readRank(const Field &f)
{
    DigestRank r;
    r.rank = f.at("rank").rank();
    r.report = f.at("report").text();
    const auto pid = f.at("pid").count();
    if (pid > std::numeric_limits<std::uint32_t>::max())
        f.at("pid").fail("process id out of range");
    r.pid = std::uint32_t(pid);
    r.process = f.at("process").text();
    r.host = f.at("host").text();
    r.span = { f.at("span_start_ns").integer(), f.at("span_end_ns").integer() };
    r.busyNs = f.at("busy_ns").integer();
    r.windowNs = f.at("window_ns").integer();
    r.idleNs = f.at("idle_ns").integer();
    f.at("devices").forEach([&](const Field &d) {
        ++r.gpuCount;
        for (const auto key : { "idle_before_first_ns", "idle_after_last_ns" }) {
            const auto idle = d.at(key);
            const auto ns = idle.integer();
            if (ns < 0 || __builtin_add_overflow(r.idleOutsideNs, ns, &r.idleOutsideNs))
                idle.fail("expected a duration (0 or more, not overflowing the rank's sum)");
        }
    });
    r.gapCount = f.at("gap_count").count();
    r.gapNs = f.at("gap_ns").integer();
    r.medianStepNs = f.at("median_step_ns").numberOrNull();
    f.at("blame").at("by_cause").forEach([&](const Field &c) {
        r.blameByCause.push_back({ c.at("label").text(), c.at("count").count(), c.at("total_ns").integer() });
    });
    f.at("top_kernels").at("kernels").forEach([&](const Field &k) {
        r.topKernels.push_back({ k.at("name").text(), k.at("calls").count(), k.at("total_ns").integer(),
            k.at("pct").number(), k.at("median_ns").number() });
    });
    // null for a rank without GPU work (no interval grid of its own).
    if (const auto intervals = f.at("intervals"); !intervals.isNull())
        readIntervals(intervals, r);
    const auto accounting = f.at("run_accounting");
    r.hasRunAccounting = !accounting.isNull();
    if (r.hasRunAccounting)
        r.sustainedRate = accounting.at("sustained_rate").numberOrNull();
    f.at("findings").forEach([&](const Field &t) { r.findings.push_back(t.text()); });
    return r;
}

DigestPace readPace(const Field &f)
{
    DigestPace p;
    p.range = f.at("range").text();
    f.at("ranks").forEach([&](const Field &r) {
        DigestPaceRank rank;
        rank.rank = r.at("rank").rank();
        rank.medianNs = r.at("median_ns").number();
        rank.p95Ns = r.at("p95_ns").integer();
        rank.timesSlowest = std::uint32_t(r.at("times_slowest").count());
        r.at("iterations").forEach([&](const Field &i) { rank.durationsNs.push_back(i.at("duration_ns").integer()); });
        p.ranks.push_back(std::move(rank));
    });
    f.at("iterations").forEach([&](const Field &i) {
        p.iterationMedianNs.push_back(i.at("median_ns").number());
        p.slowestRank.push_back(i.at("slowest_rank").rankOrNull());
    });
    const auto straggler = f.at("straggler");
    if (!straggler.isNull())
        p.straggler = straggler.at("rank").rank();
    p.verdict = f.at("verdict").text();
    return p;
}

Digest readDocument(const Field &top, const Reporter &reporter)
{
    if (!top.value().is_object())
        top.fail("expected a JSON object");
    const auto format = top.find("format");
    if (!format || !format->value().is_string() || format->text() != kDigestFormat)
        throw Problem { "format", fmt::format("not a gaplens digest (expected \"format\": \"{}\")", kDigestFormat) };
    Digest d;
    const auto version = top.at("version").integer();
    if (version > kDigestVersion)
        throw Problem { "version",
            fmt::format("version {} is newer than this gaplens reads ({}); update gaplens", version, kDigestVersion) };
    if (version < 1)
        throw Problem { "version", fmt::format("unknown version {}", version) };
    d.version = int(version);

    const auto capture = top.at("capture");
    d.span = { capture.at("span_start_ns").integer(), capture.at("span_end_ns").integer() };
    capture.at("files").forEach([&](const Field &f) { d.files.push_back(f.text()); });
    capture.at("errors").forEach([&](const Field &e) {
        d.errors.push_back({ e.at("file").text(), e.at("message").text() });
    });
    capture.at("warnings").forEach([&](const Field &w) { d.warnings.push_back(w.text()); });

    const auto settings = top.at("settings");
    d.minGapNs = settings.at("min_gap_ns").integer();
    d.intervalNs = settings.at("interval_ns").integer();
    d.originNs = settings.at("origin_ns").integer();
    d.metric = settings.at("metric").text();

    const auto ranks = top.at("ranks");
    const auto rankCount = std::uint64_t(ranks.value().is_array() ? ranks.value().size() : 0);
    ranks.forEach([&](const Field &r) {
        d.ranks.push_back(readRank(r));
        // Freed once read (the document is parseDigest's, not const): the ranks are most of a
        // large digest's memory, and freeing them all at the end took seconds after the last
        // progress report.
        const_cast<json &>(r.value()) = nullptr;
        reporter.report("checking", d.ranks.size(), rankCount, 750, 1000);
    });
    top.at("findings").forEach([&](const Field &f) {
        d.findings.push_back({ f.at("rank").rankOrNull(), f.at("text").text() });
    });
    const auto pace = top.at("pace");
    if (!pace.isNull())
        d.pace = readPace(pace);
    return d;
}

} // namespace

DigestReadResult parseDigest(
    std::string_view text, const std::string &name, const DigestProgressFn &progress, const CancelToken *cancel)
{
    DigestReadResult result;
    if (text.empty()) {
        result.error = fmt::format("{}: not JSON (the file is empty)", name);
        return result;
    }
    const Reporter reporter(progress, cancel);
    try {
        json document;
        try {
            ParseIterator::Text walked { text, reporter };
            document = json::parse(ParseIterator(&walked, 0), ParseIterator(&walked, text.size()));
        } catch (const json::exception &e) {
            // e.what() says where: "parse error at line 3, column 7: ..."
            result.error = fmt::format("{}: not JSON ({})", name, e.what());
            return result;
        }
        try {
            result.digest = readDocument(Field(document), reporter);
        } catch (const Problem &p) {
            result.error
                = fmt::format("{}: {}: {}", name, p.where.empty() ? std::string("top level") : p.where, p.what);
        }
    } catch (const Cancelled &) {
        result = { std::nullopt, {}, true };
    }
    return result;
}

DigestReadResult readDigest(const std::string &path, const DigestProgressFn &progress, const CancelToken *cancel)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return { std::nullopt, fmt::format("{}: cannot open the file", path) };
    // In steps, so that a large digest (hundreds of MB for a thousand ranks) shows progress.
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    std::string contents;
    const Reporter reporter(progress, cancel);
    try {
        contents.reserve(ec ? 0 : std::size_t(size));
        std::string chunk(kProgressStep, '\0');
        while (in.read(chunk.data(), std::streamsize(chunk.size())) || in.gcount() > 0) {
            contents.append(chunk.data(), std::size_t(in.gcount()));
            reporter.report("reading", contents.size(), ec ? contents.size() : size, 0, 50);
        }
    } catch (const Cancelled &) {
        return { std::nullopt, {}, true };
    }
    if (in.bad())
        return { std::nullopt, fmt::format("{}: cannot read the file", path) };
    return parseDigest(contents, path, progress, cancel);
}

std::string writeDigestFile(const std::string &path, std::string_view contents, const std::vector<std::string> &inputs)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const auto &input : inputs)
        if (fs::equivalent(path, input, ec))
            return fmt::format("{}: refusing to overwrite an input file", path);
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out)
            return fmt::format("{}: cannot write", temporary);
        out.write(contents.data(), std::streamsize(contents.size()));
        out.close();
        if (!out) {
            fs::remove(temporary, ec);
            return fmt::format("{}: cannot write", temporary);
        }
    }
    fs::rename(temporary, path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        return fmt::format("{}: cannot replace: {}", path, ec.message());
    }
    return {};
}

} // namespace gaplens::core
