// SPDX-License-Identifier: MIT
#include "gaplens/core/model/string_pool.h"

#include <bit>
#include <stdexcept>

namespace gaplens::core {

StringPool::StringPool()
    : m_shared(std::make_shared<Shared>())
{
    intern({});
}

StringPool::StringPool(ShareWith other)
    : m_shared(other.pool.m_shared)
{
}

StringPool::Slot StringPool::locate(StringId id)
{
    const auto biased = std::uint64_t(id) + (std::uint64_t(1) << kFirstSegmentBits);
    const auto top = unsigned(std::bit_width(biased)) - 1;
    return { top - kFirstSegmentBits, std::size_t(biased - (std::uint64_t(1) << top)) };
}

StringId StringPool::intern(std::string_view text)
{
    auto &shared = *m_shared;
    std::lock_guard lock(shared.mutex);
    if (auto it = shared.index.find(text); it != shared.index.end())
        return it->second;
    const auto size = shared.size.load(std::memory_order_relaxed);
    if (size > std::size_t(UINT32_MAX))
        throw std::length_error("more than 2^32 distinct strings in one capture");
    const auto id = static_cast<StringId>(size);
    const auto [segment, offset] = locate(id);
    if (offset == 0)
        shared.segments[segment] = std::make_unique<std::string[]>(std::size_t(1) << (segment + kFirstSegmentBits));
    std::string &stored = shared.segments[segment][offset];
    stored.assign(text);
    shared.index.emplace(stored, id);
    shared.size.store(size + 1, std::memory_order_release);
    return id;
}

StringId StringPool::find(std::string_view text) const
{
    auto &shared = *m_shared;
    std::lock_guard lock(shared.mutex);
    auto it = shared.index.find(text);
    return it == shared.index.end() ? kEmptyString : it->second;
}

} // namespace gaplens::core
