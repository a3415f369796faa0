// SPDX-License-Identifier: MIT
#include "read_only_vfs.h"

#include "sqlite_db.h"

#include <fmt/format.h>

#include <cstddef>

namespace gaplens::core::detail {
namespace {

// The VFS every report is opened through: the default VFS with named files (the database, its
// journal and WAL) opened read-only and never created, nothing deleted, and locks that are
// no-ops. SQLite's temporary files (opened without a name, in the temporary folder) pass
// through. Immutable connections take no locks anyway; the WAL connection (exclusive locking
// mode, so SQLite keeps the WAL index in heap memory, not in a -shm) would otherwise ask for a
// write lock, which a read-only descriptor cannot take. io methods of version 1: no -shm, no
// memory mapping.
struct ReadOnlyFile
{
    sqlite3_file base; // what SQLite sees; the default VFS's file object follows
    bool named; // a file of the database: opened read-only, its writes refused
};

constexpr std::size_t kInnerFileOffset
    = (sizeof(ReadOnlyFile) + alignof(std::max_align_t) - 1) / alignof(std::max_align_t) * alignof(std::max_align_t);

sqlite3_file *innerFile(sqlite3_file *file)
{
    return reinterpret_cast<sqlite3_file *>(reinterpret_cast<char *>(file) + kInnerFileOffset);
}
bool isNamed(sqlite3_file *file)
{
    return reinterpret_cast<ReadOnlyFile *>(file)->named;
}
sqlite3_vfs *defaultVfs(sqlite3_vfs *vfs)
{
    return static_cast<sqlite3_vfs *>(vfs->pAppData);
}

// Calls the default VFS's method on the file object it opened.
template <auto Method, typename... Args> int forward(sqlite3_file *file, Args... args)
{
    auto *inner = innerFile(file);
    return (inner->pMethods->*Method)(inner, args...);
}
// The same for a temporary file; a file of the database gets `namedAnswer` instead.
template <auto Method, typename... Args> int forwardUnlessNamed(sqlite3_file *file, int namedAnswer, Args... args)
{
    return isNamed(file) ? namedAnswer : forward<Method>(file, args...);
}

int fileClose(sqlite3_file *file)
{
    return forward<&sqlite3_io_methods::xClose>(file);
}
int fileRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset)
{
    return forward<&sqlite3_io_methods::xRead>(file, buffer, amount, offset);
}
int fileWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset)
{
    return forwardUnlessNamed<&sqlite3_io_methods::xWrite>(file, SQLITE_READONLY, buffer, amount, offset);
}
int fileTruncate(sqlite3_file *file, sqlite3_int64 size)
{
    return forwardUnlessNamed<&sqlite3_io_methods::xTruncate>(file, SQLITE_READONLY, size);
}
int fileSync(sqlite3_file *file, int flags)
{
    return forwardUnlessNamed<&sqlite3_io_methods::xSync>(file, SQLITE_OK, flags);
}
int fileSize(sqlite3_file *file, sqlite3_int64 *size)
{
    return forward<&sqlite3_io_methods::xFileSize>(file, size);
}
int fileLock(sqlite3_file *file, int level)
{
    return forwardUnlessNamed<&sqlite3_io_methods::xLock>(file, SQLITE_OK, level);
}
int fileUnlock(sqlite3_file *file, int level)
{
    return forwardUnlessNamed<&sqlite3_io_methods::xUnlock>(file, SQLITE_OK, level);
}
int fileCheckReservedLock(sqlite3_file *file, int *reserved)
{
    if (!isNamed(file))
        return forward<&sqlite3_io_methods::xCheckReservedLock>(file, reserved);
    *reserved = 0;
    return SQLITE_OK;
}
int fileControl(sqlite3_file *file, int op, void *arg)
{
    // A size hint makes the default VFS grow the file.
    if (isNamed(file) && op == SQLITE_FCNTL_SIZE_HINT)
        return SQLITE_OK;
    return forward<&sqlite3_io_methods::xFileControl>(file, op, arg);
}
int fileSectorSize(sqlite3_file *file)
{
    return forward<&sqlite3_io_methods::xSectorSize>(file);
}
int fileDeviceCharacteristics(sqlite3_file *file)
{
    return forward<&sqlite3_io_methods::xDeviceCharacteristics>(file);
}

const sqlite3_io_methods kReadOnlyFileMethods = {
    1,
    fileClose,
    fileRead,
    fileWrite,
    fileTruncate,
    fileSync,
    fileSize,
    fileLock,
    fileUnlock,
    fileCheckReservedLock,
    fileControl,
    fileSectorSize,
    fileDeviceCharacteristics,
};

int vfsOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags)
{
    auto *self = reinterpret_cast<ReadOnlyFile *>(file);
    self->named = name != nullptr;
    if (self->named)
        flags = (flags
                    & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE | SQLITE_OPEN_DELETEONCLOSE))
            | SQLITE_OPEN_READONLY;
    auto *inner = innerFile(file);
    inner->pMethods = nullptr;
    const int rc = defaultVfs(vfs)->xOpen(defaultVfs(vfs), name, inner, flags, outFlags);
    // SQLite calls xClose whenever pMethods is set, even after a failed open.
    self->base.pMethods = inner->pMethods ? &kReadOnlyFileMethods : nullptr;
    return rc;
}
int vfsDelete(sqlite3_vfs *, const char *, int)
{
    return SQLITE_IOERR_DELETE;
}
int vfsAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result)
{
    return defaultVfs(vfs)->xAccess(defaultVfs(vfs), name, flags, result);
}
int vfsFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out)
{
    return defaultVfs(vfs)->xFullPathname(defaultVfs(vfs), name, size, out);
}
void *vfsDlOpen(sqlite3_vfs *vfs, const char *name)
{
    return defaultVfs(vfs)->xDlOpen(defaultVfs(vfs), name);
}
void vfsDlError(sqlite3_vfs *vfs, int size, char *out)
{
    defaultVfs(vfs)->xDlError(defaultVfs(vfs), size, out);
}
void (*vfsDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void)
{
    return defaultVfs(vfs)->xDlSym(defaultVfs(vfs), handle, symbol);
}
void vfsDlClose(sqlite3_vfs *vfs, void *handle)
{
    defaultVfs(vfs)->xDlClose(defaultVfs(vfs), handle);
}
int vfsRandomness(sqlite3_vfs *vfs, int size, char *out)
{
    return defaultVfs(vfs)->xRandomness(defaultVfs(vfs), size, out);
}
int vfsSleep(sqlite3_vfs *vfs, int microseconds)
{
    return defaultVfs(vfs)->xSleep(defaultVfs(vfs), microseconds);
}
int vfsCurrentTime(sqlite3_vfs *vfs, double *now)
{
    return defaultVfs(vfs)->xCurrentTime(defaultVfs(vfs), now);
}
int vfsGetLastError(sqlite3_vfs *vfs, int size, char *out)
{
    return defaultVfs(vfs)->xGetLastError(defaultVfs(vfs), size, out);
}
int vfsCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now)
{
    auto *inner = defaultVfs(vfs);
    if (inner->iVersion >= 2 && inner->xCurrentTimeInt64)
        return inner->xCurrentTimeInt64(inner, now);
    double days = 0;
    const int rc = inner->xCurrentTime(inner, &days);
    *now = sqlite3_int64(days * 86400000.0);
    return rc;
}

} // namespace

// Registered once, over the default VFS of the first open.
sqlite3_vfs &readOnlyVfs()
{
    static sqlite3_vfs vfs = [] {
        sqlite3_vfs *inner = sqlite3_vfs_find(nullptr);
        if (!inner)
            throw SqliteError("SQLite has no default VFS", SQLITE_ERROR);
        sqlite3_vfs v {};
        v.iVersion = 2;
        v.szOsFile = int(kInnerFileOffset) + inner->szOsFile;
        v.mxPathname = inner->mxPathname;
        v.zName = "gaplens-read-only";
        v.pAppData = inner;
        v.xOpen = vfsOpen;
        v.xDelete = vfsDelete;
        v.xAccess = vfsAccess;
        v.xFullPathname = vfsFullPathname;
        v.xDlOpen = vfsDlOpen;
        v.xDlError = vfsDlError;
        v.xDlSym = vfsDlSym;
        v.xDlClose = vfsDlClose;
        v.xRandomness = vfsRandomness;
        v.xSleep = vfsSleep;
        v.xCurrentTime = vfsCurrentTime;
        v.xGetLastError = vfsGetLastError;
        v.xCurrentTimeInt64 = vfsCurrentTimeInt64;
        return v;
    }();
    static const int registered = sqlite3_vfs_register(&vfs, 0);
    if (registered != SQLITE_OK)
        throw SqliteError(fmt::format("cannot register the read-only VFS: {}", sqlite3_errstr(registered)), registered);
    return vfs;
}

} // namespace gaplens::core::detail
