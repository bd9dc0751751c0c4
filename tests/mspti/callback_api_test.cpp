// Subscribe / unsubscribe / enable rules of the Callback API (docs/compatibility.md, "Callback API rules"). This binary links
// libmspti directly and no other runtime, so libmspti's entry points are the ones resolved:
// interposition is in effect.
#include <thread>

#include <gtest/gtest.h>

#include "callback/subscriber.h"
#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"

namespace {

void Callback(void *, msptiCallbackDomain, msptiCallbackId, const msptiCallbackData *) {}

class CallbackApi : public ::testing::Test {
protected:
    void TearDown() override {
        if (handle_ != nullptr) msptiUnsubscribe(handle_);
    }
    msptiSubscriberHandle handle_ = nullptr;
};

}  // namespace

TEST_F(CallbackApi, InterpositionIsInEffectWhenLinkedFirst) { EXPECT_TRUE(msptiExtIsInterposing()); }

TEST_F(CallbackApi, SubscribeOnceAtATime) {
    EXPECT_EQ(msptiSubscribe(nullptr, &Callback, nullptr), MSPTI_ERROR_INVALID_PARAMETER);
    ASSERT_EQ(msptiSubscribe(&handle_, &Callback, nullptr), MSPTI_SUCCESS);
    ASSERT_NE(handle_, nullptr);
    msptiSubscriberHandle second = nullptr;
    EXPECT_EQ(msptiSubscribe(&second, &Callback, nullptr), MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    EXPECT_EQ(second, nullptr);
}

TEST_F(CallbackApi, UnsubscribeRules) {
    EXPECT_EQ(msptiUnsubscribe(reinterpret_cast<msptiSubscriberHandle>(0x1)), MSPTI_SUCCESS);  // nobody subscribed
    ASSERT_EQ(msptiSubscribe(&handle_, nullptr, nullptr), MSPTI_SUCCESS);  // NULL callback allowed
    EXPECT_EQ(msptiUnsubscribe(reinterpret_cast<msptiSubscriberHandle>(0x1)), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiUnsubscribe(handle_), MSPTI_SUCCESS);
    handle_ = nullptr;
    for (int i = 0; i < 3; ++i) {  // subscribe again, repeatedly
        ASSERT_EQ(msptiSubscribe(&handle_, &Callback, nullptr), MSPTI_SUCCESS);
        ASSERT_EQ(msptiUnsubscribe(handle_), MSPTI_SUCCESS);
        handle_ = nullptr;
    }
}

TEST_F(CallbackApi, AStaleHandleIsRejectedEvenAfterManyCycles) {
    ASSERT_EQ(msptiSubscribe(&handle_, &Callback, nullptr), MSPTI_SUCCESS);
    msptiSubscriberHandle stale = handle_;
    ASSERT_EQ(msptiUnsubscribe(handle_), MSPTI_SUCCESS);
    // Past the number of recycled subscriber objects, so a handle that is the object's address
    // would come round again.
    for (int cycle = 1; cycle <= 200; ++cycle) {
        ASSERT_EQ(msptiSubscribe(&handle_, &Callback, nullptr), MSPTI_SUCCESS);
        ASSERT_EQ(msptiEnableDomain(1, stale, MSPTI_CB_DOMAIN_RUNTIME), MSPTI_ERROR_INVALID_PARAMETER) << cycle;
        ASSERT_EQ(msptiEnableCallback(1, stale, MSPTI_CB_DOMAIN_RUNTIME, 1), MSPTI_ERROR_INVALID_PARAMETER) << cycle;
        ASSERT_EQ(msptiUnsubscribe(stale), MSPTI_ERROR_INVALID_PARAMETER) << cycle;
        EXPECT_NE(handle_, stale);
        ASSERT_EQ(msptiUnsubscribe(handle_), MSPTI_SUCCESS);
    }
    handle_ = nullptr;
}

TEST_F(CallbackApi, EnableWithoutSubscriberIsANoOp) {
    EXPECT_EQ(msptiEnableCallback(1, nullptr, MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH), MSPTI_SUCCESS);
    EXPECT_EQ(msptiEnableDomain(1, nullptr, MSPTI_CB_DOMAIN_HCCL), MSPTI_SUCCESS);
    EXPECT_FALSE(mspti::callback::enabled(MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH));
}

TEST_F(CallbackApi, EnableChecksHandleDomainAndId) {
    ASSERT_EQ(msptiSubscribe(&handle_, &Callback, nullptr), MSPTI_SUCCESS);
    auto foreign = reinterpret_cast<msptiSubscriberHandle>(0x1);
    EXPECT_EQ(msptiEnableCallback(1, foreign, MSPTI_CB_DOMAIN_RUNTIME, 1), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiEnableCallback(1, handle_, MSPTI_CB_DOMAIN_INVALID, 1), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiEnableCallback(1, handle_, MSPTI_CB_DOMAIN_SIZE, 1), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiEnableCallback(1, handle_, MSPTI_CB_DOMAIN_RUNTIME, 1024), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiEnableCallback(1, handle_, MSPTI_CB_DOMAIN_RUNTIME, 64), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiEnableDomain(1, foreign, MSPTI_CB_DOMAIN_HCCL), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiEnableDomain(1, handle_, MSPTI_CB_DOMAIN_SIZE), MSPTI_ERROR_INVALID_PARAMETER);
    // None of the rejected calls enabled anything.
    for (uint32_t id = 0; id < 64; ++id) {
        EXPECT_FALSE(mspti::callback::enabled(MSPTI_CB_DOMAIN_RUNTIME, id));
        EXPECT_FALSE(mspti::callback::enabled(MSPTI_CB_DOMAIN_HCCL, id));
    }
}

TEST_F(CallbackApi, EnableSetsAndClearsSingleIds) {
    ASSERT_EQ(msptiSubscribe(&handle_, &Callback, nullptr), MSPTI_SUCCESS);
    EXPECT_EQ(msptiEnableCallback(1, handle_, MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH), MSPTI_SUCCESS);
    EXPECT_EQ(msptiEnableCallback(1, handle_, MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC), MSPTI_SUCCESS);
    EXPECT_EQ(msptiEnableCallback(1, handle_, MSPTI_CB_DOMAIN_RUNTIME, 63), MSPTI_SUCCESS);  // any id < 64
    EXPECT_EQ(msptiEnableCallback(0, handle_, MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC), MSPTI_SUCCESS);
    EXPECT_TRUE(mspti::callback::enabled(MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH));
    EXPECT_FALSE(mspti::callback::enabled(MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC));
    EXPECT_FALSE(mspti::callback::enabled(MSPTI_CB_DOMAIN_HCCL, MSPTI_CBID_RUNTIME_LAUNCH));
}

TEST_F(CallbackApi, EnableDomainCoversEveryDefinedId) {
    ASSERT_EQ(msptiSubscribe(&handle_, &Callback, nullptr), MSPTI_SUCCESS);
    ASSERT_EQ(msptiEnableDomain(1, handle_, MSPTI_CB_DOMAIN_HCCL), MSPTI_SUCCESS);
    for (uint32_t id = 1; id < MSPTI_CBID_HCCL_SIZE; ++id)
        EXPECT_TRUE(mspti::callback::enabled(MSPTI_CB_DOMAIN_HCCL, id)) << id;
    EXPECT_FALSE(mspti::callback::enabled(MSPTI_CB_DOMAIN_HCCL, 0));
    EXPECT_FALSE(mspti::callback::enabled(MSPTI_CB_DOMAIN_HCCL, MSPTI_CBID_HCCL_SIZE));
    EXPECT_FALSE(mspti::callback::enabled(MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH));
    ASSERT_EQ(msptiEnableDomain(1, handle_, MSPTI_CB_DOMAIN_RUNTIME), MSPTI_SUCCESS);
    for (uint32_t id = 1; id < MSPTI_CBID_RUNTIME_SIZE; ++id)
        EXPECT_TRUE(mspti::callback::enabled(MSPTI_CB_DOMAIN_RUNTIME, id)) << id;
    ASSERT_EQ(msptiEnableCallback(0, handle_, MSPTI_CB_DOMAIN_HCCL, MSPTI_CBID_HCCL_BROADCAST), MSPTI_SUCCESS);
    EXPECT_FALSE(mspti::callback::enabled(MSPTI_CB_DOMAIN_HCCL, MSPTI_CBID_HCCL_BROADCAST));
    EXPECT_TRUE(mspti::callback::enabled(MSPTI_CB_DOMAIN_HCCL, MSPTI_CBID_HCCL_SENDRECV));
}

namespace {
struct Counts {
    int enter = 0, exit = 0;
    uint32_t last_cbid = 0;
};
void CountingCallback(void *userdata, msptiCallbackDomain, msptiCallbackId cbid, const msptiCallbackData *data) {
    auto *counts = static_cast<Counts *>(userdata);
    (data->callbackSite == MSPTI_API_ENTER ? counts->enter : counts->exit)++;
    counts->last_cbid = cbid;
}
}  // namespace

TEST_F(CallbackApi, DispatchReachesTheSubscriberOnlyForEnabledIds) {
    Counts counts;
    ASSERT_EQ(msptiSubscribe(&handle_, &CountingCallback, &counts), MSPTI_SUCCESS);
    msptiCallbackData data{};
    data.callbackSite = MSPTI_API_ENTER;
    mspti::callback::dispatch(MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH, &data);  // not enabled yet
    EXPECT_EQ(counts.enter, 0);
    ASSERT_EQ(msptiEnableCallback(1, handle_, MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH), MSPTI_SUCCESS);
    mspti::callback::dispatch(MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH, &data);
    data.callbackSite = MSPTI_API_EXIT;
    mspti::callback::dispatch(MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH, &data);
    mspti::callback::dispatch(MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC, &data);
    EXPECT_EQ(counts.enter, 1);
    EXPECT_EQ(counts.exit, 1);
    EXPECT_EQ(counts.last_cbid, static_cast<uint32_t>(MSPTI_CBID_RUNTIME_LAUNCH));
    ASSERT_EQ(msptiUnsubscribe(handle_), MSPTI_SUCCESS);
    handle_ = nullptr;
    mspti::callback::dispatch(MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH, &data);  // after unsubscribe
    EXPECT_EQ(counts.exit, 1);
}
