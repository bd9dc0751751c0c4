// HcclMonitor when libmspti.so does not interpose the runtime: this executable links libvnpu
// before libmspti, so the runtime's aclInit is the one the process resolves (no LD_PRELOAD).
#include <dlfcn.h>

#include <gtest/gtest.h>

#include "monitor_test_support.h"

using namespace monitor_test;
using mspti::MsptiResult;

namespace {
void ExpectNothingRunning() {
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_MARKER));
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_HCCL));
}
}  // namespace

TEST(MonitorBadInput, HcclWithoutInterpositionStartsNothing) {
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_HCCL), MSPTI_ERROR_WITHOUT_LD_PRELOAD)
        << "this process should not be interposed (link order)";
    mspti::HcclMonitor h;
    mspti::MstxMonitor x;
    // One session first, so that libmspti's own worker (started on first registration) is counted.
    ASSERT_EQ(x.start(nullptr, nullptr), MsptiResult::MSPTI_SUCCESS);
    x.stop();
    const int threads = ThreadCount();
    EXPECT_EQ(h.start([](const mspti::HcclData &) {}), MsptiResult::MSPTI_ERROR_WITHOUT_LD_PRELOAD);
    EXPECT_NE(mspti::last_error_message().find("LD_PRELOAD"), std::string::npos) << mspti::last_error_message();
    EXPECT_FALSE(h.is_running());
    ExpectNothingRunning();
    EXPECT_EQ(ThreadCount(), threads);
    // With another monitor running, the failure leaves that one alone.
    MstxCollector c;
    ASSERT_EQ(x.start(&c, nullptr), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(h.start([](const mspti::HcclData &) {}), MsptiResult::MSPTI_ERROR_WITHOUT_LD_PRELOAD);
    mstxMarkA("still_running", nullptr);
    x.stop();
    EXPECT_EQ(c.marks().size(), 1u);
}
