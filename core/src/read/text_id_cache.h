// SPDX-License-Identifier: MIT
#pragma once
// A reader's private map from an inline NVTX text to its id in the shared StringPool.
//
// Hand-written rather than a std::unordered_map: on a PyTorch capture the NVTX table is
// millions of rows of a few thousand distinct "aten::..., op_id = N" texts, and the
// unordered_map's lookup (a bucket, then its node, then the node's heap string: three
// dependent loads that miss while the pages stream through the cache) was 15% of a whole
// `gaps` run in the profile. Here a lookup is one hash, one probe of a flat slot array that
// keeps 32 bits of the hash, and one memcmp into a contiguous text arena. The probe is the
// random access: entries and texts are stored in first-seen order, so ranges that repeat in
// sequence, as each training step's do, read them in order. Hence 8-byte slots filled up to
// 3/4: 16,582 texts take 32,768 slots, 256 KiB, which stay in L2 while NVTX pages stream by.
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
            if (slot.entry == 0)
                return std::nullopt;
            if (slot.tag != tag)
                continue;
            const Entry &entry = m_entries[slot.entry - 1];
            if (entry.length == text.size()
                && std::memcmp(m_texts.data() + entry.offset, text.data(), text.size()) == 0)
                return entry.id;
        }
    }

    // Remembers `text` -> `id` unless the cache is full. The empty text is never stored: it is
    // always kEmptyString.
    void insert(std::string_view text, std::size_t hash, StringId id)
    {
        if (text.empty() || m_entries.size() >= kMaxEntries || m_texts.size() + text.size() > kMaxTextBytes)
            return;
        if (4 * (m_entries.size() + 1) > 3 * m_slots.size())
            grow();
        m_entries.push_back({ id, std::uint32_t(m_texts.size()), std::uint32_t(text.size()) });
        m_texts.insert(m_texts.end(), text.begin(), text.end());
        place({ tagOf(hash), std::uint32_t(m_entries.size()) });
    }

    std::size_t size() const { return m_entries.size(); }

private:
    struct Slot
    {
        std::uint32_t tag = 0; // 32 bits of the hash: the slot index and a cheap first compare
        std::uint32_t entry = 0; // 1 + index into m_entries; 0: a free slot
    };
    struct Entry
    {
        StringId id;
        std::uint32_t offset, length; // the text in m_texts
    };

    static std::uint32_t tagOf(std::size_t hash) { return std::uint32_t(hash ^ (std::uint64_t(hash) >> 32)); }
    std::size_t mask() const { return m_slots.size() - 1; }

    void place(const Slot &slot)
    {
        std::size_t i = slot.tag & mask();
        while (m_slots[i].entry != 0)
            i = (i + 1) & mask();
        m_slots[i] = slot;
    }

    // Linear probing at load <= 3/4; the slot count stays a power of two.
    void grow()
    {
        std::vector<Slot> old(m_slots.empty() ? 1024 : 2 * m_slots.size());
        old.swap(m_slots);
        for (const Slot &slot : old)
            if (slot.entry != 0)
                place(slot);
    }

    std::vector<Slot> m_slots;
    std::vector<Entry> m_entries; // in the order they were stored
    std::vector<char> m_texts;
};

} // namespace gaplens::core::detail
