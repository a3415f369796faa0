// SPDX-License-Identifier: MIT
#include "gaplens/core/model/string_pool.h"

namespace gaplens::core {

StringPool::StringPool()
{
    m_strings.emplace_back();
    m_index.emplace(m_strings.front(), kEmptyString);
}

StringId StringPool::intern(std::string_view text)
{
    std::lock_guard lock(m_mutex);
    if (auto it = m_index.find(text); it != m_index.end())
        return it->second;
    const auto id = static_cast<StringId>(m_strings.size());
    const std::string &stored = m_strings.emplace_back(text);
    m_index.emplace(stored, id);
    return id;
}

StringId StringPool::find(std::string_view text) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_index.find(text);
    return it == m_index.end() ? kEmptyString : it->second;
}

} // namespace gaplens::core
