// Kernel and device-marker records from the virtual NPU through the monitors (libmspti.so
// interposing the runtime, as under LD_PRELOAD).
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include <gtest/gtest.h>

#include "acl/acl.h"
#include "hccl/hccl.h"
#include "mspti/mspti_ext.h"
#include "monitor_test_support.h"
#include "vnpu_add_fixture.h"

using namespace monitor_test;
using mspti::MsptiResult;

namespace {

class VnpuMonitor : public VnpuAddFixture {};

struct KernelCollector : mspti::KernelCallback {
    void on_record(const mspti::KernelData &k) override {
        std::lock_guard<std::mutex> lock(mutex);
        kernels.push_back(k);
    }
    std::mutex mutex;
    std::vector<mspti::KernelData> kernels;
};

struct KernelBatches : mspti::BatchCallback {
    void on_batch(const mspti::RecordBatch &b) override {
        ok = ok && b.kind == mspti::MsptiActivityKind::MSPTI_ACTIVITY_KIND_KERNEL &&
             b.stride == sizeof(msptiActivityKernel);
        for (size_t i = 0; i < b.count; ++i) {
            msptiActivityKernel k;
            std::memcpy(&k, static_cast<const uint8_t *>(b.data) + i * b.stride, sizeof(k));
            correlation_ids.push_back(k.correlationId);
        }
    }
    bool ok = true;
    std::vector<uint64_t> correlation_ids;
};

}  // namespace

TEST_F(VnpuMonitor, KernelRecordsReachEveryKernelMonitorWithTheirFields) {
    KernelCollector a, b;
    KernelBatches batches;
    mspti::KernelMonitor ma, mb, mbatch;
    ASSERT_EQ(ma.start(&a), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(mb.start(&b), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(mbatch.start_batch(&batches), MsptiResult::MSPTI_SUCCESS);
    constexpr int kKernels = 20;
    for (int i = 0; i < kKernels; ++i) Add();
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    ma.stop();
    mb.stop();
    mbatch.stop();
    ASSERT_EQ(a.kernels.size(), static_cast<size_t>(kKernels));
    EXPECT_EQ(a.kernels, b.kernels);
    EXPECT_TRUE(batches.ok);
    ASSERT_EQ(batches.correlation_ids.size(), static_cast<size_t>(kKernels));
    for (int i = 0; i < kKernels; ++i) {
        const mspti::KernelData &k = a.kernels[i];
        EXPECT_EQ(k.kind, mspti::MsptiActivityKind::MSPTI_ACTIVITY_KIND_KERNEL);
        EXPECT_LT(k.start, k.end);
        EXPECT_EQ(k.device_id, 0);
        EXPECT_EQ(k.stream_id, stream_id_);
        EXPECT_EQ(k.type.rfind("KERNEL", 0), 0u) << k.type;
        EXPECT_FALSE(k.name.empty());
        EXPECT_GT(k.correlation_id, 0u);
        EXPECT_EQ(k.correlation_id, batches.correlation_ids[i]);
        if (i > 0) {
            EXPECT_GT(k.correlation_id, a.kernels[i - 1].correlation_id);
        }
    }
}

// device_stats() gives libmspti's device-channel counters through the Monitor API: the same
// figures as the C call, growing by a begin and an end record per kernel.
TEST_F(VnpuMonitor, DeviceStatsCountEachKernelsDeviceRecords) {
    const mspti::DeviceStats before = mspti::device_stats();
    KernelCollector collected;
    mspti::KernelMonitor m;
    ASSERT_EQ(m.start(&collected), MsptiResult::MSPTI_SUCCESS);
    constexpr int kKernels = 12;
    for (int i = 0; i < kKernels; ++i) Add();
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(collected.kernels.size(), static_cast<size_t>(kKernels));

    const mspti::DeviceStats after = mspti::device_stats();
    msptiExtDeviceStats c{};
    ASSERT_EQ(msptiExtDeviceGetStats(&c), MSPTI_SUCCESS);
    EXPECT_TRUE(after.available);
    EXPECT_EQ(after.records - before.records, 2u * kKernels) << "a begin and an end per kernel";
    EXPECT_GT(after.bytes, before.bytes);
    EXPECT_EQ(after.unmatched, before.unmatched);
    EXPECT_EQ(after.malformed, before.malformed);
    // Nothing runs now: the C call read the same figures.
    EXPECT_EQ(after.bytes, c.bytes);
    EXPECT_EQ(after.records, c.records);
    EXPECT_EQ(after.skipped, c.skipped);
    EXPECT_EQ(after.malformed, c.malformed);
    EXPECT_EQ(after.unmatched, c.unmatched);
    EXPECT_EQ(after.read_errors, c.readErrors);
    EXPECT_EQ(after.short_flushes, c.shortFlushes);
}

TEST_F(VnpuMonitor, ApiRecordsCarryTheCallerAndJoinTheKernelsTheyLaunched) {
    std::vector<mspti::ApiData> apis;  // filled on the delivery thread, read after stop()
    std::vector<mspti::KernelData> kernels;
    mspti::ApiMonitor api_monitor;
    mspti::KernelMonitor kernel_monitor;
    ASSERT_EQ(api_monitor.start([&](const mspti::ApiData &a) { apis.push_back(a); }), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(kernel_monitor.start([&](const mspti::KernelData &k) { kernels.push_back(k); }),
              MsptiResult::MSPTI_SUCCESS);
    constexpr int kCalls = 10;
    for (int i = 0; i < kCalls; ++i) Add();
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    api_monitor.stop();
    kernel_monitor.stop();
    ASSERT_EQ(apis.size(), static_cast<size_t>(kCalls));
    ASSERT_EQ(kernels.size(), static_cast<size_t>(kCalls));
    for (int i = 0; i < kCalls; ++i) {
        const mspti::ApiData &a = apis[i];
        EXPECT_EQ(a.kind, mspti::MsptiActivityKind::MSPTI_ACTIVITY_KIND_API);
        EXPECT_EQ(a.name, "aclnnAdd_AddAiCore_Add");  // alpha 1: Add, not Axpy
        EXPECT_LE(a.start, a.end);
        EXPECT_GT(a.start, 0u);
        EXPECT_EQ(a.process_id, static_cast<int64_t>(getpid()));
        EXPECT_EQ(a.thread_id, static_cast<int64_t>(syscall(SYS_gettid)));
        EXPECT_EQ(a.correlation_id, kernels[i].correlation_id);  // the API call launched that kernel
    }
    EXPECT_EQ(api_monitor.stats().delivered, static_cast<uint64_t>(kCalls));
}

// A generated monitor (ApiMonitor: delivered through the schema's per-kind dispatch) counts the
// records a stop() left undelivered, in its stats and in libmspti's dropped count.
TEST_F(VnpuMonitor, ApiRecordsAStopLeftUndeliveredAreCountedAsDropped) {
    mspti::ApiMonitor m;
    int calls = 0;
    ASSERT_EQ(m.start([&](const mspti::ApiData &) {
        if (++calls == 1) m.stop();  // from inside the callback: the rest of the buffer is left
    }),
              MsptiResult::MSPTI_SUCCESS);
    uint64_t before = 0;
    ASSERT_EQ(msptiExtActivityGetNumDroppedRecords(MSPTI_ACTIVITY_KIND_API, &before), MSPTI_SUCCESS);
    constexpr int kCalls = 10;
    for (int i = 0; i < kCalls; ++i) Add();
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    ASSERT_EQ(mspti::Monitor::flush_all(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(calls, 1);
    EXPECT_FALSE(m.is_running());
    EXPECT_EQ(m.stats().delivered, 1u);
    EXPECT_EQ(m.stats().dropped, static_cast<uint64_t>(kCalls - 1));
    uint64_t after = 0;
    ASSERT_EQ(msptiExtActivityGetNumDroppedRecords(MSPTI_ACTIVITY_KIND_API, &after), MSPTI_SUCCESS);
    EXPECT_EQ(after - before, static_cast<uint64_t>(kCalls - 1));
}

TEST_F(VnpuMonitor, RangeOnAStreamGivesAHostAndADeviceRange) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(&c, &c), MsptiResult::MSPTI_SUCCESS);
    mstxRangeId id = mstxRangeStartA("on_device", stream_);
    ASSERT_NE(id, 0u);
    Add();
    mstxRangeEnd(id);
    mstxMarkA("device_mark", stream_);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    m.stop();
    auto ranges = c.ranges();
    ASSERT_EQ(ranges.size(), 2u);
    int host = 0, device = 0;
    for (const auto &r : ranges) {
        EXPECT_EQ(r.id, id);
        EXPECT_LE(r.start, r.end);
        if (r.source_kind == mspti::MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_HOST) {
            ++host;
            EXPECT_EQ(r.name, "on_device");
            EXPECT_EQ(r.domain, "default");
            EXPECT_EQ(r.object_id, (mspti::MsptiObjectId{getpid(), Tid(), -1, -1}));
        } else {
            ++device;
            EXPECT_EQ(r.name, "");
            EXPECT_EQ(r.domain, "");
            EXPECT_EQ(r.object_id, (mspti::MsptiObjectId{-1, -1, 0, stream_id_}));
        }
    }
    EXPECT_EQ(host, 1);
    EXPECT_EQ(device, 1);
    // A mark on a stream: one host and one device record, both to the mark callback.
    auto marks = c.marks();
    ASSERT_EQ(marks.size(), 2u);
    for (const auto &mk : marks)
        EXPECT_EQ(mk.flag, mspti::MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE);
    EXPECT_NE(marks[0].source_kind, marks[1].source_kind);
}

TEST_F(VnpuMonitor, HcclMonitorStartsWhenInterposing) {
    std::vector<mspti::HcclData> seen;  // written on the delivery thread, read after stop()
    mspti::HcclMonitor h;
    EXPECT_EQ(h.start([&](const mspti::HcclData &d) { seen.push_back(d); }), MsptiResult::MSPTI_SUCCESS)
        << mspti::last_error_message();
    EXPECT_TRUE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_HCCL));
    // A one-rank all-reduce: its record reaches the callback (every collective, on two ranks, is in
    // collective_monitor_test).
    int32_t device = 0;
    HcclComm comm = nullptr;
    ASSERT_EQ(HcclCommInitAll(1, &device, &comm), HCCL_SUCCESS);
    ASSERT_EQ(HcclAllReduce(a_, c_, 64, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream_), HCCL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(h.stop(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_HCCL));
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].name, "HcclAllReduce");
    EXPECT_EQ(seen[0].device_id, 0);
    EXPECT_EQ(seen[0].stream_id, stream_id_);
    EXPECT_GT(seen[0].bandwidth, 0.0);
}
