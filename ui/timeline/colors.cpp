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

// Hue families. Gap causes own the warm hues (reds, oranges, golds: 0-60 and 330-360), so
// nothing else the timeline draws can be mistaken for a cause: kernels are greens to blues,
// NCCL kernels violets, NVTX ranges pastels of the same cool range.
constexpr int kCoolHueFirst = 90;
constexpr int kCoolHueCount = 165; // 90..254
constexpr int kNcclHueFirst = 262;
constexpr int kNcclHueCount = 40; // 262..301

QColor kernelColor(std::string_view name)
{
    const std::uint32_t h = fnv1a(name);
    if (isNcclName(name))
        return QColor::fromHsv(kNcclHueFirst + int(h % kNcclHueCount), 150 + int((h >> 8) % 60),
            150 + int((h >> 16) % 50)); // violets
    const int hue = kCoolHueFirst + int(h % kCoolHueCount);
    const int sat = 110 + int((h >> 10) % 90);
    const int val = 150 + int((h >> 18) % 70);
    return QColor::fromHsv(hue, sat, val);
}

QColor nvtxColor(std::string_view name)
{
    const std::uint32_t h = fnv1a(name);
    return QColor::fromHsv(kCoolHueFirst + int(h % (kCoolHueCount + kNcclHueCount + 7)), 50 + int((h >> 9) % 50),
        215 + int((h >> 17) % 35));
}

QColor apiColor(std::string_view name)
{
    if (containsNoCase(name, "synchronize") || containsNoCase(name, "EventQuery") || containsNoCase(name, "StreamWait"))
        return QColor(95, 80, 150); // dark violet: stands out, and is no cause colour
    if (containsNoCase(name, "launch"))
        return QColor(110, 170, 110);
    if (containsNoCase(name, "memcpy") || containsNoCase(name, "memset"))
        return QColor(150, 140, 205);
    return QColor(160, 170, 185);
}

QColor copyColor(core::CopyKind kind)
{
    switch (kind) {
    case core::CopyKind::HostToDevice: return QColor(120, 90, 200);
    case core::CopyKind::DeviceToHost: return QColor(50, 150, 150);
    case core::CopyKind::DeviceToDevice: return QColor(80, 120, 200);
    case core::CopyKind::PeerToPeer: return QColor(40, 165, 215);
    // Unified-memory migrations: their direction's hue, paler (the driver moved pages, not the
    // program's memcpy).
    case core::CopyKind::UnifiedHostToDevice: return QColor(170, 150, 230);
    case core::CopyKind::UnifiedDeviceToHost: return QColor(120, 200, 200);
    case core::CopyKind::UnifiedDeviceToDevice: return QColor(140, 170, 230);
    case core::CopyKind::Memset: return QColor(150, 150, 150);
    default: return QColor(120, 130, 140);
    }
}

QColor osCategoryColor(core::OsCategory category)
{
    switch (category) {
    case core::OsCategory::Wait: return QColor(95, 110, 160); // slate blue: blocked on another thread
    case core::OsCategory::Io: return QColor(60, 150, 140); // teal: files and sockets
    case core::OsCategory::Poll: return QColor(120, 160, 200); // steel blue: waiting for events
    case core::OsCategory::Sleep: return QColor(175, 180, 190); // pale grey: asleep
    case core::OsCategory::Other:
    case core::OsCategory::None: break;
    }
    return QColor(130, 135, 145); // grey
}

QColor runStateColor(core::RunState state)
{
    switch (state) {
    case core::RunState::Active: return QColor(70, 165, 95); // green: the steps run
    case core::RunState::Checkpoint: return QColor(155, 70, 190); // violet
    case core::RunState::Validation: return QColor(45, 110, 200); // blue
    case core::RunState::DataWait: return QColor(30, 170, 180); // cyan
    case core::RunState::Barrier: return QColor(105, 100, 150); // slate
    case core::RunState::Unexplained: break;
    }
    return QColor(185, 185, 190); // light grey: nothing known
}

QColor memoryCounterColor()
{
    return QColor(40, 140, 170);
}

QColor gapCauseColor(core::GapCause cause)
{
    // Opaque: the bands set their own alpha (Theme::gapAlpha); charts and legends draw solid.
    switch (cause) {
    case core::GapCause::QueuedDependencyWait: return QColor(214, 170, 0); // gold
    case core::GapCause::ApiCall: return QColor(215, 38, 45); // red
    case core::GapCause::NoCudaCall:
        return QColor(245, 125, 20); // orange
    // Brown: warm like the other causes, darker than all of them, so "moving data" reads apart
    // from the idle causes and from the copy rows' blues and violets.
    case core::GapCause::Copy: return QColor(120, 75, 30);
    }
    return QColor(128, 128, 128);
}

QColor gapCauseShade(core::GapCause cause, int shade)
{
    const QColor base = gapCauseColor(cause);
    if (shade <= 0)
        return base;
    const int step = 100 + 22 * ((shade + 1) / 2);
    return shade % 2 ? base.darker(step) : base.lighter(step);
}

bool isCauseHue(const QColor &color)
{
    const int hue = color.hsvHue();
    return hue >= 0 && (hue <= 60 || hue >= 330) && color.hsvSaturation() >= 60;
}

QString gapCauseShortLabel(core::GapCause cause)
{
    switch (cause) {
    case core::GapCause::QueuedDependencyWait: return QStringLiteral("queued");
    case core::GapCause::ApiCall: return QStringLiteral("API call");
    case core::GapCause::NoCudaCall: return QStringLiteral("host busy");
    case core::GapCause::Copy: return QStringLiteral("copy");
    }
    return QStringLiteral("?");
}

QColor textColorOn(const QColor &background)
{
    const int luma = (background.red() * 299 + background.green() * 587 + background.blue() * 114) / 1000;
    return luma > 140 ? QColor(Qt::black) : QColor(Qt::white);
}

} // namespace gaplens::ui
