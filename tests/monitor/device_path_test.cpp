// libmspti reading the virtual NPU through Ascend's profiling interfaces, as it would an Ascend
// device: clocks (the device counter at another rate and start than the host's, converted with the
// reported frequency and a host/device sync) and flush-then-disable losing nothing. The C ABI, with
// the runtime linked (not preloaded). The device clock settings come from the environment
// (VNPU_DEVICE_TICKS_PER_MS, VNPU_DEVICE_CLOCK_OFFSET; see tests/monitor/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "acl/acl.h"
#include "vnpu_add_fixture.h"
#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"

namespace {

std::mutex g_mu;
std::vector<msptiActivityKernel> g_kernels;
std::vector<msptiActivityApi> g_apis;
std::vector<msptiActivityMarker> g_markers;

void request(uint8_t **buffer, size_t *size, size_t *max) {
    *size = 1 << 20;
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, *size));
    *max = 0;
}

void complete(uint8_t *buffer, size_t, size_t valid) {
    msptiActivity *r = nullptr;
    std::lock_guard<std::mutex> lock(g_mu);
    while (msptiActivityGetNextRecord(buffer, valid, &r) == MSPTI_SUCCESS) {
        if (r->kind == MSPTI_ACTIVITY_KIND_KERNEL) g_kernels.push_back(*reinterpret_cast<msptiActivityKernel *>(r));
        if (r->kind == MSPTI_ACTIVITY_KIND_API) g_apis.push_back(*reinterpret_cast<msptiActivityApi *>(r));
        if (r->kind == MSPTI_ACTIVITY_KIND_MARKER) g_markers.push_back(*reinterpret_cast<msptiActivityMarker *>(r));
    }
    std::free(buffer);
}

class DevicePath : public VnpuAddFixture {
protected:
    void SetUp() override {
        ASSERT_EQ(msptiActivityRegisterCallbacks(request, complete), MSPTI_SUCCESS);
        VnpuAddFixture::SetUp();
    }
};

}  // namespace

// Every kernel starts after the API call that launched it started (joined by correlation id), and
// a range's device start lies inside its host range (the stream is synchronised before the range
// ends), its device end after the host end: whatever the device counter's rate and start.
TEST_F(DevicePath, DeviceTimesLieInsideTheirHostSpans) {
    for (auto k : {MSPTI_ACTIVITY_KIND_KERNEL, MSPTI_ACTIVITY_KIND_API, MSPTI_ACTIVITY_KIND_MARKER})
        ASSERT_EQ(msptiActivityEnable(k), MSPTI_SUCCESS);
    constexpr int kRanges = 20, kKernels = 5;
    for (int r = 0; r < kRanges; ++r) {
        uint64_t id = mstxRangeStartA("step", stream_);
        ASSERT_NE(id, 0u);
        for (int i = 0; i < kKernels; ++i) Add();
        ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
        mstxRangeEnd(id);
        ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    }
    ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);
    std::lock_guard<std::mutex> lock(g_mu);
    ASSERT_EQ(g_kernels.size(), static_cast<size_t>(kRanges * kKernels));
    std::map<uint64_t, msptiActivityApi> api_of;
    for (const auto &a : g_apis) api_of[a.correlationId] = a;
    for (const auto &k : g_kernels) {
        ASSERT_TRUE(api_of.count(k.correlationId)) << "kernel " << k.correlationId << " has no API record";
        const msptiActivityApi &a = api_of[k.correlationId];
        EXPECT_GE(k.start, a.start) << "kernel " << k.correlationId << " starts before its launch";
        EXPECT_LE(k.start, k.end);
    }
    // markers: id -> host start, host end, device start, device end
    struct Times {
        uint64_t host_start = 0, host_end = 0, dev_start = 0, dev_end = 0;
    };
    std::map<uint64_t, Times> ranges;
    for (const auto &m : g_markers) {
        Times &t = ranges[m.id];
        const bool device = m.sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_DEVICE;
        const bool start = m.flag == MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE;
        (device ? (start ? t.dev_start : t.dev_end) : (start ? t.host_start : t.host_end)) = m.timestamp;
    }
    ASSERT_EQ(ranges.size(), static_cast<size_t>(kRanges));
    for (const auto &[id, t] : ranges) {
        ASSERT_NE(t.dev_start, 0u) << id;
        ASSERT_NE(t.dev_end, 0u) << id;
        EXPECT_GE(t.dev_start, t.host_start) << "range " << id;
        EXPECT_LE(t.dev_start, t.host_end) << "range " << id;
        EXPECT_GE(t.dev_end, t.host_end) << "range " << id;
    }
}

// msPTI's race (a flush counts as done once the channel data is read, before it is parsed) would
// lose the last kernels of a run whose flush comes right before the disable. 1000 runs in one
// process: each run's kernels are all delivered by its flush.
TEST_F(DevicePath, FlushRightBeforeDisableLosesNothing) {
    constexpr int kRuns = 1000, kKernels = 3;
    size_t lost_runs = 0;
    for (int run = 0; run < kRuns; ++run) {
        ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_KERNEL), MSPTI_SUCCESS);
        for (int i = 0; i < kKernels; ++i) Add();
        ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
        ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);
        size_t delivered;
        {
            std::lock_guard<std::mutex> lock(g_mu);
            delivered = g_kernels.size();
        }
        ASSERT_EQ(msptiActivityDisable(MSPTI_ACTIVITY_KIND_KERNEL), MSPTI_SUCCESS);
        if (delivered != static_cast<size_t>((run + 1) * kKernels)) ++lost_runs;
        ASSERT_EQ(delivered, static_cast<size_t>((run + 1) * kKernels)) << "run " << run;
    }
    EXPECT_EQ(lost_runs, 0u);
}
