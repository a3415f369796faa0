// SPDX-License-Identifier: MIT
#include "gaplens/core/model/nvtx_names.h"

#include <algorithm>

namespace gaplens::core {

std::string_view nvtxGroupName(std::string_view name)
{
    static constexpr std::string_view kVolatileFields[] = { ", seq = ", ", op_id = ", ", sizes = " };
    std::size_t cut = name.size();
    for (auto field : kVolatileFields)
        cut = std::min(cut, name.find(field));
    return cut == 0 ? name : name.substr(0, cut);
}

} // namespace gaplens::core
