// mspti::batch_callback_live(): how a batch callback that hands records on one by one (the Java
// binding's per-record delivery) learns that its monitor let go of it in the middle of a batch.
#include <atomic>
#include <chrono>
#include <functional>

#include <gtest/gtest.h>

#include "monitor_binding.h"
#include "monitor_test_support.h"

using mspti::MsptiResult;

namespace {

/** Hands each record on (here: counts it) while batch_callback_live() says so. */
class PerRecordBatch final : public mspti::BatchCallback {
public:
    explicit PerRecordBatch(std::chrono::microseconds per_record = {}) : per_record_(per_record) {}
    void on_batch(const mspti::RecordBatch &batch) override {
        for (size_t i = 0; i < batch.count && mspti::batch_callback_live(); ++i) {
            auto until = std::chrono::steady_clock::now() + per_record_;
            while (std::chrono::steady_clock::now() < until) {}
            handed.fetch_add(1);
            if (on_record) on_record();
        }
        live_after.store(mspti::batch_callback_live());
    }
    std::function<void()> on_record;
    std::atomic<uint64_t> handed{0};
    std::atomic<bool> live_after{true};

private:
    std::chrono::microseconds per_record_;
};

}  // namespace

TEST(BatchCallbackLive, FalseOutsideABatchCallback) { EXPECT_FALSE(mspti::batch_callback_live()); }

TEST(BatchCallbackLive, TrueThroughABatchUntilAStopFromInsideIt) {
    mspti::MstxMonitor m;
    PerRecordBatch b;
    b.on_record = [&] {
        if (b.handed.load() == 3) m.stop();
    };
    ASSERT_EQ(m.start_batch(&b), MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 10; ++i) mstxMarkA("live", nullptr);
    EXPECT_EQ(m.flush_all(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(b.handed.load(), 3u);  // the stop let go of the callback at once
    EXPECT_FALSE(b.live_after.load());
    EXPECT_FALSE(mspti::batch_callback_live());
}

TEST(BatchCallbackLive, TurnsFalseWhenAStopFromAnotherThreadReachesItsTimeout) {
    mspti::MstxMonitor m;
    ASSERT_EQ(m.set_stop_timeout(100), MsptiResult::MSPTI_SUCCESS);
    PerRecordBatch b(std::chrono::microseconds(50));  // 100,000 records: 5 s in full
    ASSERT_EQ(m.start_batch(&b), MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 100000; ++i) mstxMarkA("backlog", nullptr);
    EXPECT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    m.set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs);
    EXPECT_LT(b.handed.load(), 100000u);  // the stop did not wait for the whole backlog
    EXPECT_FALSE(b.live_after.load());
}
