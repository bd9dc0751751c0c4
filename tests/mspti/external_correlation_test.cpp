// External correlation stacks: one per thread and kind (our decision; msPTI shares them).
#include <thread>

#include <gtest/gtest.h>

#include "core/activity_engine.h"
#include "core/correlation.h"
#include "mspti/mspti.h"
#include "record_collector.h"

using mspti_test::RecordCollector;

TEST(ExternalCorrelation, PushPopIsLastInFirstOutPerKind) {
    auto custom0 = MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, unknown = MSPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN;
    ASSERT_EQ(msptiActivityPushExternalCorrelationId(custom0, 0), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityPushExternalCorrelationId(custom0, 1), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityPushExternalCorrelationId(unknown, 7), MSPTI_SUCCESS);
    uint64_t id = 0;
    EXPECT_EQ(msptiActivityPopExternalCorrelationId(custom0, &id), MSPTI_SUCCESS);
    EXPECT_EQ(id, 1u);
    EXPECT_EQ(msptiActivityPopExternalCorrelationId(unknown, &id), MSPTI_SUCCESS);
    EXPECT_EQ(id, 7u);
    EXPECT_EQ(msptiActivityPopExternalCorrelationId(custom0, nullptr), MSPTI_SUCCESS);  // NULL discards
    EXPECT_EQ(msptiActivityPopExternalCorrelationId(custom0, &id), MSPTI_ERROR_QUEUE_EMPTY);
}

TEST(ExternalCorrelation, StacksBelongToTheirThread) {
    ASSERT_EQ(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 5), MSPTI_SUCCESS);
    msptiResult other = MSPTI_SUCCESS;
    std::thread([&] {
        uint64_t id;
        other = msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &id);
    }).join();
    EXPECT_EQ(other, MSPTI_ERROR_QUEUE_EMPTY);
    uint64_t id = 0;
    EXPECT_EQ(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &id), MSPTI_SUCCESS);
    EXPECT_EQ(id, 5u);
}

TEST(ExternalCorrelation, EachNewCorrelationIdIsTiedToEveryNonEmptyStack) {
    RecordCollector::instance().install();
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, 11);
    msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN, 22);
    uint64_t first = mspti::correlation::generate();
    msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN, nullptr);
    uint64_t second = mspti::correlation::generate();
    EXPECT_EQ(second, first + 1);
    EXPECT_EQ(mspti::correlation::latest(), second);
    msptiActivityFlushAll(1);
    auto records =
        RecordCollector::instance().of_kind<msptiActivityExternalCorrelation>(MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[0].externalKind, MSPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN);  // ascending kind order
    EXPECT_EQ(records[0].externalId, 22u);
    EXPECT_EQ(records[0].correlationId, first);
    EXPECT_EQ(records[1].externalKind, MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1);
    EXPECT_EQ(records[1].correlationId, first);
    EXPECT_EQ(records[2].externalId, 11u);
    EXPECT_EQ(records[2].correlationId, second);
}
