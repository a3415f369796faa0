// SPDX-License-Identifier: MIT
#include "gaplens/core/model/trace.h"

namespace gaplens::core {

std::string_view copyKindName(CopyKind kind)
{
    switch (kind) {
    case CopyKind::HostToDevice: return "HtoD";
    case CopyKind::DeviceToHost: return "DtoH";
    case CopyKind::HostToHost: return "HtoH";
    case CopyKind::DeviceToDevice: return "DtoD";
    case CopyKind::PeerToPeer: return "PtoP";
    case CopyKind::Memset: return "memset";
    case CopyKind::Unknown: break;
    }
    return "other";
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
