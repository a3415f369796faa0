// SPDX-License-Identifier: MIT
#pragma once
// Private part of DerivedCapture: the step tables asked for so far, shared by every
// DerivedCapture of one trace. Each name's table is computed once, by the first thread that
// asks for it; others asking for the same name wait for it, other names do not.
#include "gaplens/core/analysis/derived_capture.h"

#include <memory>
#include <mutex>
#include <unordered_map>

namespace gaplens::core {

struct DerivedCapture::StepMemo
{
    struct Entry
    {
        std::once_flag once;
        std::shared_ptr<const StepTable> table;
    };

    std::mutex mutex; // guards byName only; tables are computed outside it
    std::unordered_map<StringId, std::shared_ptr<Entry>> byName;
    Entry unknownName; // a name the capture never interned: no occurrences anywhere
};

} // namespace gaplens::core
