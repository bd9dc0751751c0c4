// Fixture for tests of MARKER records: collects with MARKER enabled, and cleans up after.
#pragma once

#include <vector>

#include <gtest/gtest.h>

#include "mspti/mspti.h"
#include "record_collector.h"

namespace mspti_test {

class MarkerCollectionTest : public ::testing::Test {
protected:
    void SetUp() override {
        RecordCollector::instance().install();
        ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
    }
    void TearDown() override {
        msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
        msptiActivityFlushAll(1);
        RecordCollector::instance().clear();
    }
    // Every marker record so far, after a flush.
    std::vector<msptiActivityMarker> Flushed() {
        msptiActivityFlushAll(1);
        return RecordCollector::instance().of_kind<msptiActivityMarker>(MSPTI_ACTIVITY_KIND_MARKER);
    }
};

}  // namespace mspti_test
