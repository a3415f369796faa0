// SPDX-License-Identifier: MIT
#include "gaplens/core/model/trace.h"

#include <algorithm>

namespace gaplens::core {

CopyKind copyKindFromExport(std::int64_t value)
{
    const bool defined = value >= 0 && value <= std::int64_t(CopyKind::UnifiedDeviceToDevice);
    return defined ? CopyKind(value) : CopyKind::Unknown;
}

SyncType syncTypeFromExport(std::int64_t value)
{
    const bool defined = value >= 0 && value <= std::int64_t(SyncType::ContextSynchronize);
    return defined ? SyncType(value) : SyncType::Unknown;
}

std::uint32_t ApiColumns::callchainOf(std::uint32_t correlationId) const
{
    const auto it = std::lower_bound(callchains.begin(), callchains.end(), correlationId,
        [](const CallchainRef &ref, std::uint32_t corr) { return ref.correlationId < corr; });
    return it != callchains.end() && it->correlationId == correlationId ? it->chain : 0;
}

std::string_view copyKindName(CopyKind kind)
{
    switch (kind) {
    case CopyKind::HostToDevice: return "HtoD";
    case CopyKind::DeviceToHost: return "DtoH";
    case CopyKind::HostToArray: return "HtoA";
    case CopyKind::ArrayToHost: return "AtoH";
    case CopyKind::ArrayToArray: return "AtoA";
    case CopyKind::ArrayToDevice: return "AtoD";
    case CopyKind::DeviceToArray: return "DtoA";
    case CopyKind::DeviceToDevice: return "DtoD";
    case CopyKind::HostToHost: return "HtoH";
    case CopyKind::PeerToPeer: return "PtoP";
    case CopyKind::UnifiedHostToDevice: return "Unified HtoD";
    case CopyKind::UnifiedDeviceToHost: return "Unified DtoH";
    case CopyKind::UnifiedDeviceToDevice: return "Unified DtoD";
    case CopyKind::Memset: return "memset";
    case CopyKind::Unknown: break;
    }
    return "unknown";
}

std::string_view rankSourceName(RankSource source)
{
    switch (source) {
    case RankSource::Environment: return "environment";
    case RankSource::FileName: return "file-name";
    case RankSource::FileOrder: return "file-order";
    case RankSource::Process: return "process";
    case RankSource::Override: return "override";
    }
    return "unknown";
}

} // namespace gaplens::core
