// SPDX-License-Identifier: MIT
#include "gaplens/core/model/string_pool.h"

#include <bit>
#include <stdexcept>

namespace gaplens::core {

StringPool::StringPool()
{
    intern({});
}

StringPool::Slot StringPool::locate(StringId id)
{
    const auto biased = std::uint64_t(id) + (std::uint64_t(1) << kFirstSegmentBits);
    const auto top = unsigned(std::bit_width(biased)) - 1;
    return { top - kFirstSegmentBits, std::size_t(biased - (std::uint64_t(1) << top)) };
}

StringId StringPool::intern(std::string_view text)
{
    std::lock_guard lock(m_mutex);
    if (auto it = m_index.find(text); it != m_index.end())
        return it->second;
    const auto size = m_size.load(std::memory_order_relaxed);
    if (size > std::size_t(UINT32_MAX))
        throw std::length_error("more than 2^32 distinct strings in one capture");
    const auto id = static_cast<StringId>(size);
    const auto [segment, offset] = locate(id);
    if (offset == 0)
        m_segments[segment] = std::make_unique<std::string[]>(std::size_t(1) << (segment + kFirstSegmentBits));
    std::string &stored = m_segments[segment][offset];
    stored.assign(text);
    m_index.emplace(stored, id);
    m_size.store(size + 1, std::memory_order_release);
    return id;
}

StringId StringPool::find(std::string_view text) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_index.find(text);
    return it == m_index.end() ? kEmptyString : it->second;
}

} // namespace gaplens::core
