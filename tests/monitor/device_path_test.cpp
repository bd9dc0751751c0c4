// libmspti reading the virtual NPU through Ascend's profiling interfaces, as it would an Ascend
// device: clocks (the device counter at another rate and start than the host's, converted with the
// reported frequency and a host/device sync) and flush-then-disable losing nothing. The C ABI, with
// the runtime linked (not preloaded). The device clock settings come from the environment
// (VNPU_DEVICE_TICKS_PER_MS, VNPU_DEVICE_CLOCK_OFFSET; see tests/monitor/CMakeLists.txt).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
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
std::vector<msptiActivityApi> g_acl_apis;
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
        if (r->kind == MSPTI_ACTIVITY_KIND_ACL_API) g_acl_apis.push_back(*reinterpret_cast<msptiActivityApi *>(r));
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

// API records take their times from the runtime's host reports (MsprofSysCycleTime's clock), mstx
// ranges from libmspti's (CLOCK_MONOTONIC): every API called inside a range lies inside it, however
// far the two clocks drift apart over the run (VNPU_HOST_CLOCK_DRIFT_PPM, see CMakeLists.txt). Ranges
// follow each other on this thread with no API call between them, over about 3 seconds.
TEST_F(DevicePath, ApiRecordsLieInsideTheirRanges) {
    // The precision of the conversion: the runtime's and libmspti's pairs of the two clocks (each the
    // report clock read between two readings of the other, at their midpoint, taken again while
    // those lie more than 2 us apart, so each is off by at most about 1 us; tens of ns unless a
    // preemption came between the readings). A range here starts tens of ns before its first API.
    constexpr uint64_t kToleranceNs = 1000;
    {
        std::lock_guard<std::mutex> lock(g_mu);
        g_apis.clear();
        g_acl_apis.clear();
        g_markers.clear();
    }
    for (auto k : {MSPTI_ACTIVITY_KIND_API, MSPTI_ACTIVITY_KIND_ACL_API, MSPTI_ACTIVITY_KIND_MARKER})
        ASSERT_EQ(msptiActivityEnable(k), MSPTI_SUCCESS);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    int made = 0;
    while (made < 100 || std::chrono::steady_clock::now() < until) {
        uint64_t id = mstxRangeStartA("data", nullptr);
        ASSERT_NE(id, 0u);
        ASSERT_EQ(aclrtMemcpyAsync(c_, 64 * sizeof(float), a_, 64 * sizeof(float), ACL_MEMCPY_DEVICE_TO_DEVICE,
                                   stream_),
                  ACL_SUCCESS);
        Add();
        ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
        mstxRangeEnd(id);
        ++made;
    }
    ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);
    for (auto k : {MSPTI_ACTIVITY_KIND_API, MSPTI_ACTIVITY_KIND_ACL_API, MSPTI_ACTIVITY_KIND_MARKER})
        ASSERT_EQ(msptiActivityDisable(k), MSPTI_SUCCESS);
    std::lock_guard<std::mutex> lock(g_mu);
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> by_id;  // range id -> start, end
    for (const auto &m : g_markers) {
        if (m.flag == MSPTI_ACTIVITY_FLAG_MARKER_START) by_id[m.id].first = m.timestamp;
        if (m.flag == MSPTI_ACTIVITY_FLAG_MARKER_END) by_id[m.id].second = m.timestamp;
    }
    ASSERT_EQ(by_id.size(), static_cast<size_t>(made));
    std::vector<std::pair<uint64_t, uint64_t>> ranges;  // by start
    for (const auto &[id, r] : by_id) {
        ASSERT_NE(r.first, 0u) << "range " << id;
        ASSERT_NE(r.second, 0u) << "range " << id;
        ranges.push_back(r);
    }
    std::sort(ranges.begin(), ranges.end());
    std::vector<msptiActivityApi> apis = g_apis;
    apis.insert(apis.end(), g_acl_apis.begin(), g_acl_apis.end());
    // aclrtMemcpyAsync and aclrtSynchronizeStream (ACL_API) and aclnnAdd's launch (API), every range.
    ASSERT_GE(g_acl_apis.size(), static_cast<size_t>(2 * made));
    ASSERT_GE(g_apis.size(), static_cast<size_t>(made));
    // How far each record lies outside the range it was called in (0 inside), in ns. The API's range
    // is the last one starting at or before the API's start, or the next one (an API that starts
    // before its own range did).
    size_t outside = 0;
    uint64_t worst = 0;
    for (const auto &a : apis) {
        auto after = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(a.start, ~uint64_t{0}));
        uint64_t miss = ~uint64_t{0};
        if (after != ranges.begin()) {
            auto r = std::prev(after);
            miss = a.end <= r->second ? 0 : a.end - r->second;
        }
        if (miss != 0 && after != ranges.end()) {
            const uint64_t early = after->first - a.start, late = a.end > after->second ? a.end - after->second : 0;
            miss = std::min(miss, std::max(early, late));
        }
        worst = std::max(worst, miss);
        if (miss > kToleranceNs && ++outside <= 5)
            ADD_FAILURE() << a.name << " [" << a.start << ", " << a.end << "] lies " << miss
                          << " ns outside the range it was called in";
    }
    std::printf("%zu API records in %d ranges; the farthest outside its range by %llu ns\n", apis.size(), made,
                static_cast<unsigned long long>(worst));
    EXPECT_EQ(outside, 0u) << "of " << apis.size() << " API records in " << made << " ranges lie more than "
                           << kToleranceNs << " ns outside the range they were called in";
}
