// SPDX-License-Identifier: MIT
#include "ui/timeline/colors.h"

#include <QString>

#include <algorithm>
#include <cctype>

namespace gaplens::ui {
namespace {

std::uint32_t fnv1a(std::string_view s)
{
    std::uint32_t h = 2166136261u;
    for (unsigned char c : s) {
        h ^= c;
        h *= 16777619u;
    }
    return h;
}

bool containsNoCase(std::string_view text, std::string_view needle)
{
    auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(),
        [](char a, char b) { return std::tolower((unsigned char)a) == std::tolower((unsigned char)b); });
    return it != text.end();
}

} // namespace

bool isNcclName(std::string_view name)
{
    return containsNoCase(name, "nccl");
}

QColor kernelColor(std::string_view name)
{
    const std::uint32_t h = fnv1a(name);
    if (isNcclName(name))
        return QColor::fromHsv(int(h % 28), 230, 200 + int((h >> 8) % 40)); // reds / oranges
    // Hues 45..330: yellow, greens, blues, purples; never NCCL's reds.
    const int hue = 45 + int(h % 285);
    const int sat = 120 + int((h >> 10) % 80);
    const int val = 170 + int((h >> 18) % 60);
    return QColor::fromHsv(hue, sat, val);
}

QColor nvtxColor(std::string_view name)
{
    const std::uint32_t h = fnv1a(name);
    return QColor::fromHsv(int(h % 360), 60 + int((h >> 9) % 50), 215 + int((h >> 17) % 35));
}

QColor apiColor(std::string_view name)
{
    if (containsNoCase(name, "synchronize") || containsNoCase(name, "EventQuery") || containsNoCase(name, "StreamWait"))
        return QColor(220, 90, 90);
    if (containsNoCase(name, "launch"))
        return QColor(110, 170, 110);
    if (containsNoCase(name, "memcpy") || containsNoCase(name, "memset"))
        return QColor(150, 130, 200);
    return QColor(160, 170, 185);
}

QColor copyColor(core::CopyKind kind)
{
    switch (kind) {
    case core::CopyKind::HostToDevice: return QColor(140, 90, 200);
    case core::CopyKind::DeviceToHost: return QColor(200, 90, 160);
    case core::CopyKind::DeviceToDevice: return QColor(90, 120, 200);
    case core::CopyKind::PeerToPeer: return QColor(60, 160, 200);
    case core::CopyKind::Memset: return QColor(150, 150, 150);
    default: return QColor(120, 120, 120);
    }
}

QColor gapCauseColor(core::GapCause cause)
{
    switch (cause) {
    case core::GapCause::QueuedDependencyWait: return QColor(90, 140, 235, 150);
    case core::GapCause::ApiCall: return QColor(235, 60, 60, 150);
    case core::GapCause::NoCudaCall: return QColor(245, 170, 30, 150);
    }
    return QColor(128, 128, 128, 150);
}

QString gapCauseShortLabel(core::GapCause cause)
{
    switch (cause) {
    case core::GapCause::QueuedDependencyWait: return QStringLiteral("queued");
    case core::GapCause::ApiCall: return QStringLiteral("API call");
    case core::GapCause::NoCudaCall: return QStringLiteral("host busy");
    }
    return QStringLiteral("?");
}

QColor textColorOn(const QColor &background)
{
    const int luma = (background.red() * 299 + background.green() * 587 + background.blue() * 114) / 1000;
    return luma > 140 ? QColor(Qt::black) : QColor(Qt::white);
}

} // namespace gaplens::ui
