// SPDX-License-Identifier: MIT
#pragma once
// The SQLite VFS every report is opened through, so that opening a report never creates,
// changes or deletes a file beside it: the default VFS with the database, its journal and its
// WAL opened read-only and never created, deletes refused and locks that do nothing.
#include <sqlite3.h>

namespace gaplens::core::detail {

// Registered with SQLite on first use (not as the default); throws SqliteError if it cannot be.
sqlite3_vfs &readOnlyVfs();

} // namespace gaplens::core::detail
