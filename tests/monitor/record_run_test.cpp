// mspti::RecordRunCallback: a binding's per-record callback that is handed a run of records at a
// time (the Java binding builds its record objects in Java from the run's bytes). The session
// counts its tally as per-record delivery: what it handed over, its errors, and the records it
// could not hand over once let go of, as for a C++ per-record callback.
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>

#include <gtest/gtest.h>

#include "monitor_binding.h"
#include "monitor_test_support.h"

using mspti::MsptiResult;

namespace {

bool IsMark(const uint8_t *record) {
    const auto *m = reinterpret_cast<const msptiActivityMarker *>(record);
    return m->flag == MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS ||
           m->flag == MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE;
}

/**
 * Hands each mark of a run on (here: counts it, optionally "throwing" every `fail_every`th) while
 * record_run_live() says so; range halves are passed over. Tallies as the Java binding does.
 */
class MarkRun final : public mspti::RecordRunCallback {
public:
    explicit MarkRun(std::chrono::microseconds per_record = {}) : per_record_(per_record) {}
    void on_run(const mspti::RecordBatch &run) override {
        uint64_t handed = 0, passed = 0, errors = 0;
        for (size_t i = 0; i < run.count && mspti::record_run_live(); ++i) {
            if (!IsMark(static_cast<const uint8_t *>(run.data) + i * run.stride)) {
                ++passed;
                continue;
            }
            auto until = std::chrono::steady_clock::now() + per_record_;
            while (std::chrono::steady_clock::now() < until) {}
            ++handed;
            const uint64_t n = marks.fetch_add(1) + 1;
            if (fail_every != 0 && n % fail_every == 0) ++errors;  // the binding reported it
            if (on_record) on_record();
        }
        if (tally) mspti::record_run_tally(handed, passed, errors);
        live_after.store(mspti::record_run_live());
    }
    std::function<void()> on_record;
    std::atomic<uint64_t> marks{0};
    std::atomic<bool> live_after{true};
    uint64_t fail_every = 0;
    bool tally = true;

private:
    std::chrono::microseconds per_record_;
};

/** Counts marks handed to a C++ per-record callback. */
class CountMarks final : public mspti::MarkCallback {
public:
    void on_record(const mspti::MarkerData &) override { marks.fetch_add(1); }
    std::atomic<uint64_t> marks{0};
};

}  // namespace

TEST(RecordRun, LiveIsFalseOutsideARunAndATallyThereChangesNothing) {
    EXPECT_FALSE(mspti::record_run_live());
    mspti::record_run_tally(1, 2, 3);  // ignored: no run in progress
}

TEST(RecordRun, NullCallbackIsRefusedAndStartsNothing) {
    mspti::MstxMonitor m;
    EXPECT_EQ(mspti::start_record_run(m, nullptr), MsptiResult::MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_FALSE(m.is_running());
}

TEST(RecordRun, CountsHandedRecordsNotPassedOnesAndTheReportedErrors) {
    mspti::MstxMonitor m;
    MarkRun run;
    run.fail_every = 10;
    ASSERT_EQ(mspti::start_record_run(m, &run), MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 1000; ++i) {
        mstxMarkA("mark", nullptr);
        if (i % 4 == 0) mstxRangeEnd(mstxRangeStartA("range", nullptr));  // two halves passed over
    }
    ASSERT_EQ(m.flush_all(), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(run.marks.load(), 1000u);
    const mspti::MonitorStats s = m.stats();
    EXPECT_EQ(s.delivered, 1000u);  // the 500 range halves were not for it
    EXPECT_EQ(s.callback_errors, 100u);
    EXPECT_EQ(s.dropped, 0u);
}

TEST(RecordRun, WithoutATallyTheWholeRunCountsAsHandedOver) {
    mspti::MstxMonitor m;
    MarkRun run;
    run.tally = false;
    ASSERT_EQ(mspti::start_record_run(m, &run), MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 50; ++i) mstxMarkA("mark", nullptr);
    ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(m.stats().delivered, 50u);
}

TEST(RecordRun, AStopFromInsideLetsGoAtOnceAndTheRestIsNotHandedOver) {
    mspti::MstxMonitor m;
    MarkRun run;
    run.on_record = [&] {
        if (run.marks.load() == 3) m.stop();
    };
    ASSERT_EQ(mspti::start_record_run(m, &run), MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 10; ++i) mstxMarkA("live", nullptr);
    EXPECT_EQ(m.flush_all(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(run.marks.load(), 3u);  // the stop let go of the callback at once
    EXPECT_FALSE(run.live_after.load());
    EXPECT_EQ(m.stats().delivered, 3u);
    EXPECT_FALSE(mspti::record_run_live());
}

TEST(RecordRun, AStopThatReachesItsTimeoutCountsEveryRecordNotHandedOverAsDropped) {
    mspti::MstxMonitor m;
    ASSERT_EQ(m.set_stop_timeout(100), MsptiResult::MSPTI_SUCCESS);
    MarkRun run(std::chrono::microseconds(50));  // 100,000 records: 5 s in full
    ASSERT_EQ(mspti::start_record_run(m, &run), MsptiResult::MSPTI_SUCCESS);
    constexpr uint64_t kMarks = 100000;
    for (uint64_t i = 0; i < kMarks; ++i) mstxMarkA("backlog", nullptr);
    EXPECT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    m.set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs);
    EXPECT_LT(run.marks.load(), kMarks);  // the stop did not wait for the whole backlog
    // (Whether a run was cut short depends on when the timeout fell: between two runs, the next
    // one is never called. The stop from inside, above, checks live_after.)
    const mspti::MonitorStats s = m.stats();
    EXPECT_EQ(s.delivered, run.marks.load());
    EXPECT_EQ(s.delivered + s.dropped, kMarks);  // every record handed over or counted dropped
}

TEST(RecordRun, BesideACppPerRecordMonitorEachGetsEveryRecord) {
    mspti::MstxMonitor a;
    mspti::MstxMonitor b;
    MarkRun run;
    CountMarks cpp;
    ASSERT_EQ(mspti::start_record_run(a, &run), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(b.start(&cpp, nullptr), MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 2000; ++i) mstxMarkA("both", nullptr);
    ASSERT_EQ(a.stop(), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(b.stop(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(run.marks.load(), 2000u);
    EXPECT_EQ(cpp.marks.load(), 2000u);
    EXPECT_EQ(a.stats().delivered, 2000u);
    EXPECT_EQ(b.stats().delivered, 2000u);
}
