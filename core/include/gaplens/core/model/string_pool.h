// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gaplens::core {

using StringId = std::uint32_t;
// Id 0 is always the empty string, so "no name" needs no special case.
inline constexpr StringId kEmptyString = 0;

// Interns each distinct string once for a whole capture. intern() is thread-safe so
// several report loaders can share one pool; get() is lock-free once loading is done
// (strings are never moved: std::deque keeps references stable).
class StringPool
{
public:
    StringPool();
    StringPool(const StringPool &) = delete;
    StringPool &operator=(const StringPool &) = delete;

    StringId intern(std::string_view text);
    const std::string &get(StringId id) const { return m_strings[id]; }
    // Returns kEmptyString when the text was never interned.
    StringId find(std::string_view text) const;
    std::size_t size() const { return m_strings.size(); }

private:
    mutable std::mutex m_mutex;
    std::deque<std::string> m_strings;
    std::unordered_map<std::string_view, StringId> m_index;
};

} // namespace gaplens::core
