// SPDX-License-Identifier: MIT
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gaplens::core {

using StringId = std::uint32_t;
// Id 0 is always the empty string, so "no name" needs no special case.
inline constexpr StringId kEmptyString = 0;

// Interns each distinct string once for a whole capture. Several report loaders share
// one pool: intern() takes a lock, and get() never does, even while other threads
// intern. That is why the strings live in segments of doubling size whose table never
// moves (a std::deque reallocates its block map on growth, under a concurrent reader).
// A thread may get() any id it received from intern(): the lock orders the write
// of that string and its segment before the id is returned.
// Two pools can share their strings (the two captures of a staged load, LoadOptions::
// onFirstStage): what either interns, both hold, under the same id.
class StringPool
{
public:
    StringPool();
    struct ShareWith
    {
        const StringPool &pool;
    };
    explicit StringPool(ShareWith other);
    StringPool(const StringPool &) = delete;
    StringPool &operator=(const StringPool &) = delete;

    StringId intern(std::string_view text);
    const std::string &get(StringId id) const
    {
        const auto [segment, offset] = locate(id);
        return m_shared->segments[segment][offset];
    }
    // Returns kEmptyString when the text was never interned.
    StringId find(std::string_view text) const;
    std::size_t size() const { return m_shared->size.load(std::memory_order_acquire); }

private:
    // Segment s holds ids [2^(s+k) - 2^k, 2^(s+k+1) - 2^k) with k = kFirstSegmentBits.
    static constexpr unsigned kFirstSegmentBits = 10;
    static constexpr std::size_t kSegmentCount = 33 - kFirstSegmentBits;
    struct Slot
    {
        std::size_t segment, offset;
    };
    static Slot locate(StringId id);

    struct Shared
    {
        std::mutex mutex;
        std::array<std::unique_ptr<std::string[]>, kSegmentCount> segments;
        std::atomic<std::size_t> size { 0 };
        std::unordered_map<std::string_view, StringId> index;
    };
    std::shared_ptr<Shared> m_shared; // never null
};

} // namespace gaplens::core
