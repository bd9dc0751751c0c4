// The interposed entry points no other test calls, over the virtual NPU: each one forwards to the
// runtime, returns exactly what the runtime returned, fires its ENTER/EXIT callbacks with its own
// id, and records what it did; where the vnpu answers "not supported", no record claims success.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "acl/acl.h"
#include "mspti/mspti.h"
#include "record_collector.h"
#ifdef VNPU_HAS_HCCL
#include "hccl/hccl.h"
#endif

using mspti_test::Collector;

namespace {

constexpr aclError kAclNotSupported = 200001;  // ACL_ERROR_API_NOT_SUPPORT
constexpr int kHcclNotSupported = 5;  // HCCL_E_NOT_SUPPORT

struct Call {
    msptiCallbackDomain domain;
    msptiCallbackId cbid;
    std::string name;
    int enters = 0;
    int exits = 0;
    int returned = -1;
};
std::vector<Call> g_calls;

void OnCallback(void *, msptiCallbackDomain domain, msptiCallbackId cbid, const msptiCallbackData *d) {
    if (d->callbackSite == MSPTI_API_ENTER) {
        g_calls.push_back(Call{domain, cbid, d->functionName, 1, 0, -1});
        return;
    }
    for (auto it = g_calls.rbegin(); it != g_calls.rend(); ++it) {
        if (it->name == d->functionName && it->exits == 0) {
            it->exits = 1;
            it->returned = d->functionReturnValue != nullptr ? *static_cast<const int *>(d->functionReturnValue) : -1;
            return;
        }
    }
    g_calls.push_back(Call{domain, cbid, d->functionName, 0, 1, -1});  // an EXIT without its ENTER
}

class EntryPoints : public ::testing::Test {
protected:
    void SetUp() override {
        Collector::instance().install();
        ASSERT_EQ(aclrtSetDevice(1), ACL_SUCCESS);
        ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
        for (auto kind : {MSPTI_ACTIVITY_KIND_MEMORY, MSPTI_ACTIVITY_KIND_MEMCPY, MSPTI_ACTIVITY_KIND_MEMSET})
            ASSERT_EQ(msptiActivityEnable(kind), MSPTI_SUCCESS);
        ASSERT_EQ(msptiSubscribe(&subscriber_, &OnCallback, nullptr), MSPTI_SUCCESS);
        ASSERT_EQ(msptiEnableDomain(1, subscriber_, MSPTI_CB_DOMAIN_RUNTIME), MSPTI_SUCCESS);
        ASSERT_EQ(msptiEnableDomain(1, subscriber_, MSPTI_CB_DOMAIN_HCCL), MSPTI_SUCCESS);
        Collector::instance().clear();
        g_calls.clear();
    }
    void TearDown() override {
        msptiUnsubscribe(subscriber_);
        for (int k = MSPTI_ACTIVITY_KIND_MARKER; k < MSPTI_ACTIVITY_KIND_COUNT; ++k)
            msptiActivityDisable(static_cast<msptiActivityKind>(k));
        aclrtDestroyStream(stream_);
        aclrtResetDevice(1);
    }
    /// The one call seen: its callbacks came as an ENTER/EXIT pair under `cbid`, EXIT carrying `rc`.
    static void ExpectOneCall(const char *name, msptiCallbackDomain domain, msptiCallbackId cbid, int rc) {
        ASSERT_EQ(g_calls.size(), 1u) << name;
        EXPECT_EQ(g_calls[0].name, name);
        EXPECT_EQ(g_calls[0].domain, domain) << name;
        EXPECT_EQ(g_calls[0].cbid, cbid) << name;
        EXPECT_EQ(g_calls[0].enters, 1) << name;
        EXPECT_EQ(g_calls[0].exits, 1) << name;
        EXPECT_EQ(g_calls[0].returned, rc) << name;
        g_calls.clear();
    }
    aclrtStream stream_ = nullptr;
    msptiSubscriberHandle subscriber_ = nullptr;
};

}  // namespace

TEST_F(EntryPoints, MallocVariantsAllocateAndRecordLikeMalloc) {
    void *withCfg = nullptr, *forScheduler = nullptr, *cached = nullptr;
    ASSERT_EQ(aclrtMallocWithCfg(&withCfg, 256, ACL_MEM_MALLOC_HUGE_FIRST, nullptr), ACL_SUCCESS);
    ExpectOneCall("aclrtMallocWithCfg", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC, ACL_SUCCESS);
    ASSERT_EQ(aclrtMallocForTaskScheduler(&forScheduler, 512, ACL_MEM_MALLOC_HUGE_FIRST, nullptr), ACL_SUCCESS);
    ExpectOneCall("aclrtMallocForTaskScheduler", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC, ACL_SUCCESS);
    ASSERT_EQ(aclrtMallocCached(&cached, 1024, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ExpectOneCall("aclrtMallocCached", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC, ACL_SUCCESS);
    for (void *p : {withCfg, forScheduler, cached}) ASSERT_EQ(aclrtFree(p), ACL_SUCCESS);
    g_calls.clear();

    auto mem = Collector::instance().take<msptiActivityMemory>(MSPTI_ACTIVITY_KIND_MEMORY);
    ASSERT_EQ(mem.size(), 6u);
    const void *pointers[] = {withCfg, forScheduler, cached};
    const uint64_t sizes[] = {256, 512, 1024};
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(mem[i].memoryOperationType, MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION) << i;
        EXPECT_EQ(mem[i].address, reinterpret_cast<uint64_t>(pointers[i])) << i;
        EXPECT_EQ(mem[i].bytes, sizes[i]) << i;
        EXPECT_EQ(mem[i].deviceId, 1u) << i;
        EXPECT_NE(mem[i].correlationId, 0u) << i;
        // The release of the same block carries its size too.
        EXPECT_EQ(mem[3 + i].memoryOperationType, MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) << i;
        EXPECT_EQ(mem[3 + i].address, mem[i].address) << i;
        EXPECT_EQ(mem[3 + i].bytes, sizes[i]) << i;
    }
}

TEST_F(EntryPoints, FlushAndInvalidatePassTheRuntimesAnswerThrough) {
    void *dev = nullptr;
    ASSERT_EQ(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    g_calls.clear();
    EXPECT_EQ(aclrtMemFlush(dev, 4096), ACL_SUCCESS);
    ExpectOneCall("aclrtMemFlush", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_FLUSH_CACHE, ACL_SUCCESS);
    EXPECT_EQ(aclrtMemInvalidate(dev, 4096), ACL_SUCCESS);
    ExpectOneCall("aclrtMemInvalidate", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_INVALID_CACHE, ACL_SUCCESS);
    // The runtime's own errors come back unchanged.
    EXPECT_EQ(aclrtMemFlush(nullptr, 16), ACL_ERROR_INVALID_PARAM);
    ExpectOneCall("aclrtMemFlush", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_FLUSH_CACHE, ACL_ERROR_INVALID_PARAM);
    int local = 0;
    EXPECT_EQ(aclrtMemInvalidate(&local, sizeof(local)), ACL_ERROR_RT_PARAM_INVALID);
    ExpectOneCall("aclrtMemInvalidate", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_INVALID_CACHE,
                  ACL_ERROR_RT_PARAM_INVALID);
    ASSERT_EQ(aclrtFree(dev), ACL_SUCCESS);
    // Neither touches memory: no MEMORY record besides the allocation and its release.
    EXPECT_EQ(Collector::instance().take<msptiActivityMemory>(MSPTI_ACTIVITY_KIND_MEMORY).size(), 2u);
}

TEST_F(EntryPoints, Memcpy2dAsyncCopiesAndRecordsWidthTimesHeight) {
    constexpr size_t kWidth = 16, kHeight = 4, kPitch = 32;
    void *dev = nullptr;
    ASSERT_EQ(aclrtMalloc(&dev, kPitch * kHeight, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    std::vector<unsigned char> host(kPitch * kHeight, 7), back(kPitch * kHeight, 0);
    g_calls.clear();
    ASSERT_EQ(aclrtMemcpy2dAsync(dev, kPitch, host.data(), kPitch, kWidth, kHeight, ACL_MEMCPY_HOST_TO_DEVICE, stream_),
              ACL_SUCCESS);
    ExpectOneCall("aclrtMemcpy2dAsync", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MEM_CPY2D_ASYNC, ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy2d(back.data(), kPitch, dev, kPitch, kWidth, kHeight, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (size_t row = 0; row < kHeight; ++row) EXPECT_EQ(back[row * kPitch + kWidth - 1], 7) << row;
    // A bad width is the runtime's error, unchanged. As msPTI, the interposer does not check the
    // return code: the attempt is still recorded (docs/compatibility.md, "Interposed functions").
    g_calls.clear();
    const aclError bad = aclrtMemcpy2dAsync(dev, kPitch, host.data(), kPitch, kWidth + kPitch, kHeight,
                                            ACL_MEMCPY_HOST_TO_DEVICE, stream_);
    EXPECT_NE(bad, ACL_SUCCESS);
    ExpectOneCall("aclrtMemcpy2dAsync", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MEM_CPY2D_ASYNC, bad);
    ASSERT_EQ(aclrtFree(dev), ACL_SUCCESS);

    auto cpy = Collector::instance().take<msptiActivityMemcpy>(MSPTI_ACTIVITY_KIND_MEMCPY);
    ASSERT_EQ(cpy.size(), 3u);
    EXPECT_EQ(cpy[2].bytes, (kWidth + kPitch) * kHeight);
    EXPECT_EQ(cpy[2].isAsync, 1u);
    EXPECT_EQ(cpy[0].copyKind, MSPTI_ACTIVITY_MEMCPY_KIND_HTOD);
    EXPECT_EQ(cpy[0].bytes, kWidth * kHeight);
    EXPECT_EQ(cpy[0].isAsync, 1u);
    EXPECT_EQ(cpy[0].deviceId, 1u);
    int32_t sid = -1;
    ASSERT_EQ(aclrtStreamGetId(stream_, &sid), ACL_SUCCESS);
    EXPECT_EQ(cpy[0].streamId, static_cast<uint32_t>(sid));
    EXPECT_EQ(cpy[1].copyKind, MSPTI_ACTIVITY_MEMCPY_KIND_DTOH);
    EXPECT_EQ(cpy[1].bytes, kWidth * kHeight);
    EXPECT_EQ(cpy[1].isAsync, 0u);
}

TEST_F(EntryPoints, UnsupportedMemoryCallsPassTheErrorThroughAndClaimNoMemory) {
    void *virt = reinterpret_cast<void *>(0x1234);
    aclrtDrvMemHandle handle = nullptr;
    uint64_t shareable = 0;
    int32_t pid = 1;
    EXPECT_EQ(aclrtReserveMemAddress(&virt, 4096, 0, nullptr, 0), kAclNotSupported);
    ExpectOneCall("aclrtReserveMemAddress", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_RESERVE_MEM_ADDRESS,
                  kAclNotSupported);
    EXPECT_EQ(aclrtReleaseMemAddress(virt), kAclNotSupported);
    ExpectOneCall("aclrtReleaseMemAddress", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_RELEASE_MEM_ADDRESS,
                  kAclNotSupported);
    EXPECT_EQ(aclrtMallocPhysical(&handle, 4096, nullptr, 0), kAclNotSupported);
    ExpectOneCall("aclrtMallocPhysical", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC_PHYSICAL, kAclNotSupported);
    EXPECT_EQ(aclrtFreePhysical(handle), kAclNotSupported);
    ExpectOneCall("aclrtFreePhysical", MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_FREE_PHYSICAL, kAclNotSupported);
    EXPECT_EQ(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, 0, &shareable), kAclNotSupported);
    ExpectOneCall("aclrtMemExportToShareableHandle", MSPTI_CB_DOMAIN_RUNTIME,
                  MSPTI_CBID_RUNTIME_MEM_EXPORT_TO_SHAREABLE_HANDLE, kAclNotSupported);
    EXPECT_EQ(aclrtMemImportFromShareableHandle(shareable, 1, &handle), kAclNotSupported);
    ExpectOneCall("aclrtMemImportFromShareableHandle", MSPTI_CB_DOMAIN_RUNTIME,
                  MSPTI_CBID_RUNTIME_MEM_IMPORT_FROM_SHAREABLE_HANDLE, kAclNotSupported);
    EXPECT_EQ(aclrtMemSetPidToShareableHandle(shareable, &pid, 1), kAclNotSupported);
    ExpectOneCall("aclrtMemSetPidToShareableHandle", MSPTI_CB_DOMAIN_RUNTIME,
                  MSPTI_CBID_RUNTIME_MEM_SET_PID_TO_SHAREABLE_HANDLE, kAclNotSupported);
    // Reserve and release write MEMORY records even when they fail (msPTI does not check the return
    // code), but none claims memory: the failed reservation has no address, the release no bytes.
    // The physical and shareable-handle calls write none.
    auto mem = Collector::instance().take<msptiActivityMemory>(MSPTI_ACTIVITY_KIND_MEMORY);
    ASSERT_EQ(mem.size(), 2u);
    EXPECT_EQ(mem[0].memoryOperationType, MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION);
    EXPECT_EQ(mem[0].address, 0u);
    EXPECT_EQ(mem[1].memoryOperationType, MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE);
    EXPECT_EQ(mem[1].address, 0x1234u);
    EXPECT_EQ(mem[1].bytes, 0u);
}

#ifdef VNPU_HAS_HCCL
TEST_F(EntryPoints, UnsupportedHcclCallsPassTheErrorThroughAndRecordNothing) {
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_HCCL), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_COMMUNICATION), MSPTI_SUCCESS);
    int32_t device = 1;
    HcclComm comm = nullptr;
    ASSERT_EQ(HcclCommInitAll(1, &device, &comm), HCCL_SUCCESS);
    g_calls.clear();
    uint64_t counts[1] = {4}, displs[1] = {0};
    float send[4] = {1, 2, 3, 4}, recv[4] = {};
    EXPECT_EQ(HcclAlltoAllV(send, counts, displs, HCCL_DATA_TYPE_FP32, recv, counts, displs, HCCL_DATA_TYPE_FP32, comm,
                            stream_),
              kHcclNotSupported);
    ExpectOneCall("HcclAlltoAllV", MSPTI_CB_DOMAIN_HCCL, MSPTI_CBID_HCCL_ALL_TO_ALLV, kHcclNotSupported);
    HcclSendRecvItem item{};
    item.sendRecvType = HCCL_SEND;
    item.buf = send;
    item.count = 4;
    item.dataType = HCCL_DATA_TYPE_FP32;
    item.remoteRank = 0;
    EXPECT_EQ(HcclBatchSendRecv(&item, 1, comm, stream_), kHcclNotSupported);
    ExpectOneCall("HcclBatchSendRecv", MSPTI_CB_DOMAIN_HCCL, MSPTI_CBID_HCCL_SENDRECV, kHcclNotSupported);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    ASSERT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
    // A failed operation never reached the device: no HCCL record (it would carry a bandwidth) and
    // no COMMUNICATION record.
    EXPECT_TRUE(Collector::instance().take<msptiActivityHccl>(MSPTI_ACTIVITY_KIND_HCCL).empty());
    EXPECT_TRUE(Collector::instance().take<msptiActivityCommunication>(MSPTI_ACTIVITY_KIND_COMMUNICATION).empty());
}
#endif
