// SPDX-License-Identifier: MIT
#pragma once
#include <QString>
#include <QStringList>

namespace gaplens::ui {

// Chart labels of at most `max` characters for `names` that keep what tells a name apart from
// its neighbours. Long names sharing their first word (a family, such as cuBLAS's
// "sm80_xmma_gemm_…" kernels) drop the words every family member has, keeping the first word:
// "sm80…tn…tilesize64x256x8…warpsize1x4x1…" and "sm80…tn…tilesize64x256x8…warpsize1x4x1…split_k…".
// Names that fit are kept whole; anything still too long is elided in the middle.
QStringList distinctLabels(const QStringList &names, int max);

} // namespace gaplens::ui
