// Devices, contexts, streams: lifecycle, ordering and bad input.
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "test_support.h"
#include "hccl/hccl_types.h"
#include "vnpu/vnpu_stream.h"

using vnpu_test::DeviceTest;

TEST(Runtime, ReportsEightDevicesByDefault) {
    uint32_t count = 0;
    ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
    EXPECT_EQ(count, 8u);
    EXPECT_EQ(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(Runtime, AcceptsSampleInitOrderWithAclInitLast) {
    aclrtContext context = nullptr;
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtSetDevice(1), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateContext(&context, 1), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetCurrentContext(context), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
    int32_t device = -1;
    EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
    EXPECT_EQ(device, 1);
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyContext(context), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(1), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

TEST(Runtime, RejectsBadDeviceIdsWithoutChangingTheCurrentDevice) {
    ASSERT_EQ(aclrtSetDevice(2), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetDevice(8), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_EQ(aclrtResetDevice(99), ACL_ERROR_RT_INVALID_DEVICEID);
    aclrtContext context = nullptr;
    EXPECT_EQ(aclrtCreateContext(&context, 8), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_EQ(aclrtCreateContext(nullptr, 0), ACL_ERROR_INVALID_PARAM);
    int32_t device = -1;
    EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
    EXPECT_EQ(device, 2);
    EXPECT_EQ(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtResetDevice(2), ACL_SUCCESS);
}

TEST(Runtime, GetDeviceFailsOnAThreadWithoutDevice) {
    std::thread([] {
        int32_t device = -1;
        EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
        aclrtStream stream = nullptr;
        EXPECT_EQ(aclrtCreateStream(&stream), ACL_ERROR_RT_CONTEXT_NULL);
    }).join();
}

TEST(Runtime, ContextSwitchesTheThreadsDevice) {
    aclrtContext c3 = nullptr;
    aclrtContext c4 = nullptr;
    ASSERT_EQ(aclrtCreateContext(&c3, 3), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateContext(&c4, 4), ACL_SUCCESS);
    aclrtContext current = nullptr;
    ASSERT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
    EXPECT_EQ(current, c4);
    ASSERT_EQ(aclrtSetCurrentContext(c3), ACL_SUCCESS);
    int32_t device = -1;
    ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
    EXPECT_EQ(device, 3);
    EXPECT_EQ(aclrtDestroyContext(c4), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetCurrentContext(c4), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    EXPECT_EQ(aclrtDestroyContext(c4), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    EXPECT_EQ(aclrtDestroyContext(c3), ACL_SUCCESS);
}

TEST_F(DeviceTest, StreamRunsTasksInEnqueueOrder) {
    struct Log {
        std::mutex mu;
        std::vector<int> order;
    } log;
    struct Item {
        Log *log;
        int value;
    };
    std::vector<Item> items;
    for (int i = 0; i < 100; ++i) {
        items.push_back({&log, i});
    }
    for (auto &item : items) {
        ASSERT_EQ(aclrtLaunchHostFunc(
                      stream_,
                      [](void *arg) {
                          auto *it = static_cast<Item *>(arg);
                          std::lock_guard<std::mutex> lock(it->log->mu);
                          it->log->order.push_back(it->value);
                      },
                      &item),
                  ACL_SUCCESS);
    }
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    std::lock_guard<std::mutex> lock(log.mu);
    ASSERT_EQ(log.order.size(), 100u);
    for (int i = 0; i < 100; ++i) {
        EXPECT_EQ(log.order[static_cast<size_t>(i)], i);
    }
}

TEST_F(DeviceTest, NullStreamIsTheDefaultStream) {
    std::atomic<int> ran{0};
    ASSERT_EQ(aclrtLaunchHostFunc(
                  nullptr, [](void *a) { static_cast<std::atomic<int> *>(a)->fetch_add(1); }, &ran),
              ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_EQ(ran.load(), 1);
    uint32_t device = 99;
    uint32_t defaultId = 99;
    uint32_t createdId = 99;
    ASSERT_EQ(vnpuStreamGetIds(nullptr, &device, &defaultId), 0);
    ASSERT_EQ(vnpuStreamGetIds(stream_, &device, &createdId), 0);
    EXPECT_EQ(device, 0u);
    EXPECT_NE(defaultId, createdId);
    int32_t aclId = -1;
    ASSERT_EQ(aclrtStreamGetId(stream_, &aclId), ACL_SUCCESS);
    EXPECT_EQ(static_cast<uint32_t>(aclId), createdId);
}

TEST_F(DeviceTest, BadStreamHandlesAreRejected) {
    int dummy = 0;
    EXPECT_EQ(aclrtSynchronizeStream(&dummy), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    EXPECT_EQ(aclrtDestroyStream(&dummy), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtLaunchHostFunc(stream_, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
    int32_t id = 0;
    EXPECT_EQ(aclrtStreamGetId(&dummy, &id), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    uint32_t dev = 0;
    uint32_t sid = 0;
    EXPECT_EQ(vnpuStreamGetIds(&dummy, &dev, &sid), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    EXPECT_EQ(vnpuStreamGetIds(stream_, nullptr, &sid), ACL_ERROR_INVALID_PARAM);
}

TEST_F(DeviceTest, DestroyStreamRunsQueuedWorkFirst) {
    aclrtStream extra = nullptr;
    ASSERT_EQ(aclrtCreateStream(&extra), ACL_SUCCESS);
    std::atomic<int> ran{0};
    for (int i = 0; i < 10; ++i) {
        ASSERT_EQ(aclrtLaunchHostFunc(
                      extra, [](void *a) { static_cast<std::atomic<int> *>(a)->fetch_add(1); }, &ran),
                  ACL_SUCCESS);
    }
    ASSERT_EQ(aclrtDestroyStream(extra), ACL_SUCCESS);
    EXPECT_EQ(ran.load(), 10);
    EXPECT_EQ(aclrtSynchronizeStream(extra), ACL_ERROR_INVALID_RESOURCE_HANDLE);
}

// A device synchronisation that begins while another thread destroys a stream waits for that stream's
// queued work: memory freed after the synchronisation began (the facade's deferred frees) may be in use
// by it. The destroyed stream's first task holds it until the synchronisation has had every chance to
// return early; a return before the task ran is the failure.
TEST_F(DeviceTest, SynchronizeDeviceWaitsForAStreamBeingDestroyed) {
    aclrtStream dying = nullptr;
    ASSERT_EQ(aclrtCreateStream(&dying), ACL_SUCCESS);
    struct Held {
        std::promise<void> release;
        std::shared_future<void> released{release.get_future().share()};
        std::atomic<bool> ran{false};
    } held;
    ASSERT_EQ(aclrtLaunchHostFunc(
                  dying,
                  [](void *a) {
                      auto *h = static_cast<Held *>(a);
                      h->released.wait();
                      h->ran = true;
                  },
                  &held),
              ACL_SUCCESS);
    std::thread destroyer([&] { EXPECT_EQ(aclrtDestroyStream(dying), ACL_SUCCESS); });
    int32_t id = -1;
    while (aclrtStreamGetId(dying, &id) == ACL_SUCCESS) {
        std::this_thread::yield();  // until the destroyer has taken the handle away
    }
    auto synchronized = std::async(std::launch::async, [&] {
        EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
        EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
        const bool ran = held.ran.load();
        EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
        return ran;
    });
    // Not a timing assertion: a correct runtime passes whatever this wait lasts; a wrong one is caught
    // when its synchronisation returns within it, which it does at once.
    const bool returned_early = synchronized.wait_for(std::chrono::milliseconds(200)) == std::future_status::ready;
    held.release.set_value();
    EXPECT_FALSE(returned_early) << "aclrtSynchronizeDevice returned while a stream being destroyed had work queued";
    EXPECT_TRUE(synchronized.get()) << "aclrtSynchronizeDevice returned before the destroyed stream's task ran";
    destroyer.join();
}

TEST(Runtime, FinalizeWithWorkQueuedDoesNotHang) {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(5), ACL_SUCCESS);
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    std::atomic<int> ran{0};
    for (int i = 0; i < 5; ++i) {
        ASSERT_EQ(aclrtLaunchHostFunc(
                      stream, [](void *a) { static_cast<std::atomic<int> *>(a)->fetch_add(1); }, &ran),
                  ACL_SUCCESS);
    }
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    EXPECT_EQ(ran.load(), 5);
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    int32_t device = -1;
    EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
}

extern "C" int vnpuHeadersCompileAsC(void);

TEST(Headers, CompileAsCWithCannSizes) {
    EXPECT_EQ(vnpuHeadersCompileAsC(), 4108 + 1);
    EXPECT_EQ(sizeof(HcclRootInfo), 4108u);
    EXPECT_EQ(sizeof(aclrtLaunchKernelAttrValue), 16u);
    EXPECT_EQ(sizeof(aclrtLaunchKernelAttr), 20u);
    EXPECT_EQ(sizeof(aclrtLaunchKernelCfg), 16u);
    EXPECT_EQ(sizeof(HcclSendRecvItem), 32u);
}
