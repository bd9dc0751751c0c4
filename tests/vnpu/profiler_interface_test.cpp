// The profiler contract of include/vnpu/vnpu_profiler.h, checked with a recording profiler.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_matmul.h"
#include "hccl/hccl.h"
#include "test_support.h"
#include "vnpu/vnpu_profiler.h"

using vnpu_test::DeviceBuffer;
using vnpu_test::DeviceTest;

namespace {

struct Recorded {
    std::string what;  // "api", "kernel", "kernelDone", "coll", "collDone", "trace"
    std::string name;
    std::string type;
    uint64_t tag = 0;
    uint64_t start = 0;
    uint64_t end = 0;
    uint32_t device = 0;
    uint32_t stream = 0;
    vnpuCollectiveInfo coll{};
    std::string commName;
};

Recorded ev(const std::string &what, const std::string &name, const std::string &type, uint64_t tag, uint64_t start,
            uint64_t end, uint32_t device = 0, uint32_t stream = 0) {
    Recorded r;
    r.what = what;
    r.name = name;
    r.type = type;
    r.tag = tag;
    r.start = start;
    r.end = end;
    r.device = device;
    r.stream = stream;
    return r;
}

struct Recorder {
    std::mutex mu;
    std::vector<Recorded> events;
    uint64_t nextTag = 1;
    bool returnZeroTags = false;

    void add(Recorded r) {
        std::lock_guard<std::mutex> lock(mu);
        events.push_back(std::move(r));
    }
    std::vector<Recorded> of(const std::string &what) {
        std::lock_guard<std::mutex> lock(mu);
        std::vector<Recorded> out;
        for (auto &e : events)
            if (e.what == what) out.push_back(e);
        return out;
    }
    uint64_t tag() {
        std::lock_guard<std::mutex> lock(mu);
        return returnZeroTags ? 0 : nextTag++;
    }
};

vnpuProfiler tableFor(Recorder &rec) {
    vnpuProfiler p{};
    p.structSize = sizeof(vnpuProfiler);
    p.userdata = &rec;
    p.onApi = [](void *u, vnpuApiLevel level, const char *name, uint64_t b, uint64_t e) {
        if (level == VNPU_API_LEVEL_NODE) static_cast<Recorder *>(u)->add(ev("api", name, "", 0, b, e));
        if (level == VNPU_API_LEVEL_HCCL) static_cast<Recorder *>(u)->add(ev("hcclApi", name, "", 0, b, e));
    };
    p.onKernelEnqueue = [](void *u, const vnpuKernelInfo *info) {
        auto *recorder = static_cast<Recorder *>(u);
        const uint64_t tag = recorder->tag();
        recorder->add(ev("kernel", info->name, info->type, tag, 0, 0, info->deviceId, info->streamId));
        return tag;
    };
    p.onKernelExecuted = [](void *u, uint64_t tag, const vnpuKernelInfo *info, uint64_t s, uint64_t e) {
        static_cast<Recorder *>(u)->add(
            ev("kernelDone", info->name, info->type, tag, s, e, info->deviceId, info->streamId));
    };
    p.onCollectiveEnqueue = [](void *u, const vnpuCollectiveInfo *info) {
        auto *recorder = static_cast<Recorder *>(u);
        Recorded r = ev("coll", info->opName, info->algType, recorder->tag(), 0, 0, info->deviceId, info->streamId);
        r.coll = *info;
        r.commName = info->commName;
        recorder->add(r);
        return r.tag;
    };
    p.onCollectiveExecuted = [](void *u, uint64_t tag, uint64_t s, uint64_t e) {
        static_cast<Recorder *>(u)->add(ev("collDone", "", "", tag, s, e));
    };
    p.onStreamTrace = [](void *u, uint64_t mark, uint32_t flag, uint32_t dev, uint32_t stream, uint64_t t) {
        static_cast<Recorder *>(u)->add(ev("trace", std::to_string(mark), std::to_string(flag), 0, t, t, dev, stream));
    };
    return p;
}

aclTensor *vectorTensor(int64_t n, void *data) {
    int64_t stride = 1;
    return aclCreateTensor(&n, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &n, 1, data);
}

class ProfilerTest : public DeviceTest {
protected:
    void SetUp() override {
        DeviceTest::SetUp();
        table_ = tableFor(rec_);
        ASSERT_EQ(vnpuProfilerRegister(&table_), 0);
    }
    void TearDown() override {
        EXPECT_EQ(vnpuProfilerRegister(nullptr), 0);
        DeviceTest::TearDown();
    }

    /// Enqueues aclnnAdd (alpha 2) on stream_.
    void enqueueAdd(const DeviceBuffer &a, const DeviceBuffer &out) {
        aclTensor *ta = vectorTensor(4, a.get());
        aclTensor *to = vectorTensor(4, out.get());
        float alpha = 2.0f;
        aclScalar *s = aclCreateScalar(&alpha, ACL_FLOAT);
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        ASSERT_EQ(aclnnAddGetWorkspaceSize(ta, ta, s, to, &ws, &ex), ACL_SUCCESS);
        ASSERT_EQ(aclnnAdd(nullptr, ws, ex, stream_), ACL_SUCCESS);
        aclDestroyTensor(ta);
        aclDestroyTensor(to);
        aclDestroyScalar(s);
    }

    Recorder rec_;
    vnpuProfiler table_{};
};

}  // namespace

TEST(Profiler, RegisterRejectsATooSmallTable) {
    vnpuProfiler p{};
    p.structSize = sizeof(vnpuProfiler) - 8;
    EXPECT_NE(vnpuProfilerRegister(&p), 0);
    EXPECT_EQ(vnpuProfilerRegister(nullptr), 0);
}

TEST(Profiler, NowIsMonotonic) {
    const uint64_t a = vnpuNowNs();
    const uint64_t b = vnpuNowNs();
    EXPECT_GT(a, 0u);
    EXPECT_LE(a, b);
}

TEST_F(ProfilerTest, EachKernelIsReportedOnceEnqueuedAndOnceExecutedInStreamOrder) {
    DeviceBuffer a(std::vector<float>{1, 2, 3, 4});
    DeviceBuffer out(4 * sizeof(float));
    DeviceBuffer m(std::vector<float>(4, 1.0f));
    enqueueAdd(a, out);
    int64_t dims[2] = {2, 2};
    int64_t strides[2] = {2, 1};
    aclTensor *mat = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, m.get());
    aclTensor *res = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, out.get());
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    ASSERT_EQ(aclnnMatmulGetWorkspaceSize(mat, mat, res, 0, &ws, &ex), ACL_SUCCESS);
    ASSERT_EQ(aclnnMatmul(nullptr, ws, ex, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    aclDestroyTensor(mat);
    aclDestroyTensor(res);

    auto enqueued = rec_.of("kernel");
    auto executed = rec_.of("kernelDone");
    ASSERT_EQ(enqueued.size(), 2u);
    ASSERT_EQ(executed.size(), 2u);
    EXPECT_EQ(enqueued[0].name, "Axpy_233851a3505389e43928a8bba133a74d_high_performance_210000000");
    EXPECT_EQ(enqueued[0].type, "KERNEL_AIVEC");
    EXPECT_EQ(enqueued[1].type, "KERNEL_AICORE");
    uint32_t device = 9;
    uint32_t streamId = 9;
    ASSERT_EQ(vnpuStreamGetIds(stream_, &device, &streamId), 0);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(enqueued[i].device, device);
        EXPECT_EQ(enqueued[i].stream, streamId);
        EXPECT_EQ(executed[i].tag, enqueued[i].tag);  // same order as enqueued
        // The execution report carries the kernel's identity as it was enqueued.
        EXPECT_EQ(executed[i].name, enqueued[i].name);
        EXPECT_EQ(executed[i].type, enqueued[i].type);
        EXPECT_EQ(executed[i].device, enqueued[i].device);
        EXPECT_EQ(executed[i].stream, enqueued[i].stream);
        EXPECT_LE(executed[i].start, executed[i].end);
    }
    EXPECT_LE(executed[0].end, executed[1].start);
    auto apis = rec_.of("api");
    ASSERT_EQ(apis.size(), 2u);
    EXPECT_EQ(apis[0].name, "aclnnAdd_AxpyAiCore_Axpy");
    EXPECT_EQ(apis[1].name, "aclnnMatmul_MatMulV3AiCore_MatMulV3");
    EXPECT_LE(apis[0].start, apis[0].end);
}

TEST_F(ProfilerTest, ZeroTagSkipsTheExecutionCallback) {
    rec_.returnZeroTags = true;
    DeviceBuffer a(std::vector<float>{1, 2, 3, 4});
    DeviceBuffer out(4 * sizeof(float));
    enqueueAdd(a, out);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(rec_.of("kernel").size(), 1u);
    EXPECT_EQ(rec_.of("kernelDone").size(), 0u);
}

TEST_F(ProfilerTest, StreamTraceFiresInStreamOrderWithIds) {
    DeviceBuffer a(std::vector<float>{1, 2, 3, 4});
    DeviceBuffer out(4 * sizeof(float));
    ASSERT_EQ(vnpuStreamTrace(stream_, 11, 16), 0);
    enqueueAdd(a, out);
    ASSERT_EQ(vnpuStreamTrace(stream_, 12, 32), 0);
    ASSERT_EQ(vnpuStreamTrace(nullptr, 13, 8), 0);
    int bogus = 0;
    EXPECT_EQ(vnpuStreamTrace(&bogus, 14, 8), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    auto traces = rec_.of("trace");
    ASSERT_EQ(traces.size(), 3u);
    std::vector<Recorded> onStream;
    for (auto &t : traces)
        if (t.name != "13") onStream.push_back(t);
    ASSERT_EQ(onStream.size(), 2u);
    EXPECT_EQ(onStream[0].name, "11");
    EXPECT_EQ(onStream[0].type, "16");
    EXPECT_EQ(onStream[1].name, "12");
    EXPECT_EQ(onStream[1].type, "32");
    auto kernel = rec_.of("kernelDone").at(0);
    EXPECT_LE(onStream[0].start, kernel.start);
    EXPECT_LE(kernel.end, onStream[1].start);
    uint32_t device = 9;
    uint32_t streamId = 9;
    ASSERT_EQ(vnpuStreamGetIds(stream_, &device, &streamId), 0);
    EXPECT_EQ(onStream[0].device, device);
    EXPECT_EQ(onStream[0].stream, streamId);
}

TEST_F(ProfilerTest, UnregisteredProfilerHearsNothing) {
    ASSERT_EQ(vnpuProfilerRegister(nullptr), 0);
    DeviceBuffer a(std::vector<float>{1, 2, 3, 4});
    DeviceBuffer out(4 * sizeof(float));
    enqueueAdd(a, out);
    ASSERT_EQ(vnpuStreamTrace(stream_, 1, 1), 0);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    std::lock_guard<std::mutex> lock(rec_.mu);
    EXPECT_TRUE(rec_.events.empty());
}

TEST_F(ProfilerTest, EachRankReportsItsCollective) {
    int32_t devices[2] = {0, 1};
    HcclComm comms[2];
    ASSERT_EQ(HcclCommInitAll(2, devices, comms), HCCL_SUCCESS);
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < 2; ++r) {
        threads.emplace_back([&, r] {
            [&] {
                ASSERT_EQ(aclrtSetDevice(static_cast<int32_t>(r)), ACL_SUCCESS);
                DeviceBuffer buf(std::vector<float>(16, 1.0f));
                ASSERT_EQ(HcclAllReduce(buf.get(), buf.get(), 16, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[r],
                                        nullptr),
                          HCCL_SUCCESS);
                ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
                EXPECT_EQ(aclrtResetDevice(static_cast<int32_t>(r)), ACL_SUCCESS);
            }();
            // The other rank may wait in the all-reduce for this one: end both at once.
            if (::testing::Test::HasFatalFailure()) {
                std::fprintf(stderr, "rank %u failed: ending every rank\n", r);
                std::_Exit(1);
            }
        });
    }
    for (auto &t : threads) t.join();
    char name[128] = {};
    ASSERT_EQ(HcclGetCommName(comms[0], name), HCCL_SUCCESS);
    auto enq = rec_.of("coll");
    auto done = rec_.of("collDone");
    ASSERT_EQ(enq.size(), 2u);
    ASSERT_EQ(done.size(), 2u);
    std::vector<uint32_t> seenDevices;
    for (auto &e : enq) {
        EXPECT_EQ(e.name, "hcom_allReduce_");
        EXPECT_EQ(e.commName, name);
        EXPECT_EQ(e.type, "RING");
        EXPECT_EQ(e.coll.dataType, static_cast<uint32_t>(HCCL_DATA_TYPE_FP32));
        EXPECT_EQ(e.coll.count, 16u);
        EXPECT_EQ(e.coll.rankSize, 2u);
        seenDevices.push_back(e.device);
        bool matched = false;
        for (auto &d : done) matched = matched || (d.tag == e.tag && d.start <= d.end);
        EXPECT_TRUE(matched);
    }
    std::sort(seenDevices.begin(), seenDevices.end());
    EXPECT_EQ(seenDevices, (std::vector<uint32_t>{0, 1}));
    auto spans = rec_.of("hcclApi");
    ASSERT_EQ(spans.size(), 2u);
    EXPECT_EQ(spans[0].name, "HcclAllReduce");
    for (HcclComm c : comms) HcclCommDestroy(c);
}
