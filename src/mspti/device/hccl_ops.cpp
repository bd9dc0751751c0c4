#include "device/hccl_ops.h"

#include <atomic>

#include "common/slot_table.h"
#include "core/activity_engine.h"
#include "device/hccl_bandwidth.h"
#include "device/cann_collector.h"
#include "mstx/marker_recorder.h"

namespace mspti::device {
namespace {

constexpr uint64_t kProbes = 64;

struct Op {
    const char *name = nullptr;
    const char *commName = nullptr;
    uint64_t bytes = 0;
    std::atomic<bool> failed{false};
    // Written by the stream worker at the start trace, read at the end trace.
    std::atomic<uint64_t> start{0};
    std::atomic<uint32_t> deviceId{0};
    std::atomic<uint32_t> streamId{0};
};

// Ops in flight, keyed by the marker id of their start.
using Table = SlotTable<Op, 1u << 12>;
Table g_ops;

uint64_t home(uint64_t id) { return (id * 0x9E3779B97F4A7C15ull) >> 52; }

uint64_t find(uint64_t markId) { return g_ops.find(markId, home(markId), kProbes); }

}  // namespace

uint64_t hccl_op_begin(const char *name, const char *commName, uint64_t bytes, void *stream) {
    uint64_t markId = mstx::next_marker_id();
    uint64_t at = g_ops.claim(home(markId), kProbes);
    if (at == Table::kNone) {
        ActivityEngine::instance().count_unstaged_drop(MSPTI_ACTIVITY_KIND_HCCL);
        return 0;
    }
    Op &op = g_ops.value(at);
    op.name = name;
    op.commName = commName;
    op.bytes = bytes;
    op.failed.store(false, std::memory_order_relaxed);
    op.start.store(0, std::memory_order_relaxed);
    g_ops.publish(at, markId);  // before the trace is enqueued
    if (stream_trace(stream, markId, MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE) != 0) {
        g_ops.release(at);
        return 0;
    }
    return markId;
}

void hccl_op_end(uint64_t markId, void *stream, bool failed) {
    if (failed) {
        uint64_t at = find(markId);
        if (at != Table::kNone) g_ops.value(at).failed.store(true, std::memory_order_relaxed);
    }
    // Enqueued even for a failed op: the start trace is already queued and must find its end.
    if (stream_trace(stream, markId, MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE) == 0) return;
    uint64_t at = find(markId);
    if (at != Table::kNone) g_ops.release(at);  // the end will never come
}

bool hccl_on_trace(uint64_t markId, uint32_t flag, uint32_t deviceId, uint32_t streamId, uint64_t epochNs,
                   msptiActivityHccl &out, bool &ready) {
    ready = false;
    uint64_t at = find(markId);
    if (at == Table::kNone) return false;
    Op *op = &g_ops.value(at);
    if (flag == MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE) {
        op->deviceId.store(deviceId, std::memory_order_relaxed);
        op->streamId.store(streamId, std::memory_order_relaxed);
        op->start.store(epochNs, std::memory_order_release);
        return true;
    }
    if (op->failed.load(std::memory_order_relaxed)) {
        g_ops.release(at);
        return true;
    }
    msptiActivityHccl &r = out;
    r = msptiActivityHccl{};
    r.kind = MSPTI_ACTIVITY_KIND_HCCL;
    r.start = op->start.load(std::memory_order_acquire);
    r.end = epochNs;
    r.ds.deviceId = op->deviceId.load(std::memory_order_relaxed);
    r.ds.streamId = op->streamId.load(std::memory_order_relaxed);
    r.bandWidth = hccl_bandwidth(op->bytes, r.start, r.end);
    r.name = op->name;
    r.commName = op->commName;
    g_ops.release(at);
    ready = r.start != 0;
    return true;
}

}  // namespace mspti::device
