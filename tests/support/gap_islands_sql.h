// SPDX-License-Identifier: MIT
#pragma once
// SQL that finds a capture's idle gaps and its copy coverage independently of gaplens, for
// tests that check the reader and blame against it: the WITH clause of a query, followed by
// the test's own SELECT over its tables.
//   kisl (d, isl, s, e): islands of overlapping kernels per device (busy intervals);
//   gaps (d, gs, ge): holes of at least 100 us between consecutive islands;
//   cisl (d, s, e): islands of overlapping copies and memsets per device.

namespace gaplens::test {

inline constexpr const char *kGapAndCopyIslandsSql = R"(
            WITH k AS (SELECT deviceId d, start s, "end" e, MAX("end") OVER (PARTITION BY deviceId
                         ORDER BY start, "end" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) pm
                       FROM CUPTI_ACTIVITY_KIND_KERNEL),
            ki AS (SELECT d, s, e, SUM(CASE WHEN pm IS NULL OR s > pm THEN 1 ELSE 0 END)
                     OVER (PARTITION BY d ORDER BY s, e ROWS UNBOUNDED PRECEDING) isl FROM k),
            kisl AS (SELECT d, isl, MIN(s) s, MAX(e) e FROM ki GROUP BY d, isl),
            gaps AS (SELECT a.d, a.e gs, b.s ge FROM kisl a JOIN kisl b ON a.d = b.d AND b.isl = a.isl + 1
                     WHERE b.s - a.e >= 100000),
            c0 AS (SELECT deviceId d, start s, "end" e FROM CUPTI_ACTIVITY_KIND_MEMCPY
                   UNION ALL SELECT deviceId, start, "end" FROM CUPTI_ACTIVITY_KIND_MEMSET),
            c1 AS (SELECT d, s, e, MAX(e) OVER (PARTITION BY d ORDER BY s, e
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) pm FROM c0),
            c2 AS (SELECT d, s, e, SUM(CASE WHEN pm IS NULL OR s > pm THEN 1 ELSE 0 END)
                     OVER (PARTITION BY d ORDER BY s, e ROWS UNBOUNDED PRECEDING) isl FROM c1),
            cisl AS (SELECT d, MIN(s) s, MAX(e) e FROM c2 GROUP BY d, isl)
)";

} // namespace gaplens::test
