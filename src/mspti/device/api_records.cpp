// API-family records from the runtime's host spans (docs/compatibility.md, "API, kernel and communication records"): ACL level -> ACL_API, node
// level -> NODE_API and API, runtime level -> RUNTIME_API; the HCCL level has no record of its
// own. correlationId = the thread's latest id, so a node span joins the kernel it launched.
#include <cstring>

#include "core/activity_engine.h"
#include "core/clock.h"
#include "core/correlation.h"
#include "core/string_table.h"
#include "device/callbacks.h"

namespace mspti::device {
namespace {

// Per-thread pointer -> interned-name cache: names may be built at run time by the runtime,
// and records need them for the process lifetime. Hits cost a strcmp, misses one intern().
const char *interned_name(const char *name) {
    struct Entry {
        const char *key;
        const char *interned;
    };
    static thread_local Entry cache[32] = {};
    auto v = reinterpret_cast<uintptr_t>(name);
    Entry &e = cache[((v >> 3) ^ (v >> 9)) & 31];
    if (e.key == name && std::strcmp(name, e.interned) == 0) return e.interned;
    e.key = name;
    e.interned = intern(name);
    return e.interned;
}

void write(ActivityEngine &engine, msptiActivityKind kind, const char *name, uint64_t begin, uint64_t end,
           uint64_t correlationId) {
    if (!engine.enabled(kind)) return;
    ThreadStaging *s = engine.staging();
    if (s == nullptr) {
        engine.count_unstaged_drop(kind);
        return;
    }
    msptiActivityApi r{};
    r.kind = kind;
    r.start = begin;
    r.end = end;
    r.pt.processId = static_cast<uint32_t>(s->pid);
    r.pt.threadId = static_cast<uint32_t>(s->tid);
    r.correlationId = correlationId;
    r.name = name;
    engine.record(r);
}

}  // namespace

void record_api(msptiActivityKind kind, const char *name, uint64_t beginEpoch, uint64_t endEpoch,
                uint64_t correlationId) {
    if (name == nullptr || name[0] == '\0') return;
    ActivityEngine &engine = ActivityEngine::instance();
    if (!engine.enabled(kind)) return;
    write(engine, kind, interned_name(name), beginEpoch, endEpoch, correlationId);
}

void on_api(void *, vnpuApiLevel level, const char *name, uint64_t beginNs, uint64_t endNs) {
    if (name == nullptr || name[0] == '\0') return;  // msPTI skips unnamed reports
    ActivityEngine &engine = ActivityEngine::instance();
    uint64_t begin = clock::monotonic_to_epoch(beginNs);
    uint64_t end = clock::monotonic_to_epoch(endNs);
    uint64_t id = correlation::latest();
    switch (level) {
    case VNPU_API_LEVEL_ACL:
        if (engine.enabled(MSPTI_ACTIVITY_KIND_ACL_API))
            write(engine, MSPTI_ACTIVITY_KIND_ACL_API, interned_name(name), begin, end, id);
        break;
    case VNPU_API_LEVEL_NODE:
        if (engine.enabled(MSPTI_ACTIVITY_KIND_NODE_API) || engine.enabled(MSPTI_ACTIVITY_KIND_API)) {
            const char *stored = interned_name(name);
            write(engine, MSPTI_ACTIVITY_KIND_NODE_API, stored, begin, end, id);
            write(engine, MSPTI_ACTIVITY_KIND_API, stored, begin, end, id);
        }
        break;
    case VNPU_API_LEVEL_RUNTIME:
        if (engine.enabled(MSPTI_ACTIVITY_KIND_RUNTIME_API))
            write(engine, MSPTI_ACTIVITY_KIND_RUNTIME_API, interned_name(name), begin, end, id);
        break;
    default: break;
    }
}

}  // namespace mspti::device
