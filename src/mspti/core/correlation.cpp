#include "core/correlation.h"

#include <atomic>
#include <vector>

#include "core/activity_engine.h"

namespace mspti::correlation {
namespace {

std::atomic<uint64_t> g_next_id{1};
// What every generate() reads and writes, in one thread-local: one TLS lookup, not two.
struct ThreadIds {
    uint64_t latest = 0;
    int pushed = 0;  // total depth of this thread's stacks: skips the loop when 0
};
constinit thread_local ThreadIds t_ids;
thread_local std::vector<uint64_t> t_stacks[MSPTI_EXTERNAL_CORRELATION_KIND_SIZE];

// One EXTERNAL_CORRELATION record per non-empty stack, tying `id` to its top. Out of line: the
// common generate() has no pushed ids and should not pay this loop's register saves.
__attribute__((noinline)) void record_external_ids(uint64_t id) {
    if (!ActivityEngine::enabled(MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) return;
    for (int k = MSPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN; k < MSPTI_EXTERNAL_CORRELATION_KIND_SIZE; ++k) {
        if (t_stacks[k].empty()) continue;
        msptiActivityExternalCorrelation rec{};
        rec.kind = MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
        rec.externalKind = static_cast<msptiExternalCorrelationKind>(k);
        rec.externalId = t_stacks[k].back();
        rec.correlationId = id;
        ActivityEngine::record(rec);
    }
}

}  // namespace

uint64_t generate() {
    uint64_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
    ThreadIds &ids = t_ids;
    ids.latest = id;
    if (__builtin_expect(ids.pushed > 0, 0)) record_external_ids(id);
    return id;
}

uint64_t latest() { return t_ids.latest; }

void push(msptiExternalCorrelationKind kind, uint64_t id) {
    t_stacks[kind].push_back(id);
    ++t_ids.pushed;
}

bool pop(msptiExternalCorrelationKind kind, uint64_t *id) {
    std::vector<uint64_t> &stack = t_stacks[kind];
    if (stack.empty()) return false;
    if (id != nullptr) *id = stack.back();
    stack.pop_back();
    --t_ids.pushed;
    return true;
}

}  // namespace mspti::correlation
