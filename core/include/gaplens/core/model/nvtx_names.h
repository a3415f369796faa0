// SPDX-License-Identifier: MIT
#pragma once
#include <string_view>

namespace gaplens::core {

// The name NVTX ranges are grouped under in summaries and blame totals. PyTorch's
// emit_nvtx makes every range unique ("aten::mm, seq = 12, op_id = 345", with
// ", sizes = [...]" when shapes are recorded); grouping on the exact text would give one
// row per call. Everything from the first ", seq = ", ", op_id = " or ", sizes = " is
// dropped; other names are returned unchanged. Ranges keep their exact names.
std::string_view nvtxGroupName(std::string_view name);

} // namespace gaplens::core
