// The interposer and device hookup against a small fake runtime (fake_runtime/): records,
// correlation, callbacks, device markers, HCCL. Run with LD_PRELOAD=libmspti.so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "ascend_hal.h"
#include "device/hccl_bandwidth.h"
#include "fake_runtime/fake_runtime.h"
#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"
#include "record_collector.h"

using mspti_test::Collector;

namespace {

constexpr aclrtMemcpyKind kH2D = 1, kD2H = 2;

class Interposer : public ::testing::Test {
protected:
    void SetUp() override {
        Collector::instance().install();
        ASSERT_EQ(aclrtSetDevice(2), 0);
        ASSERT_EQ(aclrtCreateStream(&stream_), 0);
        Collector::instance().clear();
    }
    void TearDown() override {
        for (int k = MSPTI_ACTIVITY_KIND_MARKER; k < MSPTI_ACTIVITY_KIND_COUNT; ++k)
            msptiActivityDisable(static_cast<msptiActivityKind>(k));
        aclrtDestroyStream(stream_);
        EXPECT_EQ(Collector::instance().unknown(), 0u) << "records of a kind without a size";
    }
    void enable(std::initializer_list<msptiActivityKind> kinds) {
        for (auto k : kinds) ASSERT_EQ(msptiActivityEnable(k), MSPTI_SUCCESS) << k;
    }
    template <typename T>
    std::vector<T> take(msptiActivityKind kind) {
        return Collector::instance().take<T>(kind);
    }
    aclrtStream stream_ = nullptr;
};

uint32_t stream_id(aclrtStream s) {
    int32_t id = -1;
    aclrtStreamGetId(s, &id);
    return static_cast<uint32_t>(id);
}

TEST_F(Interposer, ReportsInterposingAndAcceptsPreloadKinds) {
    EXPECT_TRUE(msptiExtIsInterposing());
    enable(
        {MSPTI_ACTIVITY_KIND_HCCL, MSPTI_ACTIVITY_KIND_MEMORY, MSPTI_ACTIVITY_KIND_MEMSET, MSPTI_ACTIVITY_KIND_MEMCPY});
}

TEST_F(Interposer, EveryKernelGivesOneRecordInStreamOrder) {
    enable({MSPTI_ACTIVITY_KIND_KERNEL});
    constexpr int kKernels = 200;
    for (int i = 0; i < kKernels; ++i) {
        switch (i % 4) {
        case 0: ASSERT_EQ(aclrtLaunchKernel(nullptr, 1, nullptr, 0, stream_), 0); break;
        case 1: ASSERT_EQ(aclrtLaunchKernelV2(nullptr, 1, nullptr, 0, nullptr, stream_), 0); break;
        case 2: ASSERT_EQ(aclrtLaunchKernelWithConfig(nullptr, 1, stream_, nullptr, nullptr, nullptr), 0); break;
        default: ASSERT_EQ(aclrtLaunchKernelWithHostArgs(nullptr, 1, stream_, nullptr, nullptr, 0, nullptr, 0), 0);
        }
    }
    ASSERT_EQ(aclrtSynchronizeStream(stream_), 0);
    auto kernels = take<msptiActivityKernel>(MSPTI_ACTIVITY_KIND_KERNEL);
    ASSERT_EQ(kernels.size(), static_cast<size_t>(kKernels));
    for (size_t i = 0; i < kernels.size(); ++i) {
        const auto &k = kernels[i];
        EXPECT_LT(k.start, k.end);
        EXPECT_GT(k.start, 1000000000000000000ull);  // epoch ns
        EXPECT_EQ(k.ds.deviceId, 2u);
        EXPECT_EQ(k.ds.streamId, stream_id(stream_));
        EXPECT_STREQ(k.type, "KERNEL_AIVEC");
        if (i > 0) {
            EXPECT_LE(kernels[i - 1].end, k.start);
            // two ids per launch: the interposer's and the task track's
            EXPECT_EQ(k.correlationId, kernels[i - 1].correlationId + 2);
        }
    }
    EXPECT_STREQ(kernels[0].name, "fake_kernel");
    EXPECT_STREQ(kernels[3].name, "Axpy_fake_high_performance");
}

TEST_F(Interposer, NodeApiJoinsItsKernelByCorrelationId) {
    enable({MSPTI_ACTIVITY_KIND_KERNEL, MSPTI_ACTIVITY_KIND_API, MSPTI_ACTIVITY_KIND_NODE_API});
    ASSERT_EQ(fakeNodeOp(stream_), 0);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), 0);
    auto kernels = take<msptiActivityKernel>(MSPTI_ACTIVITY_KIND_KERNEL);
    auto apis = take<msptiActivityApi>(MSPTI_ACTIVITY_KIND_API);
    auto nodes = take<msptiActivityApi>(MSPTI_ACTIVITY_KIND_NODE_API);
    ASSERT_EQ(kernels.size(), 1u);
    ASSERT_EQ(apis.size(), 1u);
    ASSERT_EQ(nodes.size(), 1u);
    EXPECT_STREQ(apis[0].name, "fakeAdd_AxpyAiCore_Axpy");
    EXPECT_EQ(apis[0].correlationId, kernels[0].correlationId);
    EXPECT_EQ(nodes[0].correlationId, kernels[0].correlationId);
    EXPECT_LE(apis[0].start, apis[0].end);
    EXPECT_EQ(apis[0].pt.processId, static_cast<uint32_t>(getpid()));
}

TEST_F(Interposer, MemoryRecordsForMallocFreeMemcpyMemset) {
    enable({MSPTI_ACTIVITY_KIND_MEMORY, MSPTI_ACTIVITY_KIND_MEMCPY, MSPTI_ACTIVITY_KIND_MEMSET});
    void *dev = nullptr;
    char host[256] = {};
    ASSERT_EQ(aclrtMalloc(&dev, 1000, 0), 0);
    ASSERT_EQ(aclrtMemcpy(dev, 1000, host, 100, kH2D), 0);
    ASSERT_EQ(aclrtMemcpyAsync(host, sizeof(host), dev, 64, kD2H, stream_), 0);
    ASSERT_EQ(aclrtMemset(dev, 1000, 7, 5), 0);
    ASSERT_EQ(aclrtMemsetAsync(dev, 1000, 9, 16, stream_), 0);
    ASSERT_EQ(aclrtFree(dev), 0);
    auto mem = take<msptiActivityMemory>(MSPTI_ACTIVITY_KIND_MEMORY);
    auto cpy = take<msptiActivityMemcpy>(MSPTI_ACTIVITY_KIND_MEMCPY);
    auto set = take<msptiActivityMemset>(MSPTI_ACTIVITY_KIND_MEMSET);
    ASSERT_EQ(mem.size(), 2u);
    ASSERT_EQ(cpy.size(), 2u);
    ASSERT_EQ(set.size(), 2u);
    EXPECT_EQ(mem[0].memoryOperationType, MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION);
    EXPECT_EQ(mem[1].memoryOperationType, MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE);
    for (const auto &m : mem) {
        EXPECT_EQ(m.address, reinterpret_cast<uint64_t>(dev));
        EXPECT_EQ(m.bytes, 1000u);  // the release looks its size up
        EXPECT_EQ(m.memoryKind, MSPTI_ACTIVITY_MEMORY_DEVICE);
        EXPECT_EQ(m.deviceId, 2u);
        EXPECT_EQ(m.streamId, MSPTI_INVALID_STREAM_ID);
        EXPECT_EQ(m.processId, static_cast<uint32_t>(getpid()));
        EXPECT_LE(m.start, m.end);
    }
    EXPECT_EQ(cpy[0].copyKind, MSPTI_ACTIVITY_MEMCPY_KIND_HTOD);
    EXPECT_EQ(cpy[0].bytes, 100u);
    EXPECT_EQ(cpy[0].isAsync, 0);
    EXPECT_EQ(cpy[0].streamId, MSPTI_INVALID_STREAM_ID);
    EXPECT_EQ(cpy[1].copyKind, MSPTI_ACTIVITY_MEMCPY_KIND_DTOH);
    EXPECT_EQ(cpy[1].isAsync, 1);
    EXPECT_EQ(cpy[1].streamId, stream_id(stream_));
    EXPECT_EQ(set[0].value, 7u);
    EXPECT_EQ(set[0].bytes, 5u);
    EXPECT_EQ(set[0].isAsync, 0);
    EXPECT_EQ(set[1].value, 9u);
    EXPECT_EQ(set[1].isAsync, 1);
    EXPECT_EQ(set[1].streamId, stream_id(stream_));
    // one id per call, in call order
    EXPECT_EQ(cpy[0].correlationId, mem[0].correlationId + 1);
    EXPECT_EQ(cpy[1].correlationId, mem[0].correlationId + 2);
    EXPECT_EQ(set[0].correlationId, mem[0].correlationId + 3);
    EXPECT_EQ(set[1].correlationId, mem[0].correlationId + 4);
    EXPECT_EQ(mem[1].correlationId, mem[0].correlationId + 5);
}

TEST_F(Interposer, MemcpyKindsMapAsMspti) {
    enable({MSPTI_ACTIVITY_KIND_MEMCPY});
    char a[8] = {}, b[8] = {};
    for (int kind = 0; kind <= 7; ++kind) aclrtMemcpy(a, 8, b, 8, kind);
    auto cpy = take<msptiActivityMemcpy>(MSPTI_ACTIVITY_KIND_MEMCPY);
    ASSERT_EQ(cpy.size(), 8u);  // recorded whatever the real call returned
    const msptiActivityMemcpyKind expected[] = {MSPTI_ACTIVITY_MEMCPY_KIND_HTOH,    MSPTI_ACTIVITY_MEMCPY_KIND_HTOD,
                                                MSPTI_ACTIVITY_MEMCPY_KIND_DTOH,    MSPTI_ACTIVITY_MEMCPY_KIND_DTOD,
                                                MSPTI_ACTIVITY_MEMCPY_KIND_DEFAULT, MSPTI_ACTIVITY_MEMCPY_KIND_HTOD,
                                                MSPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN, MSPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN};
    for (int i = 0; i < 8; ++i) EXPECT_EQ(cpy[i].copyKind, expected[i]) << i;
}

TEST_F(Interposer, ReleaseOfUnknownAllocationHasZeroBytes) {
    void *dev = nullptr;
    ASSERT_EQ(aclrtMalloc(&dev, 64, 0), 0);  // MEMORY off: not remembered
    enable({MSPTI_ACTIVITY_KIND_MEMORY});
    ASSERT_EQ(aclrtFree(dev), 0);
    auto mem = take<msptiActivityMemory>(MSPTI_ACTIVITY_KIND_MEMORY);
    ASSERT_EQ(mem.size(), 1u);
    EXPECT_EQ(mem[0].bytes, 0u);
}

TEST_F(Interposer, BadInputPassesTheRuntimesErrorThrough) {
    enable({MSPTI_ACTIVITY_KIND_MEMORY});
    EXPECT_EQ(aclrtMalloc(nullptr, 16, 0), 100000);
    EXPECT_EQ(aclrtFree(nullptr), 100000);
    // A function the runtime does not export: the runtime's "not supported", no crash.
    char a[4], b[4];
    EXPECT_EQ(aclrtMemcpy2d(a, 4, b, 4, 4, 1, 1), 200001);
    EXPECT_EQ(HcclSend(a, 1, 0, 0, nullptr, stream_), 5);
    auto mem = take<msptiActivityMemory>(MSPTI_ACTIVITY_KIND_MEMORY);
    ASSERT_EQ(mem.size(), 2u);
    EXPECT_EQ(mem[0].address, 0u);
}

struct Seen {
    msptiCallbackDomain domain;
    msptiCallbackId cbid;
    msptiApiCallbackSite site;
    std::string name;
    uint64_t correlationId;
    bool hasResult;
    int result;
    bool othersZero;
    uint64_t memoryProduced;
};
std::vector<Seen> g_seen;

uint64_t memory_produced() {
    msptiExtActivityStats stats{};
    msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MEMORY, &stats);
    return stats.produced;
}

void on_callback(void *userdata, msptiCallbackDomain domain, msptiCallbackId cbid, const msptiCallbackData *d) {
    *static_cast<int *>(userdata) += 1;
    Seen s{domain,
           cbid,
           d->callbackSite,
           d->functionName,
           d->correlationId,
           d->functionReturnValue != nullptr,
           d->functionReturnValue != nullptr ? *static_cast<const int *>(d->functionReturnValue) : 0,
           d->functionParams == nullptr && d->symbolName == nullptr && d->reserved1 == 0 && d->reserved2 == 0 &&
               d->correlationData == nullptr,
           memory_produced()};
    g_seen.push_back(s);
}

TEST_F(Interposer, CallbacksComeInEnterExitPairsWithTheRightIds) {
    int calls = 0;
    msptiSubscriberHandle h = nullptr;
    ASSERT_EQ(msptiSubscribe(&h, &on_callback, &calls), MSPTI_SUCCESS);
    ASSERT_EQ(msptiEnableDomain(1, h, MSPTI_CB_DOMAIN_RUNTIME), MSPTI_SUCCESS);
    ASSERT_EQ(msptiEnableDomain(1, h, MSPTI_CB_DOMAIN_HCCL), MSPTI_SUCCESS);
    enable({MSPTI_ACTIVITY_KIND_MEMORY});
    g_seen.clear();
    void *dev = nullptr, *host = nullptr;
    aclrtContext ctx = nullptr;
    aclrtStream s2 = nullptr;
    HcclComm comm = nullptr;
    ASSERT_EQ(fakeCommCreate(2, "cb_comm", &comm), 0);
    aclrtSetDevice(2);
    aclrtCreateContext(&ctx, 2);
    aclrtCreateStream(&s2);
    aclrtMalloc(&dev, 32, 0);
    aclrtMallocHost(&host, 32);
    aclrtMemcpy(dev, 32, host, 32, kH2D);
    aclrtMemcpyAsync(host, 32, dev, 32, kD2H, s2);
    aclrtMemset(dev, 32, 0, 32);
    aclrtMemsetAsync(dev, 32, 0, 32, s2);
    aclrtLaunchKernel(nullptr, 1, nullptr, 0, s2);
    aclrtLaunchKernelV2(nullptr, 1, nullptr, 0, nullptr, s2);
    aclrtLaunchKernelWithConfig(nullptr, 1, s2, nullptr, nullptr, nullptr);
    aclrtLaunchKernelWithHostArgs(nullptr, 1, s2, nullptr, nullptr, 0, nullptr, 0);
    HcclAllReduce(dev, dev, 8, 4, 0, comm, s2);
    HcclBarrier(comm, s2);
    aclrtSynchronizeStream(s2);
    aclrtFreeHost(host);
    aclrtFree(dev);
    aclrtDestroyStream(s2);
    aclrtDestroyContext(ctx);
    aclrtResetDevice(2);
    HcclCommDestroy(comm);
    struct Expect {
        const char *name;
        msptiCallbackDomain domain;
        msptiCallbackId cbid;
        bool hasId;
    };
    const Expect expected[] = {
        {"aclrtSetDevice", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_DEVICE_SET, false},
        {"aclrtCreateContext", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_CONTEXT_CREATED, false},
        {"aclrtCreateStream", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_STREAM_CREATED, false},
        {"aclrtMalloc", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC, true},
        {"aclrtMallocHost", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC_HOST, true},
        {"aclrtMemcpy", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MEMCPY, true},
        {"aclrtMemcpyAsync", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MEMCPY_ASYNC, true},
        {"aclrtMemset", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MEM_SET, true},
        {"aclrtMemsetAsync", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MEM_SET_ASYNC, true},
        {"aclrtLaunchKernel", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH, true},
        {"aclrtLaunchKernelV2", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH, true},
        {"aclrtLaunchKernelWithConfig", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH, true},
        {"aclrtLaunchKernelWithHostArgs", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH, true},
        {"HcclAllReduce", MSPTI_CB_DOMAIN_HCCL, MSPTI_CBID_HCCL_ALLREDUCE, false},
        {"HcclBarrier", MSPTI_CB_DOMAIN_HCCL, MSPTI_CBID_HCCL_BARRIER, false},
        {"aclrtSynchronizeStream", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_STREAM_SYNCHRONIZED, false},
        {"aclrtFreeHost", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_FREE_HOST, true},
        {"aclrtFree", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_FREE, true},
        {"aclrtDestroyStream", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_STREAM_DESTROY, false},
        {"aclrtDestroyContext", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_CONTEXT_DESTROY, false},
        {"aclrtResetDevice", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_DEVICE_RESET, false},
    };
    constexpr size_t kExpected = sizeof(expected) / sizeof(expected[0]);
    ASSERT_EQ(g_seen.size(), 2 * kExpected);
    EXPECT_EQ(calls, static_cast<int>(2 * kExpected));
    uint64_t last_id = 0;
    for (size_t i = 0; i < kExpected; ++i) {
        const Seen &enter = g_seen[2 * i], &exit = g_seen[2 * i + 1];
        SCOPED_TRACE(expected[i].name);
        EXPECT_EQ(enter.name, expected[i].name);
        EXPECT_EQ(exit.name, expected[i].name);
        EXPECT_EQ(enter.domain, expected[i].domain);
        EXPECT_EQ(enter.cbid, expected[i].cbid);
        EXPECT_EQ(exit.cbid, expected[i].cbid);
        EXPECT_EQ(enter.site, MSPTI_API_ENTER);
        EXPECT_EQ(exit.site, MSPTI_API_EXIT);
        EXPECT_FALSE(enter.hasResult);
        EXPECT_TRUE(exit.hasResult);
        EXPECT_EQ(exit.result, 0);
        EXPECT_TRUE(enter.othersZero);
        EXPECT_TRUE(exit.othersZero);
        EXPECT_EQ(enter.correlationId, exit.correlationId);
        if (expected[i].hasId) {
            EXPECT_GT(enter.correlationId, last_id);
            last_id = enter.correlationId;
        } else {
            EXPECT_EQ(enter.correlationId, 0u);
        }
    }
    // The MEMORY record is written before EXIT.
    EXPECT_EQ(g_seen[7].memoryProduced, g_seen[6].memoryProduced + 1);  // aclrtMalloc
    EXPECT_EQ(msptiEnableCallback(0, h, MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC), MSPTI_SUCCESS);
    g_seen.clear();
    aclrtMalloc(&dev, 8, 0);
    aclrtFree(dev);
    ASSERT_EQ(g_seen.size(), 2u);
    EXPECT_EQ(g_seen[0].name, "aclrtFree");
    ASSERT_EQ(msptiUnsubscribe(h), MSPTI_SUCCESS);
    g_seen.clear();
    aclrtMalloc(&dev, 8, 0);
    aclrtFree(dev);
    EXPECT_TRUE(g_seen.empty());
}

TEST_F(Interposer, ExternalCorrelationGroupsIdsByPhase) {
    enable({MSPTI_ACTIVITY_KIND_KERNEL, MSPTI_ACTIVITY_KIND_API, MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION});
    void *dev[3];
    char host[32] = {};
    uint64_t popped = 0;
    ASSERT_EQ(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 0), MSPTI_SUCCESS);
    for (auto &d : dev) ASSERT_EQ(aclrtMalloc(&d, 32, 0), 0);
    for (auto &d : dev) ASSERT_EQ(aclrtMemcpy(d, 32, host, 32, kH2D), 0);
    ASSERT_EQ(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 1), MSPTI_SUCCESS);
    ASSERT_EQ(fakeNodeOp(stream_), 0);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), 0);
    ASSERT_EQ(aclrtMemcpy(host, 32, dev[0], 32, kD2H), 0);
    ASSERT_EQ(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 2), MSPTI_SUCCESS);
    for (auto &d : dev) ASSERT_EQ(aclrtFree(d), 0);
    ASSERT_EQ(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped), MSPTI_SUCCESS);
    auto ext = take<msptiActivityExternalCorrelation>(MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    ASSERT_EQ(ext.size(), 12u);
    uint64_t base = ext[0].correlationId;
    for (size_t i = 0; i < ext.size(); ++i) {
        EXPECT_EQ(ext[i].correlationId, base + i);  // 1..6 / 7,8,9 / 10,11,12 relative to the first
        EXPECT_EQ(ext[i].externalKind, MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
        EXPECT_EQ(ext[i].externalId, i < 6 ? 0u : i < 9 ? 1u : 2u) << i;
    }
    auto kernels = take<msptiActivityKernel>(MSPTI_ACTIVITY_KIND_KERNEL);
    auto apis = take<msptiActivityApi>(MSPTI_ACTIVITY_KIND_API);
    ASSERT_EQ(kernels.size(), 1u);
    ASSERT_EQ(apis.size(), 1u);
    EXPECT_EQ(kernels[0].correlationId, base + 7);
    EXPECT_EQ(apis[0].correlationId, base + 7);
}

TEST_F(Interposer, RangesAndMarksOnAStreamGiveHostAndDeviceMarkers) {
    enable({MSPTI_ACTIVITY_KIND_MARKER});
    mstxRangeId id = mstxRangeStartA("range", stream_);
    ASSERT_NE(id, 0u);
    mstxRangeEnd(id);
    mstxMarkA("mark", stream_);
    mstxMarkA("host only", nullptr);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), 0);
    auto markers = take<msptiActivityMarker>(MSPTI_ACTIVITY_KIND_MARKER);
    std::vector<msptiActivityMarker> host, device;
    for (const auto &m : markers) (m.sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_HOST ? host : device).push_back(m);
    ASSERT_EQ(host.size(), 4u);
    ASSERT_EQ(device.size(), 3u);
    EXPECT_EQ(host[0].flag, MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE);
    EXPECT_EQ(host[1].flag, MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE);
    EXPECT_EQ(host[2].flag, MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE);
    EXPECT_EQ(host[3].flag, MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS);
    const msptiActivityFlag flags[] = {MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE,
                                       MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE,
                                       MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE};
    for (size_t i = 0; i < device.size(); ++i) {
        EXPECT_EQ(device[i].flag, flags[i]);
        EXPECT_EQ(device[i].id, host[i].id);
        EXPECT_EQ(device[i].objectId.ds.deviceId, 2u);
        EXPECT_EQ(device[i].objectId.ds.streamId, stream_id(stream_));
        EXPECT_STREQ(device[i].name, "");
        EXPECT_STREQ(device[i].domain, "");
        EXPECT_GT(device[i].timestamp, 1000000000000000000ull);
    }
    EXPECT_EQ(device[0].id, id);
    EXPECT_LE(device[0].timestamp, device[1].timestamp);
}

TEST_F(Interposer, HcclOpGivesOneRecordWithBandwidthAndNoMarkers) {
    enable({MSPTI_ACTIVITY_KIND_HCCL, MSPTI_ACTIVITY_KIND_MARKER});
    HcclComm comm = nullptr;
    ASSERT_EQ(fakeCommCreate(4, "127.0.0.1%lo_60000_0_1234567890123456", &comm), 0);
    std::vector<float> send(1024, 1.0f), recv(1024);
    ASSERT_EQ(HcclAllReduce(send.data(), recv.data(), 1024, 4 /*FP32*/, 0, comm, stream_), 0);
    ASSERT_EQ(HcclBarrier(comm, stream_), 0);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), 0);
    auto hccl = take<msptiActivityHccl>(MSPTI_ACTIVITY_KIND_HCCL);
    ASSERT_EQ(hccl.size(), 1u);  // the barrier gives none
    EXPECT_STREQ(hccl[0].name, "HcclAllReduce");
    EXPECT_STREQ(hccl[0].commName, "127.0.0.1%lo_60000_0_1234567890123456");
    EXPECT_LT(hccl[0].start, hccl[0].end);
    EXPECT_DOUBLE_EQ(hccl[0].bandWidth, 4096.0 / static_cast<double>(hccl[0].end - hccl[0].start));
    EXPECT_EQ(hccl[0].ds.deviceId, 2u);
    EXPECT_EQ(hccl[0].ds.streamId, stream_id(stream_));
    EXPECT_TRUE(take<msptiActivityMarker>(MSPTI_ACTIVITY_KIND_MARKER).empty());
    HcclCommDestroy(comm);
}

TEST_F(Interposer, RejectedHcclOpGivesNoRecord) {
    enable({MSPTI_ACTIVITY_KIND_HCCL, MSPTI_ACTIVITY_KIND_MARKER});
    HcclComm comm = nullptr;
    ASSERT_EQ(fakeCommCreate(2, "c", &comm), 0);
    std::vector<float> buf(16, 1.0f);
    EXPECT_EQ(HcclAllReduce(nullptr, buf.data(), 16, 4, 0, comm, stream_), 2);
    ASSERT_EQ(HcclAllReduce(buf.data(), buf.data(), 16, 4, 0, comm, stream_), 0);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), 0);
    auto hccl = take<msptiActivityHccl>(MSPTI_ACTIVITY_KIND_HCCL);
    ASSERT_EQ(hccl.size(), 1u);
    EXPECT_GT(hccl[0].bandWidth, 0.0);
    EXPECT_TRUE(take<msptiActivityMarker>(MSPTI_ACTIVITY_KIND_MARKER).empty());
    HcclCommDestroy(comm);
}

TEST_F(Interposer, CollectiveGivesCommunicationAndMatchingApiRecord) {
    enable({MSPTI_ACTIVITY_KIND_COMMUNICATION, MSPTI_ACTIVITY_KIND_API});
    HcclComm comm = nullptr;
    ASSERT_EQ(fakeCommCreate(2, "group_name_0", &comm), 0);
    std::vector<float> buf(64, 1.0f);
    ASSERT_EQ(HcclAllReduce(buf.data(), buf.data(), 64, 4, 0, comm, stream_), 0);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), 0);
    auto comms = take<msptiActivityCommunication>(MSPTI_ACTIVITY_KIND_COMMUNICATION);
    auto apis = take<msptiActivityApi>(MSPTI_ACTIVITY_KIND_API);
    ASSERT_EQ(comms.size(), 1u);
    ASSERT_EQ(apis.size(), 1u);
    EXPECT_STREQ(comms[0].name, "hcom_allReduce_");
    EXPECT_STREQ(comms[0].commName, "group_name_0");
    EXPECT_STREQ(comms[0].algType, "RING");
    EXPECT_EQ(comms[0].dataType, MSPTI_ACTIVITY_COMMUNICATION_FP32);
    EXPECT_EQ(comms[0].count, 64u);
    EXPECT_LE(comms[0].start, comms[0].end);
    EXPECT_STREQ(apis[0].name, comms[0].name);
    EXPECT_EQ(apis[0].correlationId, comms[0].correlationId);
    EXPECT_LT(apis[0].start, apis[0].end);  // the launch spans the interposed call, not one instant
    HcclCommDestroy(comm);
}

// The device-channel counters: what was read and parsed, and a task's begin and end that no task
// track announced (written straight into the driver's SoC log), counted as unmatched, with no record.
TEST_F(Interposer, DeviceStatsCountWhatWasReadAndEndsWithNoTrack) {
    EXPECT_EQ(msptiExtDeviceGetStats(nullptr), MSPTI_ERROR_INVALID_PARAMETER);
    enable({MSPTI_ACTIVITY_KIND_KERNEL});
    msptiExtDeviceStats before{};
    ASSERT_EQ(msptiExtDeviceGetStats(&before), MSPTI_SUCCESS);
    constexpr int kKernels = 10;
    for (int i = 0; i < kKernels; ++i) ASSERT_EQ(aclrtLaunchKernel(nullptr, 1, nullptr, 0, stream_), 0);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), 0);
    ASSERT_EQ(take<msptiActivityKernel>(MSPTI_ACTIVITY_KIND_KERNEL).size(), static_cast<size_t>(kKernels));
    Collector::instance().clear();
    msptiExtDeviceStats mid{};
    ASSERT_EQ(msptiExtDeviceGetStats(&mid), MSPTI_SUCCESS);
    EXPECT_EQ(mid.records - before.records, 2u * kKernels) << "a begin and an end per kernel";
    EXPECT_GT(mid.bytes, before.bytes);
    EXPECT_EQ(mid.unmatched, before.unmatched);
    EXPECT_EQ(mid.malformed, before.malformed);
    // Task id 0xfff0 of this stream was never tracked (the fake runtime counts up from 1).
    const uint32_t stream = stream_id(stream_), task = 0xfff0;
    ASSERT_EQ(vnpuHalWriteTaskLog(2, stream, task, 0, vnpuHalTicks(1000)), 0);
    ASSERT_EQ(vnpuHalWriteTaskLog(2, stream, task, 1, vnpuHalTicks(2000)), 0);
    EXPECT_TRUE(take<msptiActivityKernel>(MSPTI_ACTIVITY_KIND_KERNEL).empty());
    msptiExtDeviceStats after{};
    ASSERT_EQ(msptiExtDeviceGetStats(&after), MSPTI_SUCCESS);
    EXPECT_EQ(after.records - mid.records, 2u);
    EXPECT_EQ(after.unmatched - mid.unmatched, 2u);
    uint64_t dropped = 0;
    ASSERT_EQ(msptiExtActivityGetNumDroppedRecords(MSPTI_ACTIVITY_KIND_KERNEL, &dropped), MSPTI_SUCCESS);
    EXPECT_EQ(dropped, 0u) << "no KERNEL record was made for it, so none was dropped";
}

TEST_F(Interposer, ThreadsWithOwnStreamsEachGetTheirKernelsInOrder) {
    enable({MSPTI_ACTIVITY_KIND_KERNEL});
    constexpr int kThreads = 4, kKernels = 500;
    std::vector<uint32_t> ids(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([t, &ids] {
            aclrtSetDevice(t);
            aclrtStream s = nullptr;
            aclrtCreateStream(&s);
            ids[t] = stream_id(s);
            for (int i = 0; i < kKernels; ++i) aclrtLaunchKernel(nullptr, 1, nullptr, 0, s);
            aclrtSynchronizeStream(s);
            aclrtDestroyStream(s);
        });
    }
    for (auto &th : threads) th.join();
    auto kernels = take<msptiActivityKernel>(MSPTI_ACTIVITY_KIND_KERNEL);
    ASSERT_EQ(kernels.size(), static_cast<size_t>(kThreads * kKernels));
    for (int t = 0; t < kThreads; ++t) {
        uint64_t last_end = 0, last_id = 0;
        int n = 0;
        for (const auto &k : kernels) {
            if (k.ds.streamId != ids[t]) continue;
            ++n;
            EXPECT_EQ(k.ds.deviceId, static_cast<uint32_t>(t));
            EXPECT_LE(last_end, k.start);
            EXPECT_GT(k.correlationId, last_id);
            last_end = k.end;
            last_id = k.correlationId;
        }
        EXPECT_EQ(n, kKernels);
    }
}

TEST_F(Interposer, NothingIsRecordedWhileKindsAreOff) {
    void *dev = nullptr;
    aclrtMalloc(&dev, 8, 0);
    aclrtLaunchKernel(nullptr, 1, nullptr, 0, stream_);
    aclrtSynchronizeStream(stream_);
    aclrtFree(dev);
    EXPECT_TRUE(Collector::instance().all().empty());
}

TEST(HcclBandwidth, FollowsMsptiFormulas) {
    using mspti::device::hccl_bandwidth;
    using mspti::device::hccl_type_size;
    EXPECT_DOUBLE_EQ(hccl_bandwidth(1, 0, 100), 0.01);
    EXPECT_DOUBLE_EQ(hccl_bandwidth(2, 0, 100), 0.02);
    EXPECT_EQ(hccl_bandwidth(100, 100, 100), 0.0);
    EXPECT_EQ(hccl_bandwidth(0, 0, 100), 0.0);
    EXPECT_EQ(hccl_type_size(4), 4u);
    EXPECT_EQ(hccl_type_size(12), 16u);
    EXPECT_EQ(hccl_type_size(14), 0u);  // HIF8: no value
    EXPECT_EQ(hccl_type_size(-1), 0u);
}

}  // namespace
