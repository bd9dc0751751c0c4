// Monitor settings as msPTI's Python package has them: start() on a running monitor switches its
// callback; flush_period delivers during a run; stats() carries the records dropped of its kind.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>

#include <gtest/gtest.h>

#include "monitor_test_support.h"

using namespace monitor_test;
using mspti::MsptiResult;

namespace {

std::vector<std::string> Names(const std::vector<mspti::MarkerData> &marks) {
    std::vector<std::string> names;
    for (const auto &m : marks) names.push_back(m.name);
    return names;
}

}  // namespace

TEST(MonitorSettings, StartOnARunningMonitorSwitchesToTheNewCallback) {
    MstxCollector first, second;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(&first, &first), MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("one", nullptr);
    mstxRangeEnd(mstxRangeStartA("r1", nullptr));
    ASSERT_EQ(mspti::Monitor::flush_all(), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(m.start(&second, &second), MsptiResult::MSPTI_SUCCESS);
    EXPECT_TRUE(m.is_running());
    EXPECT_TRUE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_MARKER));
    mstxMarkA("two", nullptr);
    mstxRangeEnd(mstxRangeStartA("r2", nullptr));
    ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_MARKER));
    EXPECT_EQ(Names(first.marks()), std::vector<std::string>{"one"});
    EXPECT_EQ(Names(second.marks()), std::vector<std::string>{"two"});
    ASSERT_EQ(first.ranges().size(), 1u);
    ASSERT_EQ(second.ranges().size(), 1u);
    EXPECT_EQ(second.ranges()[0].name, "r2");
    EXPECT_EQ(m.stats().delivered, 4u);  // one monitor's counters across the switch
}

TEST(MonitorSettings, StartSwitchesBetweenRecordAndBatchCallbacks) {
    struct Batches : mspti::BatchCallback {
        std::atomic<uint64_t> records{0};
        void on_batch(const mspti::RecordBatch &b) override { records += b.count; }
    } batches;
    std::vector<std::string> seen;
    mspti::KernelMonitor kernels;  // a running monitor of a kind that produces nothing here
    ASSERT_EQ(kernels.start([](const mspti::KernelData &) {}), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(kernels.start([](const mspti::KernelData &) {}), MsptiResult::MSPTI_SUCCESS);
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start([&](const mspti::MarkerData &d) { seen.push_back(d.name); }, nullptr),
              MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("record", nullptr);
    ASSERT_EQ(m.flush_all(), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(m.start_batch(&batches), MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 10; ++i) mstxMarkA("batch", nullptr);
    ASSERT_EQ(m.flush_all(), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(m.start([&](const mspti::MarkerData &d) { seen.push_back(d.name); }, nullptr),
              MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("record_again", nullptr);
    m.stop();
    kernels.stop();
    EXPECT_EQ(seen, (std::vector<std::string>{"record", "record_again"}));
    EXPECT_EQ(batches.records.load(), 10u);
    // A NULL callback changes nothing on a running monitor.
    ASSERT_EQ(m.start(nullptr, nullptr), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(m.start_batch(nullptr), MsptiResult::MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_TRUE(m.is_running());
    m.stop();
}

TEST(MonitorSettings, ProcessWideCallsWorkOnTheClass) {
    EXPECT_FALSE(mspti::Monitor::any_running());
    EXPECT_EQ(mspti::KernelMonitor::set_buffer_size(4), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(mspti::KernelMonitor::set_buffer_size(0), MsptiResult::MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(mspti::MstxMonitor::flush_all(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(mspti::MstxMonitor::flush_period(0), MsptiResult::MSPTI_SUCCESS);
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(nullptr, nullptr), MsptiResult::MSPTI_SUCCESS);
    EXPECT_TRUE(mspti::Monitor::any_running());
    EXPECT_EQ(m.set_buffer_size(8), MsptiResult::MSPTI_SUCCESS);  // applies at the next start
    m.stop();
    EXPECT_FALSE(mspti::Monitor::any_running());
}

TEST(MonitorSettings, FlushPeriodDeliversPartlyFilledBuffersDuringTheRun) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(mspti::Monitor::flush_period(20), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(m.start(&c, nullptr), MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("during_the_run", nullptr);
    ASSERT_TRUE(c.wait_marks(1));  // a few records in an 8 MB buffer: only the period delivers them before stop()
    EXPECT_TRUE(m.is_running());
    EXPECT_EQ(Names(c.marks()), std::vector<std::string>{"during_the_run"});
    m.stop();
    EXPECT_EQ(mspti::Monitor::flush_period(0), MsptiResult::MSPTI_SUCCESS);
}

TEST(MonitorSettings, StatsCarryTheRecordsDroppedOfTheMonitorsKind) {
    mspti::MstxMonitor m, idle;  // idle: of the same kind, never started
    mspti::KernelMonitor k;
    ASSERT_EQ(m.set_stop_timeout(10), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(m.start(
                  [](const mspti::MarkerData &) {
                      // A slow consumer (~50 us a record): the stop leaves most of the backlog.
                      auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
                      while (std::chrono::steady_clock::now() < until) {}
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(k.start([](const mspti::KernelData &) {}), MsptiResult::MSPTI_SUCCESS);
    uint64_t before = 0;
    ASSERT_EQ(msptiExtActivityGetNumDroppedRecords(MSPTI_ACTIVITY_KIND_MARKER, &before), MSPTI_SUCCESS);
    for (int i = 0; i < 20000; ++i) mstxMarkA("backlog", nullptr);
    m.stop();  // libmspti counts the backlog no monitor received as dropped MARKER records
    k.stop();
    uint64_t after = 0;
    ASSERT_EQ(msptiExtActivityGetNumDroppedRecords(MSPTI_ACTIVITY_KIND_MARKER, &after), MSPTI_SUCCESS);
    ASSERT_GE(after - before, 100u);
    EXPECT_EQ(m.stats().dropped, after - before);
    EXPECT_EQ(m.stats().delivered + m.stats().dropped, 20000u);
    EXPECT_EQ(idle.stats().dropped, after - before);  // libmspti's drops of the kind: shared
    EXPECT_EQ(k.stats().dropped, 0u);
    mspti::MstxMonitor later;
    EXPECT_EQ(later.stats().dropped, 0u);  // drops before a monitor was created are not its own
    ASSERT_EQ(m.set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs), MsptiResult::MSPTI_SUCCESS);
}

TEST(MonitorSettings, SwitchingWhileRecordsStreamGivesEachRecordToExactlyOneCallback) {
    MstxCollector a, b;
    mspti::MstxMonitor m;
    // Every record must arrive: no bound on stop() or on a switch waiting for the buffer in
    // progress (sanitizer builds deliver slowly).
    ASSERT_EQ(m.set_stop_timeout(-1), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(m.start(&a, nullptr), MsptiResult::MSPTI_SUCCESS);
    MarkProducer producer;
    for (int i = 0; i < 200; ++i) {
        MstxCollector &next = i % 2 == 0 ? b : a;
        ASSERT_EQ(m.start(&next, nullptr), MsptiResult::MSPTI_SUCCESS);
        if (i % 50 == 0) m.flush_all();
    }
    producer.stop();
    ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    std::set<uint64_t> ids;
    for (const auto &r : a.marks()) ids.insert(r.id);
    for (const auto &r : b.marks()) ids.insert(r.id);
    EXPECT_EQ(ids.size(), a.marks().size() + b.marks().size());  // none went to both
    EXPECT_EQ(m.stats().delivered, ids.size());
    EXPECT_EQ(ids.size(), producer.produced());  // none went to neither
    EXPECT_EQ(m.stats().dropped, 0u);
    ASSERT_EQ(m.set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs), MsptiResult::MSPTI_SUCCESS);
}

// The generated monitors (schema/records.py) switch, refuse a null callback without a change, and
// reach the process-wide calls through their class, each of them.
template <typename M>
class GeneratedMonitorSettings : public ::testing::Test {};
using GeneratedMonitors = ::testing::Types<mspti::KernelMonitor, mspti::CommunicationMonitor, mspti::ApiMonitor>;
TYPED_TEST_SUITE(GeneratedMonitorSettings, GeneratedMonitors);

TYPED_TEST(GeneratedMonitorSettings, StartSwitchesAndANullCallbackChangesNothing) {
    EXPECT_EQ(TypeParam::flush_period(0), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(TypeParam::set_buffer_size(0), MsptiResult::MSPTI_ERROR_INVALID_PARAMETER);
    TypeParam m;
    ASSERT_EQ(m.start([](const auto &) {}), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(m.start([](const auto &) {}), MsptiResult::MSPTI_SUCCESS);
    EXPECT_TRUE(m.is_running());
    EXPECT_TRUE(TypeParam::any_running());
    EXPECT_EQ(m.start_batch(nullptr), MsptiResult::MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_TRUE(m.is_running());
    EXPECT_EQ(TypeParam::flush_all(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_FALSE(TypeParam::any_running());
}

// set_buffer_size is not a no-op: a full buffer holds size / record-size records, so doubling the
// size doubles the records per buffer and halves the number of buffers.
TEST(MonitorSettings, BufferSizeSetsTheRecordsPerBuffer) {
    struct Batches : mspti::BatchCallback {
        std::mutex mutex;
        std::vector<size_t> sizes;
        void on_batch(const mspti::RecordBatch &b) override {
            std::lock_guard<std::mutex> lock(mutex);
            sizes.push_back(b.count);
        }
    };
    const size_t record = msptiExtRecordSize(MSPTI_ACTIVITY_KIND_MARKER);
    size_t most[3] = {};
    size_t buffers[3] = {};
    for (int64_t mb : {1, 2}) {
        ASSERT_EQ(mspti::Monitor::set_buffer_size(mb), MsptiResult::MSPTI_SUCCESS);
        Batches batches;
        mspti::MstxMonitor m;
        ASSERT_EQ(m.start_batch(&batches), MsptiResult::MSPTI_SUCCESS);
        const size_t n = 4 * ((static_cast<size_t>(2) << 20) / record);  // 8 buffers of 1 MB, 4 of 2 MB
        for (size_t i = 0; i < n; ++i) mstxMarkA("fill", nullptr);
        ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
        size_t total = 0;
        for (size_t s : batches.sizes) total += s;
        EXPECT_EQ(total + m.stats().dropped, n) << mb << " MB";
        most[mb] = *std::max_element(batches.sizes.begin(), batches.sizes.end());
        buffers[mb] = batches.sizes.size();
        EXPECT_LE(most[mb], (static_cast<size_t>(mb) << 20) / record) << mb << " MB";
    }
    ASSERT_EQ(mspti::Monitor::set_buffer_size(8), MsptiResult::MSPTI_SUCCESS);  // the default again
    // The largest batch is a full buffer: twice as many records in a buffer twice the size.
    EXPECT_GT(most[1], (static_cast<size_t>(1) << 20) / record / 2);
    EXPECT_GE(most[2], 2 * most[1]) << most[1] << " records per 1 MB buffer";  // 2 MB / 56 may hold one more
    EXPECT_LE(most[2], 2 * most[1] + 1) << most[1] << " records per 1 MB buffer";
    EXPECT_GT(buffers[1], buffers[2]) << buffers[1] << " buffers of 1 MB, " << buffers[2] << " of 2 MB";
}
