// SPDX-License-Identifier: MIT
#pragma once
// Comparing blamed gaps field by field, for the tests that check one blame against another.
#include "gaplens/core/analysis/gap_blame.h"

#include <QTest>

#include <string>
#include <vector>

namespace gaplens::test {

// Every field, so a difference names the field that differs.
inline void compareGaps(const core::GapBlame &actual, const core::GapBlame &expected)
{
    QCOMPARE(actual.gpu, expected.gpu);
    QCOMPARE(actual.rank, expected.rank);
    QCOMPARE(actual.gap, expected.gap);
    QCOMPARE(actual.midpoint, expected.midpoint);
    QCOMPARE(actual.endKind, expected.endKind);
    QCOMPARE(actual.endStream, expected.endStream);
    QCOMPARE(actual.endEvent, expected.endEvent);
    QCOMPARE(actual.endPid, expected.endPid);
    QCOMPARE(actual.endCorrelationId, expected.endCorrelationId);
    QCOMPARE(actual.launchThread, expected.launchThread);
    QCOMPARE(actual.launchCall, expected.launchCall);
    QCOMPARE(actual.launchTid, expected.launchTid);
    QCOMPARE(actual.copyNs, expected.copyNs);
    QCOMPARE(actual.cause, expected.cause);
    QCOMPARE(actual.apiThread, expected.apiThread);
    QCOMPARE(actual.apiCall, expected.apiCall);
    QCOMPARE(actual.apiName, expected.apiName);
    QCOMPARE(actual.apiKind, expected.apiKind);
    QCOMPARE(actual.phaseThread, expected.phaseThread);
    QCOMPARE(actual.phaseRanges, expected.phaseRanges);
    QCOMPARE(actual.phaseStack, expected.phaseStack);
    QCOMPARE(actual.osCall, expected.osCall);
    QCOMPARE(actual.osCategory, expected.osCategory);
}

// A blame table's row keys and totals, in row order, to QCOMPARE with the expected lists.
inline std::vector<std::string> bucketKeys(const std::vector<core::BlameBucket> &buckets)
{
    std::vector<std::string> keys;
    for (const auto &bucket : buckets)
        keys.push_back(bucket.key);
    return keys;
}

inline std::vector<core::TimeNs> bucketTotals(const std::vector<core::BlameBucket> &buckets)
{
    std::vector<core::TimeNs> totals;
    for (const auto &bucket : buckets)
        totals.push_back(bucket.totalNs);
    return totals;
}

} // namespace gaplens::test
