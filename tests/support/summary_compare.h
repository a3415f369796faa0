// SPDX-License-Identifier: MIT
#pragma once
// Two summaries (kernels, NVTX, NVTX projection, CUDA API) compared row by row: the same names
// in the same order, every figure bit for bit. For the tests of summaries computed in parts.
#include "capture_parts.h" // sameBits
#include "gaplens/core/analysis/summaries.h"
#include "testsupport.h"

#include <QByteArray>
#include <QTest>

#include <vector>

namespace gaplens::test {

template <typename Row>
void compareRows(const core::StringPool &wholeNames, const std::vector<Row> &whole, const core::StringPool &partNames,
    const std::vector<Row> &part, const QByteArray &where)
{
    QVERIFY2(part.size() == whole.size(), where);
    for (std::size_t r = 0; r < whole.size(); ++r) {
        const auto &a = whole[r].stats, &b = part[r].stats;
        const QByteArray row = where + ", row " + QByteArray::number(qulonglong(r)) + " ("
            + QByteArray::fromStdString(wholeNames.get(whole[r].name)) + ")";
        QVERIFY2(partNames.get(part[r].name) == wholeNames.get(whole[r].name), row);
        QVERIFY2(a.count == b.count && a.totalNs == b.totalNs && a.minNs == b.minNs && a.maxNs == b.maxNs, row);
        QVERIFY2(sameBits(a.avgNs, b.avgNs) && sameBits(a.stddevNs, b.stddevNs), row);
        QVERIFY2(sameBits(a.medianNs, b.medianNs),
            row + ": median " + QByteArray::number(b.medianNs, 'f', 1) + " instead of "
                + QByteArray::number(a.medianNs, 'f', 1));
        QVERIFY2(sameBits(whole[r].percent, part[r].percent), row);
        if constexpr (requires { whole[r].kind; })
            QVERIFY2(whole[r].kind == part[r].kind, row);
        if constexpr (requires { whole[r].rangeInstances; })
            QVERIFY2(whole[r].rangeInstances == part[r].rangeInstances, row);
    }
}

template <typename Summary>
void compareSummaries(const core::StringPool &wholeNames, const Summary &whole, const core::StringPool &partNames,
    const Summary &part, const QByteArray &where)
{
    QVERIFY2(part.totalNs == whole.totalNs, where);
    QVERIFY2(part.instances == whole.instances, where);
    CHECK(compareRows(wholeNames, whole.rows, partNames, part.rows, where));
}

} // namespace gaplens::test
