#include "device/api_records.h"

#include "core/activity_engine.h"

namespace mspti::device {

void write_api(msptiActivityKind kind, const char *name, uint64_t beginEpoch, uint64_t endEpoch,
               uint64_t correlationId) {
    if (name == nullptr || name[0] == '\0') return;
    ActivityEngine &engine = ActivityEngine::instance();
    if (!engine.enabled(kind)) return;
    ThreadStaging *s = engine.staging();
    if (s == nullptr) {
        engine.count_unstaged_drop(kind);
        return;
    }
    msptiActivityApi r{};
    r.kind = kind;
    r.start = beginEpoch;
    r.end = endEpoch;
    r.pt.processId = static_cast<uint32_t>(s->pid);
    r.pt.threadId = static_cast<uint32_t>(s->tid);
    r.correlationId = correlationId;
    r.name = name;
    engine.record(r);
}

}  // namespace mspti::device
