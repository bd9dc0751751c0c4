#include "core/correlation.h"

#include <atomic>
#include <vector>

#include "core/activity_engine.h"

namespace mspti::correlation {
namespace {

std::atomic<uint64_t> g_next_id{1};
thread_local uint64_t t_latest = 0;
thread_local std::vector<uint64_t> t_stacks[MSPTI_EXTERNAL_CORRELATION_KIND_SIZE];
thread_local int t_pushed = 0;  // total depth of this thread's stacks: skips the loop when 0

}  // namespace

uint64_t generate() {
    uint64_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
    t_latest = id;
    if (t_pushed > 0) {
        ActivityEngine &engine = ActivityEngine::instance();
        if (engine.enabled(MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) {
            for (int k = MSPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN; k < MSPTI_EXTERNAL_CORRELATION_KIND_SIZE; ++k) {
                if (t_stacks[k].empty()) continue;
                msptiActivityExternalCorrelation rec{};
                rec.kind = MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
                rec.externalKind = static_cast<msptiExternalCorrelationKind>(k);
                rec.externalId = t_stacks[k].back();
                rec.correlationId = id;
                engine.record(&rec);
            }
        }
    }
    return id;
}

uint64_t latest() { return t_latest; }

void push(msptiExternalCorrelationKind kind, uint64_t id) {
    t_stacks[kind].push_back(id);
    ++t_pushed;
}

bool pop(msptiExternalCorrelationKind kind, uint64_t *id) {
    std::vector<uint64_t> &stack = t_stacks[kind];
    if (stack.empty()) return false;
    if (id != nullptr) *id = stack.back();
    stack.pop_back();
    --t_pushed;
    return true;
}

}  // namespace mspti::correlation
