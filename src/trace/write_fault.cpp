#include "write_fault.h"

#include <sqlite3.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace mspti_trace {

namespace {

struct Fault {
    int err = 0;  // 0: no fault set
    uint64_t from = 0, length = UINT64_MAX;
    std::atomic<uint64_t> position{0};
};

Fault &fault() {
    static Fault f;
    return f;
}

bool parse_u64(const char *s, const char *end, uint64_t &out) {
    if (s == end) return false;
    uint64_t v = 0;
    for (const char *p = s; p != end; ++p) {
        if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + static_cast<uint64_t>(*p - '0');
    }
    out = v;
    return true;
}

// The SQLite shim: the default VFS with xWrite checked first. Its file object holds the real
// file right after its own header.
struct FaultFile {
    sqlite3_file base;
    sqlite3_file *real() { return reinterpret_cast<sqlite3_file *>(this + 1); }
};

sqlite3_file *real_of(sqlite3_file *f) { return reinterpret_cast<FaultFile *>(f)->real(); }

int fault_write(sqlite3_file *f, const void *data, int n, sqlite3_int64 offset) {
    sqlite3_file *r = real_of(f);
    sqlite3_int64 size = 0;
    bool held = r->pMethods->xFileSize(r, &size) == SQLITE_OK && offset + n <= size;  // an overwrite
    int err = write_fault(static_cast<size_t>(n), held);
    if (err != 0) return err == ENOSPC ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    return r->pMethods->xWrite(r, data, n, offset);
}

// Every other method forwards to the real file.
#define FORWARD(name, params, args) \
    int fault_##name params { \
        sqlite3_file *r = real_of(f); \
        return r->pMethods->name args; \
    }
FORWARD(xRead, (sqlite3_file * f, void *d, int n, sqlite3_int64 o), (r, d, n, o))
FORWARD(xTruncate, (sqlite3_file * f, sqlite3_int64 s), (r, s))
FORWARD(xSync, (sqlite3_file * f, int flags), (r, flags))
FORWARD(xFileSize, (sqlite3_file * f, sqlite3_int64 *s), (r, s))
FORWARD(xLock, (sqlite3_file * f, int l), (r, l))
FORWARD(xUnlock, (sqlite3_file * f, int l), (r, l))
FORWARD(xCheckReservedLock, (sqlite3_file * f, int *out), (r, out))
FORWARD(xFileControl, (sqlite3_file * f, int op, void *arg), (r, op, arg))
FORWARD(xSectorSize, (sqlite3_file * f), (r))
FORWARD(xDeviceCharacteristics, (sqlite3_file * f), (r))
FORWARD(xShmMap, (sqlite3_file * f, int i, int size, int extend, void volatile **p), (r, i, size, extend, p))
FORWARD(xShmLock, (sqlite3_file * f, int offset, int n, int flags), (r, offset, n, flags))
FORWARD(xShmUnmap, (sqlite3_file * f, int del), (r, del))
FORWARD(xFetch, (sqlite3_file * f, sqlite3_int64 o, int n, void **p), (r, o, n, p))
FORWARD(xUnfetch, (sqlite3_file * f, sqlite3_int64 o, void *p), (r, o, p))
#undef FORWARD

void fault_xShmBarrier(sqlite3_file *f) {
    sqlite3_file *r = real_of(f);
    r->pMethods->xShmBarrier(r);
}

int fault_xClose(sqlite3_file *f) {
    sqlite3_file *r = real_of(f);
    return r->pMethods != nullptr ? r->pMethods->xClose(r) : SQLITE_OK;
}

const sqlite3_io_methods kFaultMethods = {
    3,
    fault_xClose,
    fault_xRead,
    fault_write,
    fault_xTruncate,
    fault_xSync,
    fault_xFileSize,
    fault_xLock,
    fault_xUnlock,
    fault_xCheckReservedLock,
    fault_xFileControl,
    fault_xSectorSize,
    fault_xDeviceCharacteristics,
    fault_xShmMap,
    fault_xShmLock,
    fault_xShmBarrier,
    fault_xShmUnmap,
    fault_xFetch,
    fault_xUnfetch,
};

sqlite3_vfs *g_inner = nullptr;

int fault_open(sqlite3_vfs *, sqlite3_filename name, sqlite3_file *f, int flags, int *out_flags) {
    FaultFile *ff = reinterpret_cast<FaultFile *>(f);
    ff->base.pMethods = nullptr;
    int rc = g_inner->xOpen(g_inner, name, ff->real(), flags, out_flags);
    // Only an opened file gets methods: SQLite closes through them.
    if (ff->real()->pMethods != nullptr) ff->base.pMethods = &kFaultMethods;
    return rc;
}

}  // namespace

bool load_write_fault(std::string &error) {
    const char *v = std::getenv("MSPTI_TRACE_WRITE_FAULT");
    if (v == nullptr || *v == '\0') return true;
    Fault &f = fault();
    const char *at = std::strchr(v, '@');
    const char *plus = at != nullptr ? std::strchr(at, '+') : nullptr;
    const char *end = v + std::strlen(v);
    std::string kind(v, at != nullptr ? at : end);
    int err = kind == "enospc" ? ENOSPC : kind == "eio" ? EIO : 0;
    uint64_t from = 0, length = UINT64_MAX;
    if (err == 0 || at == nullptr || !parse_u64(at + 1, plus != nullptr ? plus : end, from) ||
        (plus != nullptr && !parse_u64(plus + 1, end, length))) {
        error = std::string("MSPTI_TRACE_WRITE_FAULT=") + v + ": expected enospc|eio@FROM[+LENGTH] (bytes)";
        return false;
    }
    f.err = err;
    f.from = from;
    f.length = length;
    return true;
}

int write_fault(size_t n, bool space_held) {
    Fault &f = fault();
    if (f.err == 0) return 0;
    uint64_t at = f.position.fetch_add(n);
    bool hit = at + n > f.from && (f.length == UINT64_MAX || at < f.from + f.length);
    if (!hit || (f.err == ENOSPC && space_held)) return 0;
    return f.err;
}

const char *sqlite_fault_vfs() {
    if (fault().err == 0) return nullptr;
    static sqlite3_vfs vfs = [] {
        g_inner = sqlite3_vfs_find(nullptr);
        sqlite3_vfs v = *g_inner;
        v.iVersion = g_inner->iVersion;
        v.szOsFile = static_cast<int>(sizeof(FaultFile)) + g_inner->szOsFile;
        v.pNext = nullptr;
        v.zName = "mspti-trace-fault";
        v.xOpen = fault_open;
        return v;
    }();
    static bool registered = [] { return sqlite3_vfs_register(&vfs, 0) == SQLITE_OK; }();
    return registered ? vfs.zName : nullptr;
}

}  // namespace mspti_trace
