// Events: record/synchronise/query, elapsed time, cross-stream waits.
#include <atomic>
#include <future>

#include "test_support.h"

using vnpu_test::DeviceTest;

namespace {

struct Gate {
    std::promise<void> open;
    std::shared_future<void> opened{open.get_future().share()};
};

void waitGate(void *arg) { static_cast<Gate *>(arg)->opened.wait(); }

}  // namespace

TEST_F(DeviceTest, EventCompletesWhenRecordedWorkHasRun) {
    aclrtEvent event = nullptr;
    ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
    aclrtEventRecordedStatus recorded = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    ASSERT_EQ(aclrtQueryEventStatus(event, &recorded), ACL_SUCCESS);
    EXPECT_EQ(recorded, ACL_EVENT_RECORDED_STATUS_COMPLETE);  // nothing recorded yet
    Gate gate;
    ASSERT_EQ(aclrtLaunchHostFunc(stream_, waitGate, &gate), ACL_SUCCESS);
    ASSERT_EQ(aclrtRecordEvent(event, stream_), ACL_SUCCESS);
    aclrtEventStatus status = ACL_EVENT_STATUS_COMPLETE;
    ASSERT_EQ(aclrtQueryEvent(event, &status), ACL_SUCCESS);
    EXPECT_EQ(status, ACL_EVENT_STATUS_NOT_READY);
    gate.open.set_value();
    ASSERT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);
    ASSERT_EQ(aclrtQueryEvent(event, &status), ACL_SUCCESS);
    EXPECT_EQ(status, ACL_EVENT_STATUS_COMPLETE);
    EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(DeviceTest, ElapsedTimeIsNonNegativeBetweenTwoRecords) {
    aclrtEvent start = nullptr;
    aclrtEvent end = nullptr;
    ASSERT_EQ(aclrtCreateEvent(&start), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateEvent(&end), ACL_SUCCESS);
    float ms = -1.0f;
    EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    ASSERT_EQ(aclrtRecordEvent(start, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtRecordEvent(end, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
    EXPECT_GE(ms, 0.0f);
    EXPECT_EQ(aclrtEventElapsedTime(nullptr, start, end), ACL_ERROR_INVALID_PARAM);
    aclrtDestroyEvent(start);
    aclrtDestroyEvent(end);
}

TEST_F(DeviceTest, StreamWaitEventOrdersWorkAcrossStreams) {
    aclrtStream other = nullptr;
    ASSERT_EQ(aclrtCreateStream(&other), ACL_SUCCESS);
    aclrtEvent event = nullptr;
    ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
    Gate gate;
    std::atomic<int> producerDone{0};
    std::atomic<int> consumerSaw{-1};
    struct Ctx {
        std::atomic<int> *done;
        std::atomic<int> *saw;
    } ctx{&producerDone, &consumerSaw};
    ASSERT_EQ(aclrtLaunchHostFunc(stream_, waitGate, &gate), ACL_SUCCESS);
    ASSERT_EQ(aclrtLaunchHostFunc(
                  stream_, [](void *a) { static_cast<Ctx *>(a)->done->store(1); }, &ctx),
              ACL_SUCCESS);
    ASSERT_EQ(aclrtRecordEvent(event, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtStreamWaitEvent(other, event), ACL_SUCCESS);
    ASSERT_EQ(aclrtLaunchHostFunc(
                  other, [](void *a) { static_cast<Ctx *>(a)->saw->store(static_cast<Ctx *>(a)->done->load()); }, &ctx),
              ACL_SUCCESS);
    gate.open.set_value();
    ASSERT_EQ(aclrtSynchronizeStream(other), ACL_SUCCESS);
    EXPECT_EQ(consumerSaw.load(), 1);
    aclrtDestroyEvent(event);
    aclrtDestroyStream(other);
}

TEST_F(DeviceTest, BadEventHandlesAreRejected) {
    int dummy = 0;
    EXPECT_EQ(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtRecordEvent(&dummy, stream_), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    EXPECT_EQ(aclrtSynchronizeEvent(&dummy), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    EXPECT_EQ(aclrtDestroyEvent(&dummy), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    aclrtEvent event = nullptr;
    ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
    EXPECT_EQ(aclrtRecordEvent(event, &dummy), ACL_ERROR_INVALID_RESOURCE_HANDLE);
    aclrtEventStatus status = ACL_EVENT_STATUS_NOT_READY;
    ASSERT_EQ(aclrtQueryEvent(event, &status), ACL_SUCCESS);
    EXPECT_EQ(status, ACL_EVENT_STATUS_COMPLETE);  // the failed record left no pending record behind
    EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}
