// SPDX-License-Identifier: MIT
#pragma once
// splitmix64: a tiny, fast generator that gives the same numbers on every platform, which
// std's distributions do not. The bootstrap's verdicts and the generated captures must not
// change with the standard library.
#include <cstddef>
#include <cstdint>

namespace gaplens::core {

struct SplitMix64
{
    std::uint64_t state = 0;
    std::uint64_t next()
    {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, n); the modulo bias (about n / 2^64) is far below anything a few
    // thousand draws could show.
    std::size_t below(std::size_t n) { return std::size_t(next() % n); }
    double symmetric() { return double(next() >> 11) * 0x1.0p-52 - 1.0; } // [-1, 1)
};

} // namespace gaplens::core
