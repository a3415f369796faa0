// SPDX-License-Identifier: MIT
#pragma once
// A reader's private map from an inline NVTX text to its id in the shared StringPool.
//
// Hand-written rather than a std::unordered_map: on a PyTorch capture the NVTX table is
// millions of rows of a few thousand distinct "aten::..., op_id = N" texts, and the
// unordered_map's lookup (a bucket, then its node, then the node's heap string: three
// dependent loads that miss while the pages stream through the cache) was 15% of a whole
// `gaps` run in the profile. Here a lookup is one hash, one probe of a flat slot array that
// keeps 32 bits of the hash, and one memcmp into a contiguous text arena.
#include "gaplens/core/model/string_pool.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace gaplens::core::detail {

class TextIdCache
{
public:
    // Bounded, so a table of per-row unique texts does not keep a second copy of all of them.
    static constexpr std::size_t kMaxEntries = std::size_t(1) << 16;
    static constexpr std::size_t kMaxTextBytes = std::size_t(16) << 20;

    static std::size_t hashOf(std::string_view text) { return std::hash<std::string_view> {}(text); }

    std::optional<StringId> find(std::string_view text, std::size_t hash) const
    {
        if (m_slots.empty())
            return std::nullopt;
        const auto tag = tagOf(hash);
        for (std::size_t i = tag & mask();; i = (i + 1) & mask()) {
            const Slot &slot = m_slots[i];
            if (slot.id == kEmptyString)
                return std::nullopt;
            if (slot.tag == tag && slot.length == text.size()
                && std::memcmp(m_texts.data() + slot.offset, text.data(), text.size()) == 0)
                return slot.id;
        }
    }

    // Remembers `text` -> `id` unless the cache is full. The empty text is never stored:
    // it is always kEmptyString, and that id marks a free slot.
    void insert(std::string_view text, std::size_t hash, StringId id)
    {
        if (text.empty() || m_size >= kMaxEntries || m_texts.size() + text.size() > kMaxTextBytes)
            return;
        if (2 * (m_size + 1) > m_slots.size())
            grow();
        const auto offset = std::uint32_t(m_texts.size());
        m_texts.insert(m_texts.end(), text.begin(), text.end());
        place({ tagOf(hash), id, offset, std::uint32_t(text.size()) });
        ++m_size;
    }

    std::size_t size() const { return m_size; }

private:
    struct Slot
    {
        std::uint32_t tag = 0; // 32 bits of the hash: the slot index and a cheap first compare
        StringId id = kEmptyString; // kEmptyString: a free slot
        std::uint32_t offset = 0, length = 0; // the text in m_texts
    };

    static std::uint32_t tagOf(std::size_t hash) { return std::uint32_t(hash ^ (std::uint64_t(hash) >> 32)); }
    std::size_t mask() const { return m_slots.size() - 1; }

    void place(const Slot &slot)
    {
        std::size_t i = slot.tag & mask();
        while (m_slots[i].id != kEmptyString)
            i = (i + 1) & mask();
        m_slots[i] = slot;
    }

    // Linear probing at load <= 1/2; the slot count stays a power of two.
    void grow()
    {
        std::vector<Slot> old(m_slots.empty() ? 1024 : 2 * m_slots.size());
        old.swap(m_slots);
        for (const Slot &slot : old)
            if (slot.id != kEmptyString)
                place(slot);
    }

    std::vector<Slot> m_slots;
    std::vector<char> m_texts;
    std::size_t m_size = 0;
};

} // namespace gaplens::core::detail
