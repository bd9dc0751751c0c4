// Bad input: each returns its code, says what was wrong in last_error_message(), changes nothing.
#include <gtest/gtest.h>

#include "monitor_test_support.h"

using namespace monitor_test;
using mspti::MsptiResult;

namespace {
constexpr MsptiResult kInvalid = MsptiResult::MSPTI_ERROR_INVALID_PARAMETER;

void ExpectNothingRunning() {
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_KERNEL));
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_MARKER));
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_HCCL));
}
}  // namespace

TEST(MonitorBadInput, NullCallbacks) {
    mspti::KernelMonitor k;
    mspti::HcclMonitor h;
    mspti::CommunicationMonitor c;
    mspti::MstxMonitor x;
    const int threads = ThreadCount();
    struct Case {
        const char *what;
        MsptiResult result;
        const char *needle;
    } cases[] = {
        {"KernelMonitor.start(NULL)", k.start(static_cast<mspti::KernelCallback *>(nullptr)), "KernelMonitor.start"},
        {"KernelMonitor.start(empty function)", k.start(std::function<void(const mspti::KernelData &)>()),
         "KernelMonitor.start"},
        {"KernelMonitor.start_batch(NULL)", k.start_batch(nullptr), "KernelMonitor.start_batch"},
        {"HcclMonitor.start(NULL)", h.start(static_cast<mspti::HcclCallback *>(nullptr)), "HcclMonitor.start"},
        {"CommunicationMonitor.start(NULL)", c.start(static_cast<mspti::CommunicationCallback *>(nullptr)),
         "CommunicationMonitor.start"},
        {"CommunicationMonitor.start_batch(NULL)", c.start_batch(nullptr), "CommunicationMonitor.start_batch"},
        {"MstxMonitor.start_batch(NULL)", x.start_batch(nullptr), "MstxMonitor.start_batch"},
    };
    for (const Case &tc : cases) {
        EXPECT_EQ(tc.result, kInvalid) << tc.what;
        EXPECT_NE(mspti::last_error_message().find("NULL"), std::string::npos) << tc.what;
    }
    // Each message names its call: check the last one and one re-run.
    EXPECT_EQ(k.start_batch(nullptr), kInvalid);
    EXPECT_NE(mspti::last_error_message().find("KernelMonitor.start_batch"), std::string::npos)
        << mspti::last_error_message();
    EXPECT_FALSE(k.is_running());
    EXPECT_FALSE(x.is_running());
    ExpectNothingRunning();
    EXPECT_EQ(ThreadCount(), threads);  // no delivery thread was started
}

TEST(MonitorBadInput, NullCallbackOnARunningMonitorChangesNothing) {
    mspti::KernelMonitor k;
    ASSERT_EQ(k.start([](const mspti::KernelData &) {}), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(k.start(static_cast<mspti::KernelCallback *>(nullptr)), kInvalid);
    EXPECT_NE(mspti::last_error_message().find("KernelMonitor.start"), std::string::npos);
    EXPECT_EQ(k.start_batch(nullptr), kInvalid);
    EXPECT_TRUE(k.is_running());
    EXPECT_EQ(k.stop(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(k.stop(), MsptiResult::MSPTI_SUCCESS);  // stopping again: a no-op
    ExpectNothingRunning();
}

TEST(MonitorBadInput, BufferSizeOutsideOneTo256Megabytes) {
    mspti::KernelMonitor k;
    for (int64_t mb : {int64_t{0}, int64_t{-1}, int64_t{257}, int64_t{1} << 40}) {
        EXPECT_EQ(k.set_buffer_size(mb), kInvalid) << mb;
        EXPECT_NE(mspti::last_error_message().find(std::to_string(mb)), std::string::npos)
            << mspti::last_error_message();
    }
    EXPECT_EQ(k.set_buffer_size(1), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(k.set_buffer_size(256), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(k.set_buffer_size(8), MsptiResult::MSPTI_SUCCESS);
}

TEST(MonitorBadInput, DomainNames) {
    mspti::MstxMonitor x;
    EXPECT_EQ(x.enable_domain(""), kInvalid);
    EXPECT_NE(mspti::last_error_message().find("empty"), std::string::npos);
    EXPECT_EQ(x.disable_domain(""), kInvalid);
    EXPECT_EQ(x.enable_domain(std::string(255, 'd')), kInvalid);
    EXPECT_NE(mspti::last_error_message().find("255"), std::string::npos);
    // The message names the value: the start of the name and its length.
    EXPECT_EQ(x.enable_domain("long_" + std::string(295, 'n')), kInvalid);
    EXPECT_NE(mspti::last_error_message().find("the domain name \"long_" + std::string(27, 'n') +
                                               "...\" has 300 characters"),
              std::string::npos)
        << mspti::last_error_message();
    EXPECT_EQ(x.disable_domain(std::string(300, 'd')), kInvalid);
    EXPECT_EQ(x.disable_domain(std::string(254, 'd')), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(x.enable_domain(std::string(254, 'd')), MsptiResult::MSPTI_SUCCESS);
}

TEST(MonitorBadInput, LastErrorIsPerThread) {
    mspti::KernelMonitor k;
    EXPECT_EQ(k.set_buffer_size(0), kInvalid);
    std::string other = "unset";
    std::thread([&] { other = mspti::last_error_message(); }).join();
    EXPECT_EQ(other, "");
    EXPECT_NE(mspti::last_error_message(), "");
}
