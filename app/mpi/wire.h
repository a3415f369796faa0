// SPDX-License-Identifier: MIT
#pragma once
// What the processes of gaplens-mpi send each other: JSON values as CBOR bytes
// (nlohmann/json), which keep integers exact and doubles bit for bit.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace gaplens::mpi {

template <class JsonType> std::string pack(const JsonType &value)
{
    const auto bytes = JsonType::to_cbor(value);
    return { bytes.begin(), bytes.end() };
}

template <class JsonType = nlohmann::json> JsonType unpack(const std::string &bytes)
{
    return JsonType::from_cbor(bytes.begin(), bytes.end());
}

// A statistic that may not exist (a median, a rate) as a number or null, and back.
inline nlohmann::json optionalJson(const std::optional<double> &value)
{
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

inline std::optional<double> optionalDouble(const nlohmann::json &value)
{
    return value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
}

} // namespace gaplens::mpi
