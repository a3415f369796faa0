// SPDX-License-Identifier: MIT
#include "report_reader.h"

#include "export_columns.h"
#include "launch_config_interner.h"
#include "sqlite_db.h"
#include "table_scan.h"
#include "text_id_cache.h"
#include "util/resident_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace gaplens::core::detail {
namespace {

namespace fs = std::filesystem;

// Check the cancel token once per this many rows: cheap, and still answers within ms.
constexpr std::uint64_t kCancelCheckRows = 1 << 16;

// The report's time offset is the difference of two int64 (utcEpochNs - EXPORT_CONFIG_TIME_SHIFT),
// so it may need 65 bits.
__extension__ using WideNs = __int128;

// Absolute times are kept within +-(2^62 - 1) ns (+-146 years around 1970), so that the
// difference of any two times, a duration or a window, fits in an int64.
constexpr TimeNs kMaxAbsoluteTimeNs = (TimeNs(1) << 62) - 1;

std::uint32_t pidOf(std::int64_t globalId)
{
    return std::uint32_t((globalId >> 24) & 0xFFFFFF);
}
std::uint32_t tidOf(std::int64_t globalTid)
{
    return std::uint32_t(globalTid & 0xFFFFFF);
}

// Columns of one track grow together, sized from the table's row count (a hint): once a few
// thousand rows are seen, a track is given its share of the rows left (+2%), so the track
// holding most of a table is allocated about once, not doubled ~20 times (each doubling
// copies the column and faults in fresh pages: both showed up at the top of the profile),
// and ends without push_back's up-to-2x slack. Growth is still at least 1.5x (amortised
// O(1) when the prediction is low) and never past the rows the table has left.
constexpr std::uint64_t kShareSampleRows = 4096;

template <typename First, typename... Columns>
void makeRoom(std::uint64_t rowsLeft, std::uint64_t rowsSeen, First &first, Columns &...rest)
{
    if (first.size() < first.capacity())
        return;
    const std::size_t size = first.size();
    std::size_t step = std::max<std::size_t>(size, 64);
    if (rowsLeft > 0 && rowsSeen >= kShareSampleRows) {
        const double share = double(size + 1) / double(rowsSeen);
        const auto predicted = std::size_t(share * double(rowsLeft) * 1.02) + 1;
        step = std::max({ predicted, size / 2, std::size_t(64) });
    }
    if (rowsLeft > 0) // 0: no hint, or it was wrong
        step = std::min<std::size_t>(step, std::size_t(rowsLeft));
    const std::size_t capacity = size + std::max<std::size_t>(step, 1);
    reserveResident(first, capacity);
    (reserveResident(rest, capacity), ...);
}

// A problem with the file as a whole: the message names what is wrong, not SQLite's internals.
struct FileError
{
    std::string message;
};

void checkReadableFile(const std::string &path)
{
    std::error_code ec;
    const auto status = fs::status(path, ec);
    // Only a missing file "does not exist": a folder that may not be searched, or a name
    // longer than the system takes, is a different problem with a different fix.
    if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
        throw FileError { fmt::format("cannot be opened: {}", ec.message()) };
    if (ec || !fs::exists(status))
        throw FileError { "does not exist" };
    if (fs::is_directory(status))
        throw FileError { "is a directory, not an exported report (open the .sqlite files inside it)" };
    if (!fs::is_regular_file(status))
        throw FileError { "is not a regular file" };
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw FileError { fmt::format("cannot be read: {}", std::strerror(errno)) };
    char header[16] = {};
    in.read(header, sizeof header);
    const auto got = in.gcount();
    if (got == 0)
        throw FileError { "is empty (0 bytes)" };
    if (got < 16 || std::memcmp(header, "SQLite format 3", 16) != 0)
        throw FileError { "is not an SQLite database (export the report with `nsys export -t sqlite`)" };
}

std::string describeSqliteError(const SqliteError &e)
{
    const int primary = e.code() & 0xFF;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
        return fmt::format("is truncated or corrupt (SQLite: {})", e.what());
    if (primary == SQLITE_IOERR)
        return fmt::format("could not be read (SQLite I/O error: {})", e.what());
    return fmt::format("could not be read (SQLite: {})", e.what());
}

class Reader
{
public:
    Reader(const std::string &path, StringPool &strings, const StageFn &stage, const CancelToken *cancel,
        ReportPart part, bool directScan, TableSet tables, unsigned scanThreads, StoredStartWindow window)
        : m_db(path)
        , m_strings(strings)
        , m_stage(stage)
        , m_cancel(cancel)
        , m_part(part)
        , m_directScan(directScan)
        , m_tables(withDependencies(tables))
        , m_scanThreads(scanThreads)
        , m_window(window)
    {
        m_data.report.path = path;
    }

    ReportData run()
    {
        if (!isExport())
            throw FileError { "is an SQLite database but not an Nsight Systems export "
                              "(it has no META_DATA_EXPORT, EXPORT_META_DATA or StringIds table)" };
        // Both parts need the time base and the string table (names by id).
        readMetadata();
        stage("strings", 50);
        const auto rowsBeforeStrings = m_data.report.notes.rowsRead;
        // A full read reads the string table in one pass; a read of some tables looks up
        // only the names their rows use, as they come.
        if (m_tables.isAll())
            readStrings();
        else
            prepareStringLookup();
        if (m_part == ReportPart::Nvtx) // the other part counts the string table's rows
            m_data.report.notes.rowsRead = rowsBeforeStrings;
        if (m_part != ReportPart::Nvtx) {
            stage("kernels", 150);
            readKernels();
            stage("copies", 350);
            readCopies("CUPTI_ACTIVITY_KIND_MEMCPY", false);
            readCopies("CUPTI_ACTIVITY_KIND_MEMSET", true);
            // Without GPU work the rank is the process with the most CUDA calls and NVTX
            // events (collectPids): a file without any is read as a full read reads it.
            if (m_pidsWithGpuWork.empty())
                m_tables |= ExportTable::CudaApi | ExportTable::Nvtx;
            stage("CUDA API calls", 450);
            if (reads(ExportTable::CudaApi))
                readRuntime();
            stage("OS runtime calls", 600);
            if (reads(ExportTable::OsRuntime))
                readOsrt();
            if (reads(ExportTable::Syncs))
                readSyncs();
            if (reads(ExportTable::GpuMemory))
                readMemoryUsage();
            if (reads(ExportTable::Callchains))
                readCallchains();
        }
        if (m_part != ReportPart::GpuAndApi && reads(ExportTable::Nvtx)) {
            stage("NVTX", 700);
            readNvtx();
        }
        stage("threads and processes", 950);
        readThreadNames();
        readProcesses();
        readGpuNames();
        collectPids();
        dropHostEventsOfLaterShard();
        if (m_part == ReportPart::Everything) // else joinParts, once both parts are in
            attachOsrt(m_data);
        return std::move(m_data);
    }

private:
    bool reads(ExportTable table) const { return m_tables.contains(table); }

    void stage(const char *name, int permille)
    {
        checkCancel();
        if (m_stage)
            m_stage(name, permille);
    }

    void checkCancel() const
    {
        if (m_cancel && m_cancel->isCancelled())
            throw CancelledError();
    }

    void countRow()
    {
        if ((++m_data.report.notes.rowsRead & (kCancelCheckRows - 1)) == 0)
            checkCancel();
    }

    // Rows of a table, a growth hint for its columns. max(rowid) - min(rowid) + 1 is two
    // b-tree descents and exact for nsys's dense rowids; a sparse table (one row at rowid
    // 2^30 in a small file) would make columns reserve for rows that do not exist, so a
    // range larger than the file could hold (every row takes at least a cell pointer, a
    // size, a rowid and one header byte per column) is replaced by SQLite's exact count.
    std::uint64_t tableRows(std::string_view table) const
    {
        try {
            const auto rowid = [&](const char *aggregate) -> std::optional<std::int64_t> {
                Statement stmt(m_db.handle(), fmt::format("SELECT {}(rowid) FROM \"{}\"", aggregate, table));
                if (stmt.step() && !stmt.isNull(0))
                    return stmt.int64(0);
                return std::nullopt;
            };
            const auto last = rowid("max"), first = rowid("min");
            if (!last || !first)
                return 0; // empty
            // Modulo 2^64, the distance between two distinct int64 rowids is exact.
            const std::uint64_t range = std::uint64_t(*last) - std::uint64_t(*first) + 1;
            std::error_code ec;
            const std::uint64_t fileBytes = fs::file_size(m_data.report.path, ec);
            const std::uint64_t minRowBytes = 4 + m_db.columns(table).size();
            if (range != 0 && (ec || range <= fileBytes / minRowBytes))
                return range;
            Statement count(m_db.handle(), fmt::format("SELECT count(*) FROM \"{}\"", table));
            return count.step() ? std::uint64_t(count.int64(0)) : 0;
        } catch (const SqliteError &e) {
            // Only a table without a rowid (WITHOUT ROWID) gets no hint: its columns grow by
            // doubling. Anything else, a corrupt page above all, fails the file here, as the
            // scan would: SQLite marks a page read before it checks its cells, so a page that
            // failed the check here would be read unchecked by the next query on this connection
            // (a cell pointer past the page then wraps into it, and a row is silently lost).
            if ((e.code() & 0xFF) != SQLITE_ERROR)
                throw;
        }
        return 0;
    }

    // makeRoom's hint. A time shard keeps rows unevenly along a table (all of its rows come
    // first when the table is in time order), so a track's share of the rows seen so far says
    // nothing of the rows to come: no hint, the columns grow by doubling. (With the hint, the
    // first shard reserved for the whole table: 2x the memory of the last one.)
    std::uint64_t rowsLeft(std::uint64_t tableRows, std::uint64_t rowsSeen) const
    {
        if (!m_window.isWholeFile())
            return 0;
        return tableRows >= rowsSeen ? tableRows - rowsSeen + 1 : 0;
    }

    bool isExport() const
    {
        return m_db.hasTable("META_DATA_EXPORT") || m_db.hasTable("EXPORT_META_DATA") || m_db.hasTable("StringIds");
    }

    // The table's columns named by `Column`: a missing optional one reads as NULL, a missing
    // required one skips the table with a warning (nullopt).
    template <typename Column> std::optional<std::vector<ScanColumn>> wantedColumns(std::string_view table)
    {
        std::string_view missing;
        auto columns = scanColumns<Column>(m_db.columns(table), missing);
        if (!columns)
            m_data.report.warnings.push_back(
                fmt::format("table {} has no column {}: its rows were not read", table, missing));
        return columns;
    }

    // Every row of a small table, read through SQLite by Column's names; none when the table
    // is missing, or (with wantedColumns' warning) a required column is.
    template <typename Column, typename OnRow> void forEachRow(std::string_view table, OnRow onRow)
    {
        if (!m_db.hasTable(table))
            return;
        const auto columns = wantedColumns<Column>(table);
        if (!columns)
            return;
        SelectRows<Column> rows(m_db.handle(), selectSql(table, *columns));
        while (rows.step())
            onRow(rows);
    }

    void readMetadata()
    {
        std::unordered_map<std::string, std::string> meta;
        for (const char *table : { "META_DATA_EXPORT", "EXPORT_META_DATA" })
            forEachRow<NameValueColumn>(table, [&](const SelectRows<NameValueColumn> &row) {
                meta.emplace(row.text(NameValueColumn::Name), row.text(NameValueColumn::Value));
            });
        auto &report = m_data.report;
        report.schemaVersion = meta["EXPORT_SCHEMA_VERSION"];
        report.productVersion = meta["EXPORT_PRODUCT_VERSION"];

        std::string sessionStartProblem; // the table is there but gives no usable utcEpochNs
        const auto utcEpochNs = readSessionStart(sessionStartProblem);
        const auto shift = timeShift(meta);
        const bool normalized = meta["EXPORT_PARAM_TIME_NORMALIZE"] == "true";

        // Timestamps are ns since session start unless the export shifted them; a shift equal to
        // the session's UTC start (time normalisation) makes them absolute already.
        WideNs offset = 0;
        if (shift != 0) {
            report.timeBase = TimeBase::AlreadyAbsolute;
            offset = utcEpochNs ? WideNs(*utcEpochNs) - shift : 0;
        } else if (normalized) {
            report.timeBase = TimeBase::AlreadyAbsolute;
        } else if (utcEpochNs) {
            report.timeBase = TimeBase::SessionRelative;
            offset = *utcEpochNs;
        } else {
            report.timeBase = TimeBase::Unknown;
            report.warnings.push_back(
                fmt::format("{}: times are relative to the session start and will not align with other reports",
                    sessionStartProblem.empty() ? "no session start time (TARGET_INFO_SESSION_START_TIME)"
                                                : sessionStartProblem));
        }
        if (report.timeBase != TimeBase::Unknown && !sessionStartProblem.empty())
            report.warnings.push_back(sessionStartProblem);
        if (utcEpochNs)
            report.sessionStartNs = *utcEpochNs;
        setTimeOffset(offset);
        if (offset >= std::numeric_limits<TimeNs>::min() && offset <= std::numeric_limits<TimeNs>::max()) {
            report.timeOffsetNs = TimeNs(offset);
        } else { // only utcEpochNs - shift can get here
            report.timeOffsetNs = 0;
            report.warnings.push_back(fmt::format("the time offset (utcEpochNs {} - EXPORT_CONFIG_TIME_SHIFT {}) does "
                                                  "not fit in 64 bits: rows whose times cannot be represented after "
                                                  "it are counted as data problems",
                *utcEpochNs, shift));
        }

        readCapture();
    }

    // The stored times whose absolute time (stored + offset) lies within +-kMaxAbsoluteTimeNs,
    // found once so that a row costs one range check and one addition, never an overflow.
    void setTimeOffset(WideNs offset)
    {
        const WideNs lowest = std::max<WideNs>(-kMaxAbsoluteTimeNs - offset, std::numeric_limits<std::int64_t>::min());
        const WideNs highest = std::min<WideNs>(kMaxAbsoluteTimeNs - offset, std::numeric_limits<std::int64_t>::max());
        if (lowest > highest) { // no stored time can be represented: every row is out of range
            m_lowestStoredTime = std::numeric_limits<std::int64_t>::max();
            m_highestStoredTime = std::numeric_limits<std::int64_t>::min();
        } else {
            m_lowestStoredTime = std::int64_t(lowest);
            m_highestStoredTime = std::int64_t(highest);
        }
        // Modulo 2^64: for a stored time within the bounds the sum fits in an int64, so adding
        // this in unsigned arithmetic (which wraps, well defined) gives it exactly, even when
        // the offset itself does not fit in an int64.
        m_timeOffsetModulo = std::uint64_t(offset);
    }

    // utcEpochNs of the session start, or nullopt; `problem` says why when the table is there
    // but its value cannot be used.
    std::optional<std::int64_t> readSessionStart(std::string &problem)
    {
        static constexpr std::string_view kTable = "TARGET_INFO_SESSION_START_TIME";
        if (!m_db.hasTable(kTable))
            return std::nullopt;
        std::string_view missing;
        const auto columns = scanColumns<SessionStartColumn>(m_db.columns(kTable), missing);
        if (!columns) {
            problem = fmt::format("table {} has no column {}", kTable, missing);
            return std::nullopt;
        }
        SelectRows<SessionStartColumn> row(m_db.handle(), selectSql(kTable, *columns));
        if (!row.step())
            return std::nullopt;
        const auto value = row.exactInt64(SessionStartColumn::UtcEpochNs);
        if (value.kind == IntegerKind::NotInteger)
            problem = fmt::format("{}.utcEpochNs is not an integer", kTable);
        if (value.kind != IntegerKind::Integer)
            return std::nullopt;
        return value.value;
    }

    // EXPORT_CONFIG_TIME_SHIFT, 0 when absent; a value that is not an integer is said and ignored.
    std::int64_t timeShift(const std::unordered_map<std::string, std::string> &meta)
    {
        const auto it = meta.find("EXPORT_CONFIG_TIME_SHIFT");
        if (it == meta.end() || it->second.empty())
            return 0;
        std::string_view text = it->second;
        if (text.starts_with('+')) // from_chars takes '-' only
            text.remove_prefix(1);
        std::int64_t shift = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), shift);
        if (ec == std::errc() && end == text.data() + text.size())
            return shift;
        m_data.report.warnings.push_back(
            fmt::format("EXPORT_CONFIG_TIME_SHIFT '{}' is not an integer: it was ignored", it->second));
        return 0;
    }

    // "PROCESS_<n>:COMMAND", ":ARGUMENT_<i>", ":WORKING_DIR", ":ENVIRONMENT_VARIABLE" rows; any
    // other name, or an index that is not a plain number, is not a program's.
    void readProgramRow(std::string_view name, std::string_view value)
    {
        static constexpr std::string_view kPrefix = "PROCESS_";
        if (!name.starts_with(kPrefix))
            return;
        const auto colon = name.find(':');
        if (colon == std::string_view::npos)
            return;
        const auto index = plainNumber(name.substr(kPrefix.size(), colon - kPrefix.size()));
        if (!index)
            return;
        const auto key = name.substr(colon + 1);
        auto program = [&]() -> PendingProgram & { return m_programs[*index]; };
        static constexpr std::string_view kArgument = "ARGUMENT_";
        if (key == "COMMAND") {
            program().program.command = value;
        } else if (key == "WORKING_DIR") {
            program().program.workingDir = value;
        } else if (key == "ENVIRONMENT_VARIABLE") {
            ++program().program.environmentCount;
        } else if (key.starts_with(kArgument)) {
            if (const auto i = plainNumber(key.substr(kArgument.size())))
                program().arguments[*i] = value;
        }
    }

    static std::optional<std::uint32_t> plainNumber(std::string_view text)
    {
        std::uint32_t n = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size())
            return std::nullopt;
        return n;
    }

    void finishPrograms()
    {
        if (m_db.hasTable("META_DATA_CAPTURE")) {
            const auto columns = m_db.columns("META_DATA_CAPTURE");
            m_data.report.hasCaptureMetadata = columns.count("name") && columns.count("value");
        }
        for (auto &[index, pending] : m_programs) {
            auto &program = pending.program;
            program.index = index;
            std::uint32_t expected = 0;
            for (auto &[i, argument] : pending.arguments) {
                if (i != expected)
                    program.argumentsComplete = false;
                expected = i + 1;
                program.arguments.push_back(std::move(argument));
            }
            if (!program.argumentsComplete)
                m_data.report.warnings.push_back(fmt::format(
                    "META_DATA_CAPTURE lacks an argument of PROCESS_{}: its command line is incomplete", index));
            m_data.report.programs.push_back(std::move(program));
        }
    }

    void readCapture()
    {
        std::string host;
        // Rank variables in order of trust; the first found wins.
        static constexpr std::string_view kRankVars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "RANK" };
        std::optional<std::pair<int, std::pair<std::int32_t, std::string>>> best; // (priority, rank)
        // Without its name or value column the table is said (wantedColumns) and not read.
        forEachRow<NameValueColumn>("META_DATA_CAPTURE", [&](const SelectRows<NameValueColumn> &row) {
            const auto name = row.text(NameValueColumn::Name);
            const auto value = row.text(NameValueColumn::Value);
            if (name == "DEVICE_DISPLAY_NAME") {
                host = value;
                return;
            }
            readProgramRow(name, value);
            // Only the launched process's own environment: "PROCESS_<n>:ENVIRONMENT_VARIABLE".
            if (!name.starts_with("PROCESS_") || !name.ends_with(":ENVIRONMENT_VARIABLE"))
                return;
            const auto eq = value.find('=');
            if (eq == std::string_view::npos)
                return;
            const auto var = value.substr(0, eq);
            auto val = value.substr(eq + 1);
            if (val.size() >= 2 && val.front() == '"' && val.back() == '"')
                val = val.substr(1, val.size() - 2);
            for (int priority = 0; priority < int(std::size(kRankVars)); ++priority) {
                if (var != kRankVars[priority] || (best && best->first <= priority))
                    continue;
                char *endp = nullptr;
                const std::string digits(val);
                const long rank = std::strtol(digits.c_str(), &endp, 10);
                if (digits.empty() || *endp != '\0' || rank < 0 || rank > 1'000'000)
                    continue;
                best = { priority, { std::int32_t(rank), fmt::format("{}=\"{}\"", var, val) } };
            }
        });
        if (best)
            m_data.environmentRank = best->second;
        finishPrograms();
        if (host.empty() && m_db.hasTable("TARGET_INFO_SYSTEM_ENV")) {
            const auto cols = m_db.columns("TARGET_INFO_SYSTEM_ENV");
            if (cols.count("name") && cols.count("value"))
                host = m_db.scalarText("SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname' LIMIT 1")
                           .value_or("");
        }
        m_data.report.host = host;
    }

    void readStrings()
    {
        forEachRow<StringColumn>("StringIds", [&](const SelectRows<StringColumn> &row) {
            countRow();
            rememberString(row.int64(StringColumn::Id), m_strings.intern(row.text(StringColumn::Value)));
        });
    }

    // Looks strings up by id when the id is the table's key (INTEGER PRIMARY KEY, every
    // export's): one b-tree descent per distinct id. Otherwise the table is read at once.
    void prepareStringLookup()
    {
        static constexpr std::string_view kTable = "StringIds";
        if (!m_db.hasTable(kTable) || !wantedColumns<StringColumn>(kTable))
            return; // as readStrings: no strings (and the same warning)
        bool idIsKey = false;
        int keyColumns = 0;
        Statement info(m_db.handle(), fmt::format("PRAGMA table_info(\"{}\")", kTable));
        while (info.step()) {
            if (info.int64(5) == 0)
                continue;
            ++keyColumns;
            std::string type(info.text(2));
            std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::toupper(c); });
            idIsKey = info.text(1) == "id" && type == "INTEGER";
        }
        if (!idIsKey || keyColumns != 1) {
            readStrings();
            return;
        }
        m_stringLookup = std::make_unique<Statement>(
            m_db.handle(), fmt::format("SELECT \"value\" FROM \"{}\" WHERE \"id\" = ?1", kTable));
    }

    // The string of `id` from the lookup statement, interned and remembered; nullopt when
    // strings are not looked up, or the table has no such id.
    std::optional<StringId> lookUpString(std::int64_t id)
    {
        if (!m_stringLookup || m_unknownStringIds.count(id))
            return std::nullopt;
        m_stringLookup->reset();
        m_stringLookup->bindInt64(1, id);
        if (!m_stringLookup->step())
            return std::nullopt;
        countRow();
        const auto sid = m_strings.intern(m_stringLookup->text(0));
        rememberString(id, sid);
        return sid;
    }

    void rememberString(std::int64_t id, StringId sid)
    {
        // Ids are dense from 0 or 1 in real files; a map covers anything else.
        if (id >= 0 && id < std::int64_t(16 * 1024 * 1024)) {
            if (std::size_t(id) >= m_stringIds.size())
                m_stringIds.resize(std::size_t(id) + 1, kNoIndex);
            m_stringIds[std::size_t(id)] = sid;
        } else {
            m_sparseStringIds.emplace(id, sid); // the first of duplicate ids, as a full read keeps it
        }
    }

    StringId stringFor(std::int64_t id)
    {
        if (id >= 0 && std::size_t(id) < m_stringIds.size() && m_stringIds[std::size_t(id)] != kNoIndex)
            return m_stringIds[std::size_t(id)];
        if (auto it = m_sparseStringIds.find(id); it != m_sparseStringIds.end())
            return it->second;
        if (const auto looked = lookUpString(id))
            return *looked;
        // Every reference to a missing id is counted, so the count says how many names are wrong.
        ++m_data.report.problems.unknownStringId;
        auto [it, inserted] = m_unknownStringIds.try_emplace(id, kEmptyString);
        if (inserted)
            it->second = m_strings.intern(fmt::format("<unknown string #{}>", id));
        return it->second;
    }

    // One time of a row made absolute; false, counted, when it is NULL (in `nullCount`), not
    // an integer, or beyond +-kMaxAbsoluteTimeNs once the offset is added.
    template <typename Column>
    [[gnu::always_inline]] bool readTime(
        const ScanRows<Column> &row, Column column, std::uint64_t &nullCount, TimeNs &time)
    {
        const auto stored = row.exactInt64(column);
        if (stored.kind != IntegerKind::Integer) [[unlikely]] {
            ++(stored.kind == IntegerKind::Null ? nullCount : m_data.report.problems.timeNotInteger);
            return false;
        }
        if (stored.value < m_lowestStoredTime || stored.value > m_highestStoredTime) [[unlikely]] {
            ++m_data.report.problems.timeOutOfRange;
            return false;
        }
        time = TimeNs(std::uint64_t(stored.value) + m_timeOffsetModulo);
        return true;
    }

    // Validates the Start and End of one row; counts and rejects the broken ones.
    template <typename Column> bool validInterval(const ScanRows<Column> &row, TimeNs &start, TimeNs &end)
    {
        auto &problems = m_data.report.problems;
        if (!readTime(row, Column::Start, problems.nullStart, start)
            || !readTime(row, Column::End, problems.nullEnd, end))
            return false;
        if (end < start) {
            ++problems.endBeforeStart;
            return false;
        }
        return true;
    }

    // Whether a row starting at `start` (absolute) lies in the time shard's window, which
    // is in stored times: stored = absolute - offset, exact modulo 2^64 (see readTime).
    bool inWindow(TimeNs start) const { return m_window.isWholeFile() || m_window.contains(stored(start)); }
    std::int64_t stored(TimeNs absolute) const { return std::int64_t(std::uint64_t(absolute) - m_timeOffsetModulo); }

    // A row of another shard that the window's gaps need (ShardHalo): it overlaps the halo,
    // or (CUDA calls) it launched one of the window's kernels or copies.
    bool inHalo(TimeNs start, TimeNs end) const { return m_window.inHalo(stored(start), end); }

    // A CUDA call's or NVTX event's place in a time shard. A file without GPU work makes its
    // busiest process by these events its rank: every shard reads them all, to find it as a
    // full read does, and only the first one keeps them (dropHostEventsOfLaterShard).
    bool keepsHostEvent(TimeNs start) const { return m_pidsWithGpuWork.empty() || inWindow(start); }
    bool keepsCall(TimeNs start, TimeNs end, std::int64_t globalTid, std::uint32_t correlationId) const
    {
        return keepsHostEvent(start) || inHalo(start, end) || m_window.isHaloLaunch(pidOf(globalTid), correlationId);
    }

    // An OS runtime call in a time shard with a halo (gaps and blame): blame reads the call
    // open at a gap's midpoint, and with it every call that call is nested in, all of which
    // overlap the halo; the calls starting in the window are kept as CUDA calls are.
    bool keepsOsCall(TimeNs start, TimeNs end) const { return keepsHostEvent(start) || inHalo(start, end); }

    // A synchronisation record in a time shard with a halo (gaps and blame): the stream waits
    // between the window's kernels and the ones before them, and the host synchronizes that
    // returned near the window's gaps' ends (GapBlamer::findWait reads no others).
    bool keepsSync(SyncType type, std::int32_t deviceId, std::uint32_t pid, std::int64_t streamId,
        std::uint32_t correlationId, TimeNs end) const
    {
        if (!m_window.halo || m_window.isWholeFile())
            return true;
        switch (type) {
        case SyncType::StreamWaitEvent: return m_window.isHaloStreamWait(deviceId, pid, streamId, correlationId);
        case SyncType::Unknown: return false;
        default: return m_window.isHaloHostSync(stored(end), end);
        }
    }

    // keepsHostEvent before the row's name is looked up (NVTX looks names up first): by the
    // stored start; a row without a usable one (a data problem, which every shard counts) is
    // the first shard's, so that its name, and an unknown string id in it, counts once.
    template <typename Column> bool ownsHostRow(const ScanRows<Column> &row) const
    {
        if (m_window.isWholeFile() || m_pidsWithGpuWork.empty())
            return true;
        const auto stored = row.exactInt64(Column::Start);
        if (stored.kind != IntegerKind::Integer || stored.value < m_lowestStoredTime
            || stored.value > m_highestStoredTime)
            return m_window.isFirst();
        if (m_window.contains(stored.value))
            return true;
        if (!m_window.halo)
            return false;
        auto storedEnd = row.exactInt64(Column::End); // a mark (no end) is a range of no length
        if (storedEnd.kind != IntegerKind::Integer || storedEnd.value < m_lowestStoredTime
            || storedEnd.value > m_highestStoredTime)
            storedEnd = stored;
        return m_window.inHalo(stored.value, TimeNs(std::uint64_t(storedEnd.value) + m_timeOffsetModulo));
    }

    void dropHostEventsOfLaterShard()
    {
        if (m_window.isFirst() || !m_pidsWithGpuWork.empty())
            return;
        for (auto &t : m_data.threads) {
            t.api = {};
            t.nvtx = {};
            t.marks = {};
        }
    }

    // Gpu::deviceId is 32 bits: a wider id must not silently become another GPU.
    bool validDeviceId(std::int64_t deviceId)
    {
        if (deviceId >= std::numeric_limits<std::int32_t>::min()
            && deviceId <= std::numeric_limits<std::int32_t>::max())
            return true;
        ++m_data.report.problems.deviceIdOutOfRange;
        return false;
    }

    Gpu &gpuFor(std::int64_t deviceId)
    {
        auto [it, inserted] = m_gpuIndex.try_emplace(deviceId, std::uint32_t(m_data.gpus.size()));
        if (inserted) {
            auto &gpu = m_data.gpus.emplace_back();
            gpu.deviceId = std::int32_t(deviceId);
        }
        return m_data.gpus[it->second];
    }

    KernelColumns &streamFor(std::int64_t deviceId, std::uint32_t pid, std::int64_t streamId)
    {
        const auto key = std::tuple(deviceId, pid, streamId);
        if (m_lastStream && m_lastStreamKey == key)
            return *m_lastStream;
        auto &gpu = gpuFor(deviceId);
        auto it = std::find_if(gpu.streams.begin(), gpu.streams.end(),
            [&](const Stream &s) { return s.pid == pid && s.streamId == streamId; });
        if (it == gpu.streams.end()) {
            gpu.streams.push_back({ pid, streamId, kNoIndex, {} });
            it = std::prev(gpu.streams.end());
        }
        // Consecutive rows mostly hit one stream; the cache is refreshed on every miss, before
        // any push_back could move the cached stream.
        m_lastStreamKey = key;
        m_lastStream = &it->kernels;
        m_lastLaunchConfigs = &m_launchConfigs[key];
        return it->kernels;
    }

    // Scans a table of GPU activity (kernels, copies, memsets), counting every row; those
    // with a valid interval and device id go to onRow(row, start, end, deviceId, remaining,
    // seen), the last two being makeRoom's growth hint. A table outside the set, and a row
    // outside the time shard's window, is scanned for its devices and processes only: they
    // become GPUs and GPU processes exactly as reading it would make them (which GPUs and
    // ranks exist), and no row is kept.
    // With a halo, the rows that overlap it are kept too when `keptInHalo` (copies and memsets).
    template <typename Column, typename OnRow>
    void scanDeviceActivity(std::string_view table, ExportTable kept, bool keptInHalo, OnRow onRow)
    {
        auto columns = wantedColumns<Column>(table);
        if (!columns)
            return;
        const bool keep = reads(kept);
        if (!keep) // only the columns that decide it are decoded; the others read as NULL
            for (std::size_t c = 0; c < columns->size(); ++c)
                if (Column(c) != Column::Start && Column(c) != Column::End && Column(c) != Column::DeviceId
                    && Column(c) != Column::GlobalPid)
                    (*columns)[c].name.clear();
        const auto rows = keep ? tableRows(table) : 0;
        std::uint64_t seen = 0;
        ScanRows<Column> row(m_db, table, std::move(*columns), m_directScan, m_scanThreads);
        while (row.step()) {
            countRow();
            ++seen;
            TimeNs start, end;
            if (!validInterval(row, start, end))
                continue;
            const auto deviceId = row.int64(Column::DeviceId);
            if (!validDeviceId(deviceId))
                continue;
            if (keep && (inWindow(start) || (keptInHalo && inHalo(start, end)))) {
                onRow(row, start, end, deviceId, rowsLeft(rows, seen), seen);
            } else {
                gpuFor(deviceId);
                noteGpuPid(pidOf(row.int64(Column::GlobalPid)));
            }
        }
    }

    void readKernels()
    {
        static constexpr std::string_view kTable = "CUPTI_ACTIVITY_KIND_KERNEL";
        if (!m_db.hasTable(kTable)) {
            // Lazy exports create no empty tables: say why the report shows no GPU work.
            m_data.report.warnings.push_back(fmt::format("no {} table: the report recorded no kernels", kTable));
            return;
        }
        using enum KernelColumn;
        scanDeviceActivity<KernelColumn>(kTable, ExportTable::Kernels, false,
            [&](const ScanRows<KernelColumn> &row, TimeNs start, TimeNs end, std::int64_t deviceId,
                std::uint64_t remaining, std::uint64_t seen) {
                const auto pid = pidOf(row.int64(GlobalPid));
                auto &k = streamFor(deviceId, pid, row.int64(StreamId));
                makeRoom(
                    remaining, seen, k.start, k.end, k.shortName, k.demangledName, k.correlationId, k.launchConfig);
                const auto shortName = stringFor(row.int64(ShortName));
                const auto demangledId = row.optionalInt64(DemangledName);
                const LaunchConfig config { .gridX = std::uint32_t(row.int64(GridX)),
                    .gridY = std::uint32_t(row.int64(GridY)),
                    .gridZ = std::uint32_t(row.int64(GridZ)),
                    .blockX = std::uint16_t(row.int64(BlockX)),
                    .blockY = std::uint16_t(row.int64(BlockY)),
                    .blockZ = std::uint16_t(row.int64(BlockZ)),
                    .registersPerThread = std::uint16_t(row.int64(RegistersPerThread)),
                    .staticSharedMemory = std::uint32_t(row.int64(StaticSharedMemory)),
                    .dynamicSharedMemory = std::uint32_t(row.int64(DynamicSharedMemory)) };
                appendKernel(k, row, start, end, shortName, demangledId ? stringFor(*demangledId) : shortName,
                    m_lastLaunchConfigs->indexOf(config, k.launchConfigs));
                noteGpuPid(pid);
            });
        m_lastStream = nullptr;
        countOverlappingKernels();
    }

    // The appends of one row, inlined into one body (flatten): called out of line, the
    // vectors' push_back calls were a tenth of the load's CPU time.
    [[gnu::flatten]] static void appendKernel(KernelColumns &k, const ScanRows<KernelColumn> &row, TimeNs start,
        TimeNs end, StringId shortName, StringId demangledName, std::uint32_t launchConfig)
    {
        using enum KernelColumn;
        k.start.push_back(start);
        k.end.push_back(end);
        k.shortName.push_back(shortName);
        k.demangledName.push_back(demangledName);
        k.correlationId.push_back(std::uint32_t(row.int64(CorrelationId)));
        k.launchConfig.push_back(launchConfig);
    }

    // Kernels of one stream may overlap with programmatic dependent launch (seen in real
    // H100 captures): legitimate, but worth telling, since per-stream ends are then unsorted.
    void countOverlappingKernels()
    {
        for (auto &gpu : m_data.gpus)
            for (auto &stream : gpu.streams) {
                auto &k = stream.kernels;
                // Rows come in (start, end) order almost always: count without a sorted copy then.
                bool sorted = true;
                for (std::size_t i = 1; i < k.size() && sorted; ++i)
                    sorted = k.start[i - 1] < k.start[i] || (k.start[i - 1] == k.start[i] && k.end[i - 1] <= k.end[i]);
                if (sorted) {
                    for (std::size_t i = 1; i < k.size(); ++i)
                        if (k.start[i] < k.end[i - 1])
                            ++m_data.report.notes.overlappingKernels;
                    continue;
                }
                std::vector<std::pair<TimeNs, TimeNs>> spans(k.size());
                for (std::size_t i = 0; i < k.size(); ++i)
                    spans[i] = { k.start[i], k.end[i] };
                std::sort(spans.begin(), spans.end());
                for (std::size_t i = 1; i < spans.size(); ++i)
                    if (spans[i].first < spans[i - 1].second)
                        ++m_data.report.notes.overlappingKernels;
            }
    }

    void readCopies(std::string_view table, bool memset)
    {
        if (!m_db.hasTable(table))
            return;
        // Memsets have no copy or memory kinds: those three columns read as NULL.
        using enum CopyColumn;
        scanDeviceActivity<CopyColumn>(table, ExportTable::Copies, true,
            [&](const ScanRows<CopyColumn> &row, TimeNs start, TimeNs end, std::int64_t deviceId,
                std::uint64_t remaining, std::uint64_t seen) {
                auto &c = gpuFor(deviceId).copies;
                makeRoom(remaining, seen, c.start, c.end, c.streamId, c.correlationId, c.pid, c.bytes, c.kind,
                    c.srcKind, c.dstKind);
                const auto pid = pidOf(row.int64(GlobalPid));
                c.start.push_back(start);
                c.end.push_back(end);
                c.streamId.push_back(std::uint32_t(row.int64(StreamId)));
                c.correlationId.push_back(std::uint32_t(row.int64(CorrelationId)));
                c.pid.push_back(pid);
                c.bytes.push_back(std::uint64_t(row.int64(Bytes)));
                c.kind.push_back(
                    memset ? core::CopyKind::Memset : core::copyKindFromExport(row.int64(CopyColumn::CopyKind)));
                c.srcKind.push_back(memKindFrom(row, SrcKind));
                c.dstKind.push_back(memKindFrom(row, DstKind));
                noteGpuPid(pid);
            });
    }

    static MemKind memKindFrom(const ScanRows<CopyColumn> &row, CopyColumn column)
    {
        const auto v = row.optionalInt64(column);
        return v && *v >= 0 && *v <= 4 ? MemKind(*v) : MemKind::Unknown;
    }

    Thread &threadFor(std::int64_t globalTid)
    {
        // Consecutive rows mostly come from one thread: skip the hash lookup then. An index,
        // not a pointer, since adding a thread may move the others.
        if (m_lastThread != kNoIndex && m_lastThreadTid == globalTid)
            return m_data.threads[m_lastThread];
        auto [it, inserted] = m_threadIndex.try_emplace(globalTid, std::uint32_t(m_data.threads.size()));
        if (inserted) {
            auto &t = m_data.threads.emplace_back();
            t.pid = pidOf(globalTid);
            t.tid = tidOf(globalTid);
        }
        m_lastThreadTid = globalTid;
        m_lastThread = it->second;
        return m_data.threads[it->second];
    }

    void noteGpuPid(std::uint32_t pid)
    {
        if (m_lastGpuPid == pid)
            return;
        m_pidsWithGpuWork.insert(pid);
        m_lastGpuPid = pid;
    }

    StringId apiName(std::int64_t nameId)
    {
        // Name ids are dense StringIds ids: a vector lookup per row instead of a hash lookup.
        const bool dense = nameId >= 0 && nameId < std::int64_t(16 * 1024 * 1024);
        if (dense && std::size_t(nameId) < m_apiNameByDenseId.size()
            && m_apiNameByDenseId[std::size_t(nameId)] != kNoIndex)
            return m_apiNameByDenseId[std::size_t(nameId)];
        auto [it, inserted] = m_apiNames.try_emplace(nameId, kEmptyString);
        if (inserted) {
            const auto full = stringFor(nameId);
            it->second = m_strings.intern(stripApiVersionSuffix(m_strings.get(full)));
        }
        if (dense) {
            if (std::size_t(nameId) >= m_apiNameByDenseId.size())
                m_apiNameByDenseId.resize(std::size_t(nameId) + 1, kNoIndex);
            m_apiNameByDenseId[std::size_t(nameId)] = it->second;
        }
        return it->second;
    }

    void readRuntime()
    {
        static constexpr std::string_view kTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
        if (!m_db.hasTable(kTable))
            return;
        using enum RuntimeColumn;
        auto columns = wantedColumns<RuntimeColumn>(kTable);
        if (!columns)
            return;
        struct Backtrace
        {
            std::int64_t globalTid;
            std::uint32_t correlationId;
            TimeNs start, end;
            StringId name;
            std::optional<std::int64_t> callchainId;
            bool kept; // in the time shard (always, without one)
        };
        std::vector<Backtrace> backtraces;
        m_apiRowsTotal = tableRows(kTable);
        m_apiRowsSeen = 0;
        ScanRows<RuntimeColumn> row(m_db, kTable, std::move(*columns), m_directScan, m_scanThreads);
        while (row.step()) {
            countRow();
            ++m_apiRowsSeen;
            TimeNs start, end;
            if (!validInterval(row, start, end))
                continue;
            // eventClass 67 repeats a call with its CUDA backtrace: keep it only if its call is
            // missing. In a time shard the call may start in another shard than its repeat, so
            // every repeat is kept in mind for the look-up below, named only where it is kept.
            const bool backtrace = row.int64(EventClass) == 67;
            const auto globalTid = row.int64(GlobalTid);
            const auto corr = std::uint32_t(row.int64(CorrelationId));
            const bool kept = keepsCall(start, end, globalTid, corr);
            if (!kept && m_window.halo)
                threadFor(globalTid); // threads numbered as a full read numbers them
            if (!kept && !backtrace)
                continue;
            const auto name = kept ? apiName(row.int64(NameId)) : kEmptyString;
            const auto callchainId = row.optionalInt64(CallchainId);
            if (backtrace) {
                backtraces.push_back({ globalTid, corr, start, end, name, callchainId, kept });
                continue;
            }
            addCall(threadFor(globalTid), start, end, name, corr);
            if (callchainId)
                notePendingCallchain(globalTid, corr, *callchainId, name);
        }
        if (backtraces.empty())
            return;
        // Which backtrace rows duplicate a call: look every call up among the (few) backtrace
        // keys, instead of hashing every call of the file.
        using Key = std::pair<std::int64_t, std::uint32_t>; // (globalTid, correlationId)
        std::vector<Key> keys;
        keys.reserve(backtraces.size());
        for (const auto &b : backtraces)
            keys.emplace_back(b.globalTid, b.correlationId);
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        std::vector<char> hasCall(keys.size(), 0);
        for (const auto &[globalTid, index] : m_threadIndex) {
            const auto first = std::lower_bound(keys.begin(), keys.end(), Key { globalTid, 0 });
            if (first == keys.end() || first->first != globalTid)
                continue;
            const auto last = std::upper_bound(keys.begin(), keys.end(), Key { globalTid, 0xFFFFFFFFu });
            for (auto corr : m_data.threads[index].api.correlationId) {
                const auto it = std::lower_bound(first, last, Key { globalTid, corr });
                if (it != last && it->second == corr)
                    hasCall[std::size_t(it - keys.begin())] = 1;
            }
        }
        markCallsOutsideTheShard(kTable, keys, hasCall);
        m_apiRowsTotal = 0; // no growth hint for these few rows
        for (const auto &b : backtraces) {
            if (!b.kept)
                continue;
            // The backtrace row holds the call's callchainId: it goes to the call it repeats.
            if (b.callchainId)
                notePendingCallchain(b.globalTid, b.correlationId, *b.callchainId, b.name);
            const auto it = std::lower_bound(keys.begin(), keys.end(), Key { b.globalTid, b.correlationId });
            if (hasCall[std::size_t(it - keys.begin())]) {
                ++m_data.report.notes.backtraceDuplicates;
                continue;
            }
            addCall(threadFor(b.globalTid), b.start, b.end, b.name, b.correlationId);
        }
    }

    // A time shard's backtrace rows whose call lies outside the shard are folded all the same,
    // as a full read folds them: a second pass over the table finds those calls (only for a
    // file with backtrace rows, read in a shard).
    void markCallsOutsideTheShard(std::string_view table,
        const std::vector<std::pair<std::int64_t, std::uint32_t>> &keys, std::vector<char> &hasCall)
    {
        if (m_window.isWholeFile() || m_pidsWithGpuWork.empty())
            return; // every call is kept
        using enum RuntimeColumn;
        auto columns = wantedColumns<RuntimeColumn>(table);
        ScanRows<RuntimeColumn> row(m_db, table, std::move(*columns), m_directScan, m_scanThreads);
        while (row.step()) {
            TimeNs start, end;
            if (row.int64(EventClass) == 67 || !quietInterval(row, start, end))
                continue;
            const std::pair key { row.int64(GlobalTid), std::uint32_t(row.int64(CorrelationId)) };
            if (keepsCall(start, end, key.first, key.second))
                continue;
            const auto it = std::lower_bound(keys.begin(), keys.end(), key);
            if (it != keys.end() && *it == key)
                hasCall[std::size_t(it - keys.begin())] = 1;
        }
    }

    // validInterval without counting problems (they were counted by the first pass).
    template <typename Column> bool quietInterval(const ScanRows<Column> &row, TimeNs &start, TimeNs &end) const
    {
        const auto storedStart = row.exactInt64(Column::Start), storedEnd = row.exactInt64(Column::End);
        auto representable = [&](const ExactInteger &t) {
            return t.kind == IntegerKind::Integer && t.value >= m_lowestStoredTime && t.value <= m_highestStoredTime;
        };
        if (!representable(storedStart) || !representable(storedEnd))
            return false;
        start = TimeNs(std::uint64_t(storedStart.value) + m_timeOffsetModulo);
        end = TimeNs(std::uint64_t(storedEnd.value) + m_timeOffsetModulo);
        return end >= start;
    }

    // A call's callchainId, resolved once CUDA_CALLCHAINS is read (readCallchains).
    void notePendingCallchain(std::int64_t globalTid, std::uint32_t corr, std::int64_t callchainId, StringId name)
    {
        if (corr != 0) // a call is found by its correlation id: 0 names none
            m_pendingCallchains.push_back({ globalTid, corr, callchainId, name });
    }

    void readSyncs()
    {
        static constexpr std::string_view kTable = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
        if (!m_db.hasTable(kTable))
            return;
        using enum SyncColumn;
        auto columns = wantedColumns<SyncColumn>(kTable);
        if (!columns)
            return;
        ScanRows<SyncColumn> row(m_db, kTable, std::move(*columns), m_directScan, m_scanThreads);
        while (row.step()) {
            countRow();
            TimeNs start, end;
            if (!validInterval(row, start, end))
                continue;
            if (row.isNull(DeviceId) || row.isNull(StreamId) || row.isNull(SyncType) || row.isNull(EventId)
                || row.isNull(CorrelationId)) {
                ++m_data.report.problems.nullSyncColumn;
                continue;
            }
            const auto deviceId = row.int64(DeviceId);
            if (!validDeviceId(deviceId))
                continue;
            // Only a GPU with kernels or copies has gaps to explain: a device with nothing but
            // synchronisation records (the ring exports have them) is not made a GPU.
            const auto gpu = m_gpuIndex.find(deviceId);
            if (gpu == m_gpuIndex.end())
                continue;
            const auto pid = pidOf(row.int64(GlobalPid));
            const auto streamId = row.int64(StreamId);
            const auto correlationId = std::uint32_t(row.int64(CorrelationId));
            const auto type = syncTypeFromExport(row.int64(SyncType));
            if (!keepsSync(type, std::int32_t(deviceId), pid, streamId, correlationId, end))
                continue;
            auto &c = m_data.gpus[gpu->second].syncs;
            c.start.push_back(start);
            c.end.push_back(end);
            c.pid.push_back(pid);
            c.streamId.push_back(streamId);
            c.contextId.push_back(std::uint32_t(row.int64(ContextId)));
            c.correlationId.push_back(correlationId);
            c.eventId.push_back(std::uint32_t(row.int64(EventId)));
            c.type.push_back(type);
        }
    }

    // CUDA_GPU_MEMORY_USAGE_EVENTS onto the GPUs with work (as the synchronisation records);
    // a row whose device, size, address or operation cannot be read is a data problem.
    void readMemoryUsage()
    {
        static constexpr std::string_view kTable = "CUDA_GPU_MEMORY_USAGE_EVENTS";
        if (!m_db.hasTable(kTable))
            return;
        using enum MemoryUsageColumn;
        auto columns = wantedColumns<MemoryUsageColumn>(kTable);
        if (!columns)
            return;
        ScanRows<MemoryUsageColumn> row(m_db, kTable, std::move(*columns), m_directScan, m_scanThreads);
        auto integer = [&](MemoryUsageColumn column) -> std::optional<std::int64_t> {
            const auto v = row.exactInt64(column);
            return v.kind == IntegerKind::Integer ? std::optional(v.value) : std::nullopt;
        };
        while (row.step()) {
            countRow();
            TimeNs time;
            if (!readTime(row, Start, m_data.report.problems.nullStart, time))
                continue;
            const auto deviceId = integer(DeviceId), bytes = integer(Bytes), address = integer(Address),
                       operation = integer(MemoryOperationType);
            if (!deviceId || !bytes || !address || !operation || *bytes < 0 || (*operation != 0 && *operation != 1)) {
                ++m_data.report.problems.badMemoryEvent;
                continue;
            }
            if (!validDeviceId(*deviceId))
                continue;
            const auto gpu = m_gpuIndex.find(*deviceId);
            if (gpu == m_gpuIndex.end())
                continue;
            auto &c = m_data.gpus[gpu->second].memory;
            c.time.push_back(time);
            c.bytes.push_back(std::uint64_t(*bytes));
            c.address.push_back(std::uint64_t(*address));
            c.pid.push_back(pidOf(row.int64(GlobalPid)));
            const auto kind = row.optionalInt64(MemKind);
            c.memKind.push_back(kind && *kind >= 0 && *kind < 255 ? std::uint8_t(*kind) : std::uint8_t(255));
            c.operation.push_back(MemoryOperation(*operation));
        }
    }

    // CUDA_CALLCHAINS, OSRT_CALLCHAINS into the report's Callchains; then the CUDA calls'
    // callchainIds resolved to its chains.
    void readCallchains()
    {
        auto &store = m_data.report.callchains;
        const auto kept = callchainsKept();
        readCallchainTable("CUDA_CALLCHAINS", CallchainSource::Cuda, kept ? &kept->cuda : nullptr);
        readCallchainTable("OSRT_CALLCHAINS", CallchainSource::Osrt, kept ? &kept->osrt : nullptr);
        if (m_pendingCallchains.empty())
            return;
        // Some exports count the calls' callchainIds from 0 and the chains' ids from 1: of the
        // two readings, keep the one under which more chains name their own call.
        const auto holdsName = [&](std::uint32_t chain, StringId name) {
            const auto stack = store.stackOf(chain);
            const auto &wanted = m_strings.get(name);
            return std::any_of(stack.symbol.begin(), stack.symbol.end(),
                [&](StringId symbol) { return stripApiVersionSuffix(m_strings.get(symbol)) == wanted; });
        };
        std::size_t matches[2] = { 0, 0 };
        for (const auto &p : m_pendingCallchains)
            for (int offset = 0; offset < 2; ++offset)
                if (const auto chain = store.find(CallchainSource::Cuda, p.callchainId + offset))
                    matches[offset] += holdsName(chain, p.name) ? 1 : 0;
        const int offset = matches[1] > matches[0] ? 1 : 0;
        m_data.report.notes.callchainIdOffset = std::uint64_t(offset);
        for (const auto &p : m_pendingCallchains) {
            const auto chain = store.find(CallchainSource::Cuda, p.callchainId + offset);
            if (chain == 0) {
                ++m_data.report.problems.unknownCallchainId;
                continue;
            }
            threadFor(p.globalTid).api.callchains.push_back({ p.correlationId, chain });
        }
    }

    // The chains a time shard with a halo can show: its CUDA calls' (under either reading of
    // their ids, so the offset is chosen as a full read chooses it) and its OS calls'. A full
    // read, or a file without GPU work, keeps every chain (nullopt).
    struct KeptCallchains
    {
        std::unordered_set<std::int64_t> cuda, osrt;
    };
    std::optional<KeptCallchains> callchainsKept() const
    {
        if (!m_window.halo || m_pidsWithGpuWork.empty())
            return std::nullopt;
        KeptCallchains wanted;
        for (const auto &p : m_pendingCallchains)
            for (int offset = 0; offset < 2; ++offset)
                wanted.cuda.insert(p.callchainId + offset);
        for (const auto &pending : m_data.osrtThreads)
            wanted.osrt.insert(pending.thread.osrt.callchainId.begin(), pending.thread.osrt.callchainId.end());
        return wanted;
    }

    // `wanted` (null: every chain) keeps only those chains' frames; every row is still
    // counted, checked and its names interned, as a full read does.
    void readCallchainTable(
        std::string_view table, CallchainSource source, const std::unordered_set<std::int64_t> *wanted)
    {
        struct Frame
        {
            std::int64_t id;
            std::uint16_t depth;
            StringId symbol, module;
        };
        std::vector<Frame> frames;
        using enum CallchainColumn;
        forEachRow<CallchainColumn>(table, [&](const SelectRows<CallchainColumn> &row) {
            countRow();
            const auto depth = row.optionalInt64(StackDepth);
            if (row.isNull(Id) || !depth || row.isNull(Symbol) || row.isNull(Module) || *depth < 0
                || *depth > std::numeric_limits<std::uint16_t>::max()) {
                ++m_data.report.problems.nullCallchainColumn;
                return;
            }
            const Frame frame { row.int64(Id), std::uint16_t(*depth), stringFor(row.int64(Symbol)),
                stringFor(row.int64(Module)) };
            if (!wanted || wanted->contains(frame.id))
                frames.push_back(frame);
        });
        std::stable_sort(frames.begin(), frames.end(), [](const Frame &a, const Frame &b) { return a.id < b.id; });
        std::vector<StringId> module, symbol;
        std::vector<std::uint16_t> depth;
        for (std::size_t i = 0; i < frames.size();) {
            std::size_t j = i;
            module.clear();
            symbol.clear();
            depth.clear();
            for (; j < frames.size() && frames[j].id == frames[i].id; ++j) {
                module.push_back(frames[j].module);
                symbol.push_back(frames[j].symbol);
                depth.push_back(frames[j].depth);
            }
            m_data.report.callchains.add(source, frames[i].id, module, symbol, depth);
            i = j;
        }
    }

    void addCall(Thread &t, TimeNs start, TimeNs end, StringId name, std::uint32_t corr)
    {
        makeRoom(rowsLeft(m_apiRowsTotal, m_apiRowsSeen), m_apiRowsSeen, t.api.start, t.api.end, t.api.name,
            t.api.correlationId);
        appendCall(t.api, start, end, name, corr);
    }

    [[gnu::flatten]] static void appendCall(
        ApiColumns &api, TimeNs start, TimeNs end, StringId name, std::uint32_t corr)
    {
        api.start.push_back(start);
        api.end.push_back(end);
        api.name.push_back(name);
        api.correlationId.push_back(corr);
    }

    // OS runtime calls go through TableScan like the other activity tables, not a statement:
    // OSRT_API holds a row per traced libc call, on a training capture as many as the CUDA
    // API table (every ioctl, poll and futex wait of every thread), and the direct scan is
    // checked against SQLite's on every real export. The rows wait in osrtThreads until
    // attachOsrt knows which processes have CUDA or NVTX activity.
    void readOsrt()
    {
        static constexpr std::string_view kTable = "OSRT_API";
        if (!m_db.hasTable(kTable))
            return;
        using enum OsrtColumn;
        auto columns = wantedColumns<OsrtColumn>(kTable);
        if (!columns)
            return;
        const auto rows = tableRows(kTable);
        std::uint64_t seen = 0;
        ScanRows<OsrtColumn> row(m_db, kTable, std::move(*columns), m_directScan, m_scanThreads);
        while (row.step()) {
            countRow();
            ++seen;
            // "OS runtime libraries profiling started/finished": instants on thread 0, not calls.
            const auto eventClass = row.int64(EventClass);
            if (eventClass == kOsrtStartEventClass || eventClass == kOsrtFinishEventClass)
                continue;
            TimeNs start, end;
            if (!validInterval(row, start, end))
                continue;
            // Every row names its thread and interns its name, kept or not: the threads are
            // numbered, and the names pooled, as a full read does.
            auto &o = osrtThreadFor(row.int64(GlobalTid)).osrt;
            const auto name = stringFor(row.int64(NameId)); // the export's name, nothing stripped
            if (!keepsOsCall(start, end))
                continue;
            makeRoom(rowsLeft(rows, seen), seen, o.start, o.end, o.name, o.callchainId);
            o.start.push_back(start);
            o.end.push_back(end);
            o.name.push_back(name);
            o.callchainId.push_back(row.int64(CallchainId)); // NULL reads as 0: no stack
        }
    }
    static constexpr std::int64_t kOsrtStartEventClass = 31; // TRACE_PROCESS_EVENT_OS_RUNTIME_START
    static constexpr std::int64_t kOsrtFinishEventClass = 32; // TRACE_PROCESS_EVENT_OS_RUNTIME_FINISH

    Thread &osrtThreadFor(std::int64_t globalTid)
    {
        if (m_lastOsrtThread != kNoIndex && m_lastOsrtTid == globalTid)
            return m_data.osrtThreads[m_lastOsrtThread].thread;
        auto [it, inserted] = m_osrtIndex.try_emplace(globalTid, std::uint32_t(m_data.osrtThreads.size()));
        if (inserted) {
            auto &t = m_data.osrtThreads.emplace_back().thread;
            t.pid = pidOf(globalTid);
            t.tid = tidOf(globalTid);
        }
        m_lastOsrtTid = globalTid;
        m_lastOsrtThread = it->second;
        return m_data.osrtThreads[it->second].thread;
    }

    // Domain ids are resolved after the table: domain-create rows (eventType 75) may come
    // anywhere, and one pass over the biggest table costs half of two. Until then a row's
    // domain holds kPendingDomain | index into m_pendingDomains.
    static constexpr StringId kPendingDomain = 0x80000000u;

    // Marks (34), ranges (35: ended marks of old exports, 59/60 push-pop/start-end, 70/71 the
    // NVTXT variants) and domain creation (75).
    static bool isNvtxEventKept(std::int64_t type)
    {
        switch (type) {
        case 34:
        case 35:
        case 59:
        case 60:
        case 70:
        case 71:
        case 75: return true;
        default: return false;
        }
    }

    StringId pendingDomain(std::int64_t domainId)
    {
        if (m_lastDomain != kNoIndex && m_pendingDomains[m_lastDomain] == domainId)
            return kPendingDomain | m_lastDomain;
        auto it = std::find(m_pendingDomains.begin(), m_pendingDomains.end(), domainId);
        if (it == m_pendingDomains.end())
            it = m_pendingDomains.insert(m_pendingDomains.end(), domainId);
        m_lastDomain = std::uint32_t(it - m_pendingDomains.begin());
        return kPendingDomain | m_lastDomain;
    }

    void readNvtx()
    {
        static constexpr std::string_view kTable = "NVTX_EVENTS";
        if (!m_db.hasTable(kTable))
            return;
        using enum NvtxColumn;
        auto columns = wantedColumns<NvtxColumn>(kTable);
        if (!columns)
            return;
        std::unordered_map<std::int64_t, StringId> domains; // domainId -> name (the last create row wins)
        const auto rows = tableRows(kTable);
        std::uint64_t seen = 0;
        // All rows, filtered here: `WHERE eventType IN (...)` made SQLite probe an ephemeral
        // index for every row (sqlite3BtreeIndexMoveto in the profile).
        ScanRows<NvtxColumn> row(m_db, kTable, std::move(*columns), m_directScan, m_scanThreads);
        while (row.step()) {
            ++seen;
            const auto type = row.int64(EventType); // NULL reads as 0: not a kept type
            if (!isNvtxEventKept(type))
                continue;
            if (type == 75) {
                if (const auto id = row.optionalInt64(DomainId))
                    domains[*id] = nvtxText(row);
                continue;
            }
            countRow();
            if (!ownsHostRow(row)) { // another shard's: only its data problems, which every shard counts
                if (m_window.halo)
                    threadFor(row.int64(GlobalTid)); // threads numbered as a full read numbers them
                TimeNs start, end;
                if (type == 34)
                    readTime(row, Start, m_data.report.problems.nullStart, start);
                else
                    validInterval(row, start, end);
                continue;
            }
            const auto domainId = row.int64(DomainId); // NULL and 0 both mean the default domain
            const StringId domain = domainId != 0 ? pendingDomain(domainId) : kEmptyString;
            const auto name = nvtxText(row);
            auto &t = threadFor(row.int64(GlobalTid));
            if (type == 34) {
                TimeNs time;
                if (!readTime(row, Start, m_data.report.problems.nullStart, time))
                    continue;
                t.marks.time.push_back(time);
                t.marks.name.push_back(name);
                t.marks.domain.push_back(domain);
                continue;
            }
            TimeNs start, end;
            if (!validInterval(row, start, end))
                continue;
            auto &n = t.nvtx;
            makeRoom(rowsLeft(rows, seen), seen, n.start, n.end, n.name, n.kind);
            appendRange(n, start, end, name, domain, type == 60 || type == 71 ? NvtxKind::StartEnd : NvtxKind::PushPop);
            appendPayload(n, row);
        }
        if (m_pendingDomains.empty())
            return;
        std::vector<StringId> resolved(m_pendingDomains.size());
        for (std::size_t i = 0; i < resolved.size(); ++i) {
            const auto it = domains.find(m_pendingDomains[i]);
            resolved[i]
                = it != domains.end() ? it->second : m_strings.intern(fmt::format("domain {}", m_pendingDomains[i]));
        }
        auto resolve = [&](std::vector<StringId> &column) {
            for (auto &d : column)
                if (d & kPendingDomain)
                    d = resolved[d & ~kPendingDomain];
        };
        for (auto &t : m_data.threads) {
            resolve(t.nvtx.domain);
            resolve(t.marks.domain);
        }
    }

    [[gnu::flatten]] static void appendRange(
        NvtxColumns &n, TimeNs start, TimeNs end, StringId name, StringId domain, NvtxKind kind)
    {
        n.start.push_back(start);
        n.end.push_back(end);
        n.name.push_back(name);
        n.kind.push_back(kind);
        // The domain column starts at the thread's first range outside the default domain.
        if (domain != kEmptyString || !n.domain.empty()) {
            n.domain.resize(n.start.size() - 1, kEmptyString);
            n.domain.push_back(domain);
        }
    }

    // The payload column is allocated at the thread's first range with a payload, NaN for the
    // ranges before it and for later ones without.
    static void appendPayload(NvtxColumns &n, const ScanRows<NvtxColumn> &row)
    {
        using enum NvtxColumn;
        // Most ranges have no payload: six serial-type tests, before any value is built (the
        // probes below, run for every row, were most of readNvtx's own time in the profile).
        if (row.isNull(Int64Value) && row.isNull(Uint64Value) && row.isNull(DoubleValue) && row.isNull(Int32Value)
            && row.isNull(Uint32Value) && row.isNull(FloatValue)) {
            if (!n.payload.empty())
                n.payload.push_back(std::numeric_limits<double>::quiet_NaN());
            return;
        }
        std::optional<double> value;
        if (const auto v = row.optionalInt64(Int64Value))
            value = double(*v);
        else if (const auto u = row.optionalInt64(Uint64Value))
            value = double(std::uint64_t(*u)); // stored as the signed 64-bit pattern
        else if (const auto d = row.optionalDouble(DoubleValue))
            value = *d;
        else if (const auto i = row.optionalInt64(Int32Value))
            value = double(*i);
        else if (const auto u32 = row.optionalInt64(Uint32Value))
            value = double(*u32);
        else if (const auto f = row.optionalDouble(FloatValue))
            value = *f;
        constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
        if (value) {
            if (n.payload.empty())
                n.payload.resize(n.start.size() - 1, kNone);
            n.payload.push_back(*value);
        } else if (!n.payload.empty()) {
            n.payload.push_back(kNone);
        }
    }

    // The NVTX name is COALESCE(text, StringIds[textId]).
    StringId nvtxText(const ScanRows<NvtxColumn> &row)
    {
        if (const auto text = row.optionalText(NvtxColumn::Text))
            return internText(*text);
        if (const auto textId = row.optionalInt64(NvtxColumn::TextId))
            return stringFor(*textId);
        return kEmptyString;
    }

    // Inline NVTX texts repeat a lot: a reader-local cache avoids the shared pool's mutex per
    // row.
    StringId internText(std::string_view text)
    {
        if (const auto cached = m_textCache.find(text))
            return *cached;
        const auto id = m_strings.intern(text);
        m_textCache.insert(text, id);
        return id;
    }

    void readThreadNames()
    {
        if (m_threadIndex.empty() && m_osrtIndex.empty())
            return;
        forEachRow<ThreadNameColumn>("ThreadNames", [&](const SelectRows<ThreadNameColumn> &row) {
            const auto globalTid = row.int64(ThreadNameColumn::GlobalTid);
            const auto unknownBefore = m_data.report.problems.unknownStringId;
            if (auto it = m_threadIndex.find(globalTid); it != m_threadIndex.end()) {
                Thread &thread = m_data.threads[it->second];
                thread.name = stringFor(row.int64(ThreadNameColumn::NameId));
                if (m_data.report.problems.unknownStringId != unknownBefore)
                    ++m_data.unknownThreadNameIds[(std::uint64_t(thread.pid) << 32) | thread.tid];
            } else if (auto osrt = m_osrtIndex.find(globalTid); osrt != m_osrtIndex.end()) {
                // A thread with only OS calls may be dropped: its unknown name counts once kept.
                auto &pending = m_data.osrtThreads[osrt->second];
                pending.thread.name = stringFor(row.int64(ThreadNameColumn::NameId));
                pending.unknownName = m_data.report.problems.unknownStringId != unknownBefore;
                m_data.report.problems.unknownStringId = unknownBefore;
            }
        });
    }

    void readProcesses()
    {
        forEachRow<ProcessColumn>("PROCESSES", [&](const SelectRows<ProcessColumn> &row) {
            const auto pid = std::uint32_t(row.int64(ProcessColumn::Pid));
            m_data.processNames[pid] = std::string(row.text(ProcessColumn::Name));
        });
    }

    void readGpuNames()
    {
        if (m_data.gpus.empty())
            return;
        using enum GpuColumn;
        forEachRow<GpuColumn>("TARGET_INFO_GPU", [&](const SelectRows<GpuColumn> &row) {
            if (auto it = m_gpuIndex.find(row.int64(Id)); it != m_gpuIndex.end() && !row.isNull(Name))
                m_data.gpus[it->second].name = std::string(row.text(Name));
        });
    }

    void collectPids()
    {
        m_data.gpuPids.assign(m_pidsWithGpuWork.begin(), m_pidsWithGpuWork.end());
        std::sort(m_data.gpuPids.begin(), m_data.gpuPids.end());
        for (const auto &t : m_data.threads)
            m_data.activityByPid[t.pid] += t.api.size() + t.nvtx.size() + t.marks.size();
    }

    Database m_db;
    StringPool &m_strings;
    const StageFn &m_stage;
    const CancelToken *m_cancel;
    ReportPart m_part;
    bool m_directScan; // big tables through TableScan's own page decoding
    TableSet m_tables; // what is read (with its dependencies, and what a file without GPU work needs)
    unsigned m_scanThreads; // threads decoding a big table's pages beside this one
    StoredStartWindow m_window; // the time shard read (LoadOptions::windows)
    ReportData m_data;
    // META_DATA_CAPTURE's programs while their rows are read (rows come in any order).
    struct PendingProgram
    {
        LaunchedProgram program;
        std::map<std::uint32_t, std::string> arguments;
    };
    std::map<std::uint32_t, PendingProgram> m_programs;
    // Set by setTimeOffset: stored times within [lowest, highest] are made absolute by adding
    // the offset (modulo 2^64).
    std::int64_t m_lowestStoredTime = 0, m_highestStoredTime = 0;
    std::uint64_t m_timeOffsetModulo = 0;

    std::vector<StringId> m_stringIds;
    std::unordered_map<std::int64_t, StringId> m_sparseStringIds;
    std::unique_ptr<Statement> m_stringLookup; // set when strings are looked up by id
    std::unordered_map<std::int64_t, StringId> m_unknownStringIds; // placeholders "<unknown string #id>"
    std::unordered_map<std::int64_t, StringId> m_apiNames;
    std::vector<StringId> m_apiNameByDenseId; // nameId -> m_apiNames' value, kNoIndex = not yet
    TextIdCache m_textCache;
    std::vector<std::int64_t> m_pendingDomains; // NVTX domain ids seen, resolved after the table
    std::uint32_t m_lastDomain = kNoIndex;
    std::uint64_t m_apiRowsTotal = 0, m_apiRowsSeen = 0; // runtime table growth hint
    struct PendingCallchain
    {
        std::int64_t globalTid;
        std::uint32_t correlationId;
        std::int64_t callchainId;
        StringId name;
    };
    std::vector<PendingCallchain> m_pendingCallchains;
    std::int64_t m_lastThreadTid = 0;
    std::uint32_t m_lastThread = kNoIndex;
    std::uint32_t m_lastGpuPid = kNoIndex;
    std::unordered_map<std::int64_t, std::uint32_t> m_gpuIndex;
    std::unordered_map<std::int64_t, std::uint32_t> m_threadIndex;
    std::unordered_map<std::int64_t, std::uint32_t> m_osrtIndex; // globalTid -> osrtThreads
    std::int64_t m_lastOsrtTid = 0;
    std::uint32_t m_lastOsrtThread = kNoIndex;
    std::unordered_set<std::uint32_t> m_pidsWithGpuWork;
    std::tuple<std::int64_t, std::uint32_t, std::int64_t> m_lastStreamKey {};
    KernelColumns *m_lastStream = nullptr;
    std::map<std::tuple<std::int64_t, std::uint32_t, std::int64_t>, LaunchConfigInterner> m_launchConfigs;
    LaunchConfigInterner *m_lastLaunchConfigs = nullptr; // the last stream's
};

} // namespace

std::string_view stripApiVersionSuffix(std::string_view name)
{
    const auto pos = name.rfind("_v");
    if (pos == std::string_view::npos || pos + 2 >= name.size())
        return name;
    for (auto c : name.substr(pos + 2))
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return name;
    return name.substr(0, pos);
}

ReportData readReport(const std::string &path, StringPool &strings, const StageFn &stage, const CancelToken *cancel,
    ReportPart part, bool directTableScan, TableSet tables, unsigned scanThreads, StoredStartWindow window)
{
    ReportData failed;
    failed.report.path = path;
    try {
        checkReadableFile(path);
        Reader reader(path, strings, stage, cancel, part, directTableScan, tables, scanThreads, window);
        return reader.run();
    } catch (const CancelledError &) {
        throw;
    } catch (const FileError &e) {
        failed.error = LoadError { path, fmt::format("{}: {}", path, e.message) };
    } catch (const UnfinishedWriteError &e) { // Database's refusal says what to do
        failed.error = LoadError { path, fmt::format("{}: {}", path, e.what()) };
    } catch (const SqliteError &e) {
        failed.error = LoadError { path, fmt::format("{}: {}", path, describeSqliteError(e)) };
    } catch (const std::bad_alloc &) {
        failed.error = LoadError { path, fmt::format("{}: not enough memory to load it", path) };
    } catch (const std::exception &e) {
        failed.error = LoadError { path, fmt::format("{}: could not be read ({})", path, e.what()) };
    }
    return failed;
}

void joinParts(ReportData &gpuAndApi, ReportData &&nvtx)
{
    if (gpuAndApi.error)
        return;
    if (nvtx.error) {
        gpuAndApi = std::move(nvtx);
        return;
    }
    auto &report = gpuAndApi.report;
    const auto &other = nvtx.report;
    report.problems += other.problems;
    report.notes.rowsRead += other.notes.rowsRead;
    // Both parts read the metadata: its warnings came twice.
    for (auto &warning : nvtx.report.warnings)
        if (std::find(report.warnings.begin(), report.warnings.end(), warning) == report.warnings.end())
            report.warnings.push_back(std::move(warning));

    // A thread with both CUDA calls and NVTX ranges was seen by both parts.
    std::unordered_map<std::uint64_t, std::size_t> threadIndex;
    auto keyOf = [](const Thread &t) { return (std::uint64_t(t.pid) << 32) | t.tid; };
    for (std::size_t i = 0; i < gpuAndApi.threads.size(); ++i)
        threadIndex.emplace(keyOf(gpuAndApi.threads[i]), i);
    for (auto &thread : nvtx.threads) {
        auto it = threadIndex.find(keyOf(thread));
        if (it == threadIndex.end()) {
            gpuAndApi.threads.push_back(std::move(thread));
            continue;
        }
        Thread &joined = gpuAndApi.threads[it->second];
        // Both parts looked up this thread's name: count its unknown ids once.
        if (auto unknown = nvtx.unknownThreadNameIds.find(it->first); unknown != nvtx.unknownThreadNameIds.end())
            report.problems.unknownStringId -= unknown->second;
        joined.nvtx = std::move(thread.nvtx);
        joined.marks = std::move(thread.marks);
        if (joined.name == kEmptyString)
            joined.name = thread.name;
    }
    for (auto &[pid, name] : nvtx.processNames)
        gpuAndApi.processNames.emplace(pid, std::move(name));
    for (const auto &[pid, events] : nvtx.activityByPid)
        gpuAndApi.activityByPid[pid] += events;
    attachOsrt(gpuAndApi); // the GPU + API part read OSRT_API
}

ReportData firstStageOf(const ReportData &gpuAndApi)
{
    ReportData copy;
    copy.report = gpuAndApi.report;
    copy.gpus = gpuAndApi.gpus;
    copy.threads = gpuAndApi.threads;
    copy.processNames = gpuAndApi.processNames;
    copy.gpuPids = gpuAndApi.gpuPids;
    copy.activityByPid = gpuAndApi.activityByPid;
    copy.environmentRank = gpuAndApi.environmentRank;
    copy.error = gpuAndApi.error;
    return copy; // not unknownThreadNameIds, which only joinParts reads, nor osrtThreads
}

void attachOsrt(ReportData &data)
{
    if (data.osrtThreads.empty())
        return;
    std::unordered_set<std::uint32_t> activePids(data.gpuPids.begin(), data.gpuPids.end());
    std::unordered_map<std::uint64_t, std::size_t> threadIndex;
    auto keyOf = [](const Thread &t) { return (std::uint64_t(t.pid) << 32) | t.tid; };
    for (std::size_t i = 0; i < data.threads.size(); ++i) {
        const Thread &t = data.threads[i];
        threadIndex.emplace(keyOf(t), i);
        if (t.api.size() + t.nvtx.size() + t.marks.size() > 0)
            activePids.insert(t.pid);
    }
    for (auto &pending : data.osrtThreads) {
        Thread &calls = pending.thread;
        if (auto it = threadIndex.find(keyOf(calls)); it != threadIndex.end()) {
            data.threads[it->second].osrt = std::move(calls.osrt);
        } else if (activePids.count(calls.pid)) {
            if (pending.unknownName)
                ++data.report.problems.unknownStringId;
            data.threads.push_back(std::move(calls));
        }
    }
    data.osrtThreads.clear();
}

} // namespace gaplens::core::detail
