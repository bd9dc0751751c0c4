#include "device/hccl_ops.h"

#include <atomic>

#include "core/activity_engine.h"
#include "device/hccl_bandwidth.h"
#include "device/vnpu_attach.h"
#include "mstx/marker_recorder.h"

namespace mspti::device {
namespace {

constexpr uint64_t kSlots = 1u << 12;
constexpr uint64_t kProbes = 64;
constexpr uint64_t kClaimed = ~0ull;

struct Op {
    std::atomic<uint64_t> markId{0};
    const char *name = nullptr;
    const char *commName = nullptr;
    uint64_t bytes = 0;
    std::atomic<bool> failed{false};
    // Written by the stream worker at the start trace, read at the end trace.
    std::atomic<uint64_t> start{0};
    std::atomic<uint32_t> deviceId{0};
    std::atomic<uint32_t> streamId{0};
};

Op g_ops[kSlots];

uint64_t home(uint64_t id) { return (id * 0x9E3779B97F4A7C15ull) >> 52; }

Op *find(uint64_t markId) {
    uint64_t h = home(markId);
    for (uint64_t i = 0; i < kProbes; ++i) {
        Op &op = g_ops[(h + i) & (kSlots - 1)];
        if (op.markId.load(std::memory_order_acquire) == markId) return &op;
    }
    return nullptr;
}

Op *insert(uint64_t markId) {
    uint64_t h = home(markId);
    for (uint64_t i = 0; i < kProbes; ++i) {
        Op &op = g_ops[(h + i) & (kSlots - 1)];
        uint64_t expected = 0;
        if (op.markId.load(std::memory_order_relaxed) == 0 &&
            op.markId.compare_exchange_strong(expected, kClaimed, std::memory_order_acquire))
            return &op;
    }
    return nullptr;
}

void forget(Op *op) { op->markId.store(0, std::memory_order_release); }

}  // namespace

uint64_t hccl_op_begin(const char *name, const char *commName, uint64_t bytes, void *stream) {
    uint64_t markId = mstx::next_marker_id();
    Op *op = insert(markId);
    if (op == nullptr) {
        ActivityEngine::instance().count_unstaged_drop(MSPTI_ACTIVITY_KIND_HCCL);
        return 0;
    }
    op->name = name;
    op->commName = commName;
    op->bytes = bytes;
    op->failed.store(false, std::memory_order_relaxed);
    op->start.store(0, std::memory_order_relaxed);
    op->markId.store(markId, std::memory_order_release);  // published before the trace is enqueued
    if (stream_trace(stream, markId, MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE) != 0) {
        forget(op);
        return 0;
    }
    return markId;
}

void hccl_op_end(uint64_t markId, void *stream, bool failed) {
    if (failed) {
        if (Op *op = find(markId)) op->failed.store(true, std::memory_order_relaxed);
    }
    // Enqueued even for a failed op: the start trace is already queued and must find its end.
    if (stream_trace(stream, markId, MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE) == 0) return;
    if (Op *op = find(markId)) forget(op);  // the end will never come
}

bool hccl_on_trace(uint64_t markId, uint32_t flag, uint32_t deviceId, uint32_t streamId, uint64_t epochNs) {
    Op *op = find(markId);
    if (op == nullptr) return false;
    if (flag == MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE) {
        op->deviceId.store(deviceId, std::memory_order_relaxed);
        op->streamId.store(streamId, std::memory_order_relaxed);
        op->start.store(epochNs, std::memory_order_release);
        return true;
    }
    if (op->failed.load(std::memory_order_relaxed)) {
        forget(op);
        return true;
    }
    msptiActivityHccl r{};
    r.kind = MSPTI_ACTIVITY_KIND_HCCL;
    r.start = op->start.load(std::memory_order_acquire);
    r.end = epochNs;
    r.ds.deviceId = op->deviceId.load(std::memory_order_relaxed);
    r.ds.streamId = op->streamId.load(std::memory_order_relaxed);
    r.bandWidth = hccl_bandwidth(op->bytes, r.start, r.end);
    r.name = op->name;
    r.commName = op->commName;
    forget(op);
    if (r.start != 0) ActivityEngine::instance().record(&r);
    return true;
}

}  // namespace mspti::device
