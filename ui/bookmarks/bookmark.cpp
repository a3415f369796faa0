// SPDX-License-Identifier: MIT
#include "ui/bookmarks/bookmark.h"

namespace gaplens::ui {

QJsonObject Bookmark::toJson(core::TimeNs origin) const
{
    // ns as strings: JSON numbers are doubles and lose ns above 2^53 (absolute epochs).
    return QJsonObject { { QStringLiteral("name"), name }, { QStringLiteral("note"), note },
        { QStringLiteral("start_ns"), QString::number(range.start - origin) },
        { QStringLiteral("end_ns"), QString::number(range.end - origin) },
        { QStringLiteral("rank"), qint64(rank.value()) }, { QStringLiteral("capture"), capture },
        { QStringLiteral("event"), event } };
}

Bookmark Bookmark::fromJson(const QJsonObject &o, core::TimeNs origin)
{
    Bookmark b;
    b.name = o.value(QStringLiteral("name")).toString();
    b.note = o.value(QStringLiteral("note")).toString();
    b.range.start = origin + o.value(QStringLiteral("start_ns")).toString().toLongLong();
    b.range.end = origin + o.value(QStringLiteral("end_ns")).toString().toLongLong();
    b.rank = core::RankIndex(std::uint32_t(o.value(QStringLiteral("rank")).toInteger()));
    b.capture = o.value(QStringLiteral("capture")).toInt();
    b.event = o.value(QStringLiteral("event")).toString();
    return b;
}

} // namespace gaplens::ui
