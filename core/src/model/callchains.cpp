// SPDX-License-Identifier: MIT
#include "gaplens/core/model/callchains.h"

#include <algorithm>
#include <numeric>

namespace gaplens::core {

std::uint32_t Callchains::add(CallchainSource source, std::int64_t exportId, std::span<const StringId> module,
    std::span<const StringId> symbol, std::span<const std::uint16_t> depth)
{
    std::vector<std::uint32_t> order(symbol.size());
    std::iota(order.begin(), order.end(), 0u);
    // Outer to inner: the highest stackDepth first.
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return depth[a] > depth[b]; });
    for (auto i : order) {
        m_module.push_back(module[i]);
        m_symbol.push_back(symbol[i]);
        m_depth.push_back(depth[i]);
    }
    m_begin.push_back(std::uint32_t(m_symbol.size()));
    m_source.push_back(source);
    const auto chain = std::uint32_t(m_source.size());
    auto &ids = m_ids[std::size_t(source)];
    ids.exportId.push_back(exportId);
    ids.chain.push_back(chain);
    return chain;
}

std::uint32_t Callchains::find(CallchainSource source, std::int64_t exportId) const
{
    const auto &ids = m_ids[std::size_t(source)];
    const auto it = std::lower_bound(ids.exportId.begin(), ids.exportId.end(), exportId);
    return it != ids.exportId.end() && *it == exportId ? ids.chain[std::size_t(it - ids.exportId.begin())] : 0;
}

CallStack Callchains::stackOf(std::uint32_t chain) const
{
    if (chain == 0 || chain > m_source.size())
        return {};
    const std::size_t begin = m_begin[chain - 1], count = m_begin[chain] - begin;
    return { std::span(m_module).subspan(begin, count), std::span(m_symbol).subspan(begin, count),
        std::span(m_depth).subspan(begin, count) };
}

} // namespace gaplens::core
