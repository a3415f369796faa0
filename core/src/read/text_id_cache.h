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
// Before the probe, each lookup tries the text that followed the previous one last time: in
// a repeating step that is one compare, without the hash or the probe's cache miss.
#include "gaplens/core/model/string_pool.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

// XXH3 as header-only code (Debian's libxxhash-dev), as report_cache_store.cpp uses it.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace gaplens::core::detail {

class TextIdCache
{
public:
    // Bounded, so a table of per-row unique texts does not keep a second copy of all of them.
    static constexpr std::size_t kMaxEntries = std::size_t(1) << 16;
    static constexpr std::size_t kMaxTextBytes = std::size_t(16) << 20;

    // XXH3 rather than std::hash (libstdc++'s murmur, out of line): inlined, it reads a
    // 17-128 byte text in a few 16-byte steps, and std::hash was 4% of a `gaps` run.
    static std::size_t hashOf(std::string_view text) { return XXH3_64bits(text.data(), text.size()); }

    // The id of `text`, if stored. Tried first: the entry that followed the last one found,
    // the last time that one was found. The ranges of a training step repeat in order, so the
    // next text is nearly always that one, and it is compared without a hash or a probe.
    std::optional<StringId> find(std::string_view text)
    {
        return findHashing(text, [text] { return hashOf(text); });
    }
    // The same with a given hash (tests make texts collide with it).
    std::optional<StringId> find(std::string_view text, std::size_t hash)
    {
        return findHashing(text, [hash] { return hash; });
    }

    // Remembers `text` -> `id` unless the cache is full. The empty text is never stored: it is
    // always kEmptyString.
    void insert(std::string_view text, StringId id) { insert(text, hashOf(text), id); }
    void insert(std::string_view text, std::size_t hash, StringId id)
    {
        if (text.empty() || m_entries.size() >= kMaxEntries || m_texts.size() + text.size() > kMaxTextBytes)
            return;
        if (4 * (m_entries.size() + 1) > 3 * m_slots.size())
            grow();
        m_entries.push_back({ id, std::uint32_t(m_texts.size()), std::uint32_t(text.size()) });
        m_texts.insert(m_texts.end(), text.begin(), text.end());
        const auto entry = std::uint32_t(m_entries.size());
        place({ tagOf(hash), entry });
        if (m_last != 0)
            m_entries[m_last - 1].next = entry;
        m_last = entry;
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
        std::uint32_t next = 0; // 1 + index of the entry found right after this one last time; 0: none
    };

    template <typename Hash> std::optional<StringId> findHashing(std::string_view text, Hash hash)
    {
        if (m_last != 0) {
            const auto next = m_entries[m_last - 1].next;
            if (next != 0 && holds(m_entries[next - 1], text)) {
                m_last = next;
                return m_entries[next - 1].id;
            }
        }
        const auto found = probe(text, hash());
        if (found == 0)
            return std::nullopt; // m_last is kept: insert puts the new text after it
        if (m_last != 0)
            m_entries[m_last - 1].next = found;
        m_last = found;
        return m_entries[found - 1].id;
    }

    bool holds(const Entry &entry, std::string_view text) const
    {
        return entry.length == text.size() && std::memcmp(m_texts.data() + entry.offset, text.data(), text.size()) == 0;
    }

    // 1 + index of the entry holding `text`; 0: none.
    std::uint32_t probe(std::string_view text, std::size_t hash) const
    {
        if (m_slots.empty())
            return 0;
        const auto tag = tagOf(hash);
        for (std::size_t i = tag & mask();; i = (i + 1) & mask()) {
            const Slot &slot = m_slots[i];
            if (slot.entry == 0)
                return 0;
            if (slot.tag == tag && holds(m_entries[slot.entry - 1], text))
                return slot.entry;
        }
    }

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
    std::uint32_t m_last = 0; // 1 + index of the entry last found or stored; 0: none
};

} // namespace gaplens::core::detail
