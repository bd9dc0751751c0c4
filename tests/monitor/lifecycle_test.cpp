// Monitor lifecycle and the delivery thread: stop and flush from callbacks and other threads,
// exceptions, hooks, start/stop cycles, destruction, process exit.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "monitor_binding.h"
#include "monitor_test_support.h"

using namespace monitor_test;
using mspti::MsptiResult;

TEST(MonitorLifecycle, StopFromInsideTheCallbackDoesNotWaitForItself) {
    mspti::MstxMonitor m;
    std::atomic<int> calls{0};
    MsptiResult inner = MsptiResult::MSPTI_ERROR_INNER;
    ASSERT_EQ(m.start(
                  [&](const mspti::MarkerData &) {
                      if (calls.fetch_add(1) == 0) inner = m.stop();
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 10; ++i) mstxMarkA("stop_inside", nullptr);
    EXPECT_EQ(m.flush_all(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(calls.load(), 1);  // the rest of the buffer is not delivered to a stopped monitor
    EXPECT_EQ(m.stats().dropped, 9u);  // ... and is counted: it was collected before the stop
    EXPECT_EQ(inner, MsptiResult::MSPTI_SUCCESS);
    EXPECT_FALSE(m.is_running());
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_MARKER));
    // It starts again, on a fresh delivery thread.
    MstxCollector c;
    ASSERT_EQ(m.start(&c, nullptr), MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("again", nullptr);
    m.stop();
    ASSERT_EQ(c.marks().size(), 1u);
    EXPECT_EQ(c.marks()[0].name, "again");
}

namespace {
uint64_t marker_dropped() {
    uint64_t n = 0;
    EXPECT_EQ(msptiExtActivityGetNumDroppedRecords(MSPTI_ACTIVITY_KIND_MARKER, &n), MSPTI_SUCCESS);
    return n;
}
}  // namespace

TEST(MonitorLifecycle, StopReturnsWithinItsTimeoutAndCountsTheBacklogAsDropped) {
    mspti::MstxMonitor m;
    EXPECT_EQ(m.stop_timeout(), mspti::Monitor::kDefaultStopTimeoutMs);
    ASSERT_EQ(m.set_stop_timeout(100), MsptiResult::MSPTI_SUCCESS);
    std::atomic<uint64_t> calls{0};
    ASSERT_EQ(m.start(
                  [&](const mspti::MarkerData &) {
                      // A slow consumer: ~50 us a record, 100,000 records take 5 s to deliver.
                      auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
                      while (std::chrono::steady_clock::now() < until) {}
                      calls.fetch_add(1);
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    const uint64_t dropped_before = marker_dropped();
    for (int i = 0; i < 100000; ++i) mstxMarkA("backlog", nullptr);
    EXPECT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    const mspti::MonitorStats s = m.stats();
    EXPECT_EQ(s.delivered, calls.load());
    EXPECT_EQ(s.delivered + s.dropped, 100000u);
    EXPECT_GT(s.dropped, 0u);
    EXPECT_EQ(marker_dropped() - dropped_before, s.dropped);  // in libmspti's counters too
    EXPECT_EQ(m.set_stop_timeout(-2), MsptiResult::MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(m.set_stop_timeout(mspti::Monitor::kMaxStopTimeoutMs + 1), MsptiResult::MSPTI_ERROR_INVALID_PARAMETER);
    ASSERT_EQ(m.set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs), MsptiResult::MSPTI_SUCCESS);
}

namespace {
// A slow consumer: ~50 us a record, so 100,000 records take 5 s to deliver.
void slow_record() {
    auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    while (std::chrono::steady_clock::now() < until) {}
}
}  // namespace

TEST(MonitorLifecycle, DroppedCountsEachRecordOnceWhenAnotherMonitorOfTheKindTookIt) {
    mspti::MstxMonitor slow, fast;
    std::atomic<uint64_t> slow_calls{0}, fast_calls{0};
    ASSERT_EQ(slow.set_stop_timeout(100), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(slow.start(
                  [&](const mspti::MarkerData &) {
                      slow_record();
                      slow_calls.fetch_add(1);
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(fast.start([&](const mspti::MarkerData &) { fast_calls.fetch_add(1); }, nullptr),
              MsptiResult::MSPTI_SUCCESS);
    const uint64_t dropped_before = marker_dropped();
    for (int i = 0; i < 100000; ++i) mstxMarkA("shared", nullptr);
    EXPECT_EQ(slow.stop(), MsptiResult::MSPTI_SUCCESS);  // bounded: leaves most of its backlog
    ASSERT_EQ(fast.set_stop_timeout(-1), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(fast.stop(), MsptiResult::MSPTI_SUCCESS);  // unbounded: gets every record
    const mspti::MonitorStats s = slow.stats(), f = fast.stats();
    EXPECT_EQ(f.delivered, 100000u);
    EXPECT_EQ(f.dropped, 0u);
    // libmspti counts every record delivered (the fast monitor took each one) ...
    EXPECT_EQ(marker_dropped(), dropped_before);
    // ... and the slow monitor still counts what it never received, once.
    EXPECT_EQ(s.delivered, slow_calls.load());
    EXPECT_GT(s.dropped, 0u);
    EXPECT_EQ(s.delivered + s.dropped, 100000u);
    ASSERT_EQ(fast.set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs), MsptiResult::MSPTI_SUCCESS);
}

// Why the Monitors deliver on a thread of their own rather than inside libmspti's complete
// callback: libmspti hands buffers back in fill order, so a stop() that flushed (what it must do
// to deliver its backlog) would wait for another monitor's slow callback to finish its buffer
// (seconds here), whatever this monitor's stop timeout (docs/architecture.md).
TEST(MonitorLifecycle, StopIsBoundedWhileAnotherMonitorsCallbackIsSlow) {
    mspti::MstxMonitor slow, quick;
    std::atomic<uint64_t> slow_calls{0}, quick_calls{0};
    ASSERT_EQ(slow.start(
                  [&](const mspti::MarkerData &) {
                      slow_record();
                      slow_calls.fetch_add(1);
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(quick.start([&](const mspti::MarkerData &) { quick_calls.fetch_add(1); }, nullptr),
              MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 100000; ++i) mstxMarkA("shared", nullptr);
    EXPECT_EQ(quick.flush_period(1), MsptiResult::MSPTI_SUCCESS);
    while (slow_calls.load() == 0) std::this_thread::yield();  // the slow callback holds a buffer
    ASSERT_EQ(quick.set_stop_timeout(100), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(quick.stop(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(slow.stop(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(slow.flush_period(0), MsptiResult::MSPTI_SUCCESS);
    const mspti::MonitorStats q = quick.stats(), s = slow.stats();
    EXPECT_EQ(q.delivered, quick_calls.load());
    EXPECT_EQ(q.delivered + q.dropped, 100000u);  // every record once: delivered or counted
    EXPECT_GT(q.dropped, 0u);  // it did not wait out the slow callback's buffers
    EXPECT_EQ(s.delivered + s.dropped, 100000u);
    ASSERT_EQ(quick.set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs), MsptiResult::MSPTI_SUCCESS);
}

// What the bindings call at interpreter or JVM exit: every monitor stops within one stop timeout.
TEST(MonitorLifecycle, StopAllStopsEveryMonitorWithinOneStopTimeout) {
    mspti::MstxMonitor a, b;
    std::atomic<uint64_t> a_calls{0}, b_calls{0};
    ASSERT_EQ(a.start(
                  [&](const mspti::MarkerData &) {
                      slow_record();
                      a_calls.fetch_add(1);
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(b.start(
                  [&](const mspti::MarkerData &) {
                      slow_record();
                      b_calls.fetch_add(1);
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 100000; ++i) mstxMarkA("all", nullptr);  // 10 s of callbacks
    ASSERT_EQ(a.set_stop_timeout(300), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(mspti::Monitor::stop_all(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_FALSE(a.is_running());
    EXPECT_FALSE(b.is_running());
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_MARKER));
    const uint64_t a_at_stop = a_calls.load(), b_at_stop = b_calls.load();
    const mspti::MonitorStats sa = a.stats(), sb = b.stats();
    EXPECT_EQ(sa.delivered, a_at_stop);
    EXPECT_EQ(sa.delivered + sa.dropped, 100000u);
    EXPECT_EQ(sb.delivered + sb.dropped, 100000u);
    EXPECT_GT(sa.dropped, 0u);  // neither waited for its whole backlog
    EXPECT_GT(sb.dropped, 0u);
    EXPECT_EQ(mspti::Monitor::stop_all(), MsptiResult::MSPTI_SUCCESS);  // nothing running: a no-op
    EXPECT_EQ(a_calls.load(), a_at_stop);
    EXPECT_EQ(b_calls.load(), b_at_stop);
    ASSERT_EQ(a.set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs), MsptiResult::MSPTI_SUCCESS);
}

// A callback that never returns while the process exits (Java's System.exit() from a callback
// waits for the shutdown hook that calls stop_all()) does not hold stop_all() past its bound.
TEST(MonitorLifecycle, StopAllDoesNotWaitPastItsBoundForACallbackInProgress) {
    mspti::MstxMonitor m;
    std::mutex mutex;
    std::condition_variable cv;
    bool entered = false, release = false;
    ASSERT_EQ(m.start(
                  [&](const mspti::MarkerData &) {
                      std::unique_lock<std::mutex> lock(mutex);
                      entered = true;
                      cv.notify_all();
                      cv.wait(lock, [&] { return release; });
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("stuck", nullptr);
    EXPECT_EQ(m.flush_period(1), MsptiResult::MSPTI_SUCCESS);
    {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return entered; });
    }
    ASSERT_EQ(m.set_stop_timeout(100), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(mspti::Monitor::stop_all(), MsptiResult::MSPTI_ERROR_INNER);
    EXPECT_NE(mspti::last_error_message().find("still running"), std::string::npos);
    EXPECT_FALSE(m.is_running());
    {
        std::lock_guard<std::mutex> lock(mutex);
        release = true;
    }
    cv.notify_all();
    EXPECT_EQ(m.flush_period(0), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(m.set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs), MsptiResult::MSPTI_SUCCESS);
    // The session goes on: a new monitor gets its records.
    MstxCollector c;
    mspti::MstxMonitor next;
    ASSERT_EQ(next.start(&c, nullptr), MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("after", nullptr);
    next.stop();
    ASSERT_EQ(c.marks().size(), 1u);
}

// A callback that never returns (until the test lets it, after stop() returned) does not hold
// stop(): stop() waits the timeout and 5 s of grace, then leaves it running. Once it returns, the
// records it was not handed count as dropped. A stop() that waited for the callback would never
// return: the test waits for it a generous minute, then fails.
TEST(MonitorLifecycle, StopDoesNotWaitForACallbackThatNeverReturns) {
    auto m = std::make_unique<mspti::MstxMonitor>();
    std::mutex mutex;
    std::condition_variable cv;
    bool entered = false, release = false;
    std::atomic<int> calls{0};
    ASSERT_EQ(m->start(
                  [&](const mspti::MarkerData &) {
                      calls.fetch_add(1);
                      std::unique_lock<std::mutex> lock(mutex);
                      entered = true;
                      cv.notify_all();
                      cv.wait(lock, [&] { return release; });
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 1000; ++i) mstxMarkA("stuck", nullptr);
    EXPECT_EQ(m->flush_period(1), MsptiResult::MSPTI_SUCCESS);
    {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return entered; });
    }
    ASSERT_EQ(m->set_stop_timeout(100), MsptiResult::MSPTI_SUCCESS);
    const uint64_t dropped_before = marker_dropped();
    std::string message;  // the error message is per thread
    auto stopped = std::async(std::launch::async, [&] {
        const MsptiResult r = m->stop();
        message = mspti::last_error_message();
        return r;
    });
    const bool returned = stopped.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
    {
        std::lock_guard<std::mutex> lock(mutex);
        release = true;
    }
    cv.notify_all();
    ASSERT_TRUE(returned) << "stop() waited for a callback that does not return";
    EXPECT_EQ(stopped.get(), MsptiResult::MSPTI_ERROR_INNER);  // it says the callback was left running
    EXPECT_NE(message.find("left running"), std::string::npos) << message;
    EXPECT_FALSE(m->is_running());
    EXPECT_EQ(m->flush_period(0), MsptiResult::MSPTI_SUCCESS);
    // Once the callback returned, the rest of its buffer is counted, not delivered.
    for (int i = 0; i < 60000 && m->stats().delivered + m->stats().dropped < 1000; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // polling for the count, bounded
    const mspti::MonitorStats s = m->stats();
    EXPECT_EQ(calls.load(), 1);
    EXPECT_EQ(s.delivered, 1u);
    EXPECT_EQ(s.dropped, 999u);
    EXPECT_EQ(marker_dropped() - dropped_before, 999u);
    ASSERT_EQ(m->set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs), MsptiResult::MSPTI_SUCCESS);
    m.reset();
    // The session goes on: a new monitor gets its records.
    MstxCollector c;
    mspti::MstxMonitor next;
    ASSERT_EQ(next.start(&c, nullptr), MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("after", nullptr);
    next.stop();
    ASSERT_EQ(c.marks().size(), 1u);
}

// The same for start() on a running monitor, which switches callbacks and waits for the old one's
// call in progress: a call that never returns holds it no longer than the stop timeout and its grace.
// The new callback is in place; once the old call returns, the new callback gets the next records.
TEST(MonitorLifecycle, RestartDoesNotWaitForAnOldCallbackThatNeverReturns) {
    mspti::MstxMonitor m;
    std::mutex mutex;
    std::condition_variable cv;
    bool entered = false, release = false;
    std::atomic<int> old_calls{0}, new_calls{0};
    ASSERT_EQ(m.start(
                  [&](const mspti::MarkerData &) {
                      old_calls.fetch_add(1);
                      std::unique_lock<std::mutex> lock(mutex);
                      entered = true;
                      cv.notify_all();
                      cv.wait(lock, [&] { return release; });
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 1000; ++i) mstxMarkA("stuck", nullptr);
    EXPECT_EQ(m.flush_period(1), MsptiResult::MSPTI_SUCCESS);
    {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return entered; });
    }
    ASSERT_EQ(m.set_stop_timeout(100), MsptiResult::MSPTI_SUCCESS);
    std::string message;  // the error message is per thread
    auto restarted = std::async(std::launch::async, [&] {
        const MsptiResult r = m.start([&](const mspti::MarkerData &) { new_calls.fetch_add(1); }, nullptr);
        message = mspti::last_error_message();
        return r;
    });
    const bool returned = restarted.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
    {
        std::lock_guard<std::mutex> lock(mutex);
        release = true;
    }
    cv.notify_all();
    ASSERT_TRUE(returned) << "start() waited for an old callback that does not return";
    EXPECT_EQ(restarted.get(), MsptiResult::MSPTI_ERROR_INNER);  // it says the old callback was left running
    EXPECT_NE(message.find("left running"), std::string::npos) << message;
    EXPECT_TRUE(m.is_running());
    // The old callback is never called again; the new one gets what is marked now.
    mstxMarkA("after", nullptr);
    for (int i = 0; i < 60000 && new_calls.load() == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // polling for the call, bounded
    EXPECT_EQ(old_calls.load(), 1);
    EXPECT_GE(new_calls.load(), 1);
    EXPECT_EQ(m.flush_period(0), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    const mspti::MonitorStats s = m.stats();
    EXPECT_EQ(s.delivered + s.dropped, 1001u);  // every record delivered once or counted dropped
    ASSERT_EQ(m.set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs), MsptiResult::MSPTI_SUCCESS);
}

TEST(MonitorLifecycle, StartSwitchingCallbacksWaitsAtMostTheStopTimeout) {
    mspti::MstxMonitor m;
    std::atomic<uint64_t> old_calls{0}, new_calls{0};
    ASSERT_EQ(m.set_stop_timeout(100), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(m.start(
                  [&](const mspti::MarkerData &) {
                      slow_record();
                      old_calls.fetch_add(1);
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    const uint64_t dropped_before = marker_dropped();
    for (int i = 0; i < 100000; ++i) mstxMarkA("switch", nullptr);
    EXPECT_EQ(m.flush_period(1), MsptiResult::MSPTI_SUCCESS);  // hands the buffers to the delivery thread
    while (old_calls.load() == 0) std::this_thread::yield();  // a buffer is being delivered
    ASSERT_EQ(m.start([&](const mspti::MarkerData &) { new_calls.fetch_add(1); }, nullptr), MsptiResult::MSPTI_SUCCESS);
    const uint64_t old_at_switch = old_calls.load();
    ASSERT_EQ(m.set_stop_timeout(-1), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(m.flush_period(0), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(old_calls.load(), old_at_switch);  // the old callback is never called after start() returned
    const mspti::MonitorStats s = m.stats();
    EXPECT_EQ(s.delivered, old_calls.load() + new_calls.load());
    EXPECT_GT(s.dropped, 0u);  // the rest of the buffer in progress was not handed to the old callback
    EXPECT_EQ(s.delivered + s.dropped, 100000u);
    EXPECT_EQ(marker_dropped() - dropped_before, s.dropped);  // nobody took them: libmspti counts them
    ASSERT_EQ(m.set_stop_timeout(mspti::Monitor::kDefaultStopTimeoutMs), MsptiResult::MSPTI_SUCCESS);
}

TEST(MonitorLifecycle, StopOfAnotherMonitorFromACallback) {
    mspti::MstxMonitor first, second;
    MstxCollector c;
    ASSERT_EQ(second.start(&c, nullptr), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(first.start(
                  [&](const mspti::MarkerData &m) {
                      if (m.name == "stop_second") second.stop();
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("before", nullptr);
    mstxMarkA("stop_second", nullptr);
    first.flush_all();
    mstxMarkA("after", nullptr);
    first.stop();
    EXPECT_FALSE(second.is_running());
    auto marks = c.marks();
    ASSERT_GE(marks.size(), 1u);
    EXPECT_EQ(marks[0].name, "before");
    for (const auto &m : marks) EXPECT_NE(m.name, "after");
}

TEST(MonitorLifecycle, StopFromAnotherThreadWhileRecordsStream) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.set_buffer_size(1), MsptiResult::MSPTI_SUCCESS);  // buffers come back every ~18k records
    std::atomic<bool> stopped{false};
    std::atomic<int> late{0};
    ASSERT_EQ(m.start(
                  [&](const mspti::MarkerData &d) {
                      if (stopped.load()) late.fetch_add(1);
                      c.on_record(d);
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    {
        MarkProducer producer;
        ASSERT_TRUE(c.wait_marks(1000));  // streaming: records are being delivered
        ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
        stopped.store(true);
        size_t at_stop = c.marks().size();
        producer.stop();
        EXPECT_EQ(c.marks().size(), at_stop);
    }
    EXPECT_EQ(late.load(), 0);
    EXPECT_FALSE(m.is_running());
    EXPECT_EQ(m.stats().delivered, c.marks().size());
}

TEST(MonitorLifecycle, FlushAllFromACallbackReturns) {
    MstxCollector c;
    mspti::MstxMonitor m;
    std::atomic<int> flushes{0};
    ASSERT_EQ(m.start(
                  [&](const mspti::MarkerData &d) {
                      if (d.name == "flush") {
                          EXPECT_EQ(m.flush_all(), MsptiResult::MSPTI_SUCCESS);
                          flushes.fetch_add(1);
                      }
                      c.on_record(d);
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("flush", nullptr);
    m.flush_all();
    for (int i = 0; i < 5; ++i) mstxMarkA("later", nullptr);
    mstxMarkA("flush", nullptr);
    m.stop();
    EXPECT_EQ(flushes.load(), 2);
    // Only this test's marks: a mark the previous test's producer made as its monitor stopped may
    // still have been staged, and arrives here.
    size_t own = 0;
    for (const auto &mark : c.marks()) own += mark.name == "flush" || mark.name == "later" ? 1 : 0;
    EXPECT_EQ(own, 7u);
}

TEST(MonitorLifecycle, ExceptionsAreCountedReportedAndDeliveryGoesOn) {
    mspti::MstxMonitor m;
    std::vector<std::string> seen;
    ASSERT_EQ(m.start(
                  [&](const mspti::MarkerData &d) {
                      seen.push_back(d.name);
                      if (d.name == "std") throw std::runtime_error("boom from the callback");
                      if (d.name == "reported") throw mspti::CallbackErrorReported();
                      if (d.name == "other") throw 42;
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    testing::internal::CaptureStderr();
    mstxMarkA("std", nullptr);
    mstxMarkA("fine", nullptr);
    mstxMarkA("reported", nullptr);
    mstxMarkA("other", nullptr);
    mstxMarkA("last", nullptr);
    m.stop();
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(seen, (std::vector<std::string>{"std", "fine", "reported", "other", "last"}));
    EXPECT_EQ(m.stats().callback_errors, 3u);
    EXPECT_EQ(m.stats().delivered, 5u);
    EXPECT_NE(err.find("MstxMonitor"), std::string::npos) << err;
    EXPECT_NE(err.find("boom from the callback"), std::string::npos) << err;
    EXPECT_EQ(err.find("already reported"), std::string::npos) << err;
}

namespace {
class CountingHooks : public mspti::DeliveryThreadHooks {
public:
    void on_thread_start() override {
        std::lock_guard<std::mutex> lock(mutex);
        ++starts;
        start_threads.push_back(Tid());
    }
    void on_thread_end() override {
        std::lock_guard<std::mutex> lock(mutex);
        ++ends;
        end_threads.push_back(Tid());
    }
    std::mutex mutex;
    int starts = 0, ends = 0;
    std::vector<int64_t> start_threads, end_threads;
};
}  // namespace

TEST(MonitorLifecycle, DeliveryThreadHooksRunOncePerThreadOnThatThread) {
    CountingHooks hooks;
    mspti::set_delivery_thread_hooks(&hooks);
    std::vector<int64_t> callback_threads;
    {
        mspti::MstxMonitor a, b;
        ASSERT_EQ(a.start([&](const mspti::MarkerData &) { callback_threads.push_back(Tid()); }, nullptr),
                  MsptiResult::MSPTI_SUCCESS);
        ASSERT_EQ(b.start([&](const mspti::MarkerData &) { callback_threads.push_back(Tid()); }, nullptr),
                  MsptiResult::MSPTI_SUCCESS);
        for (int i = 0; i < 50; ++i) mstxMarkA("hooked", nullptr);
        a.flush_all();
        for (int i = 0; i < 50; ++i) mstxMarkA("hooked", nullptr);
        a.stop();
        b.stop();  // the last stop ends the thread
    }
    {
        std::lock_guard<std::mutex> lock(hooks.mutex);
        EXPECT_EQ(hooks.starts, 1);
        EXPECT_EQ(hooks.ends, 1);
        ASSERT_EQ(callback_threads.size(), 200u);
        for (int64_t t : callback_threads) EXPECT_EQ(t, hooks.start_threads[0]);
        EXPECT_EQ(hooks.end_threads, hooks.start_threads);
        EXPECT_NE(hooks.start_threads[0], Tid());
    }
    // A second session: a second thread, hooked again.
    mspti::MstxMonitor c;
    ASSERT_EQ(c.start([](const mspti::MarkerData &) {}, nullptr), MsptiResult::MSPTI_SUCCESS);
    c.stop();
    mspti::set_delivery_thread_hooks(nullptr);
    std::lock_guard<std::mutex> lock(hooks.mutex);
    EXPECT_EQ(hooks.starts, 2);
    EXPECT_EQ(hooks.ends, 2);
}

TEST(MonitorLifecycle, TenThousandStartStopCyclesDoNotGrowThreadsOrMemory) {
    mspti::MstxMonitor m;
    ASSERT_EQ(m.set_buffer_size(1), MsptiResult::MSPTI_SUCCESS);  // each cycle allocates one buffer
    uint64_t delivered = 0;
    auto cycle = [&] {
        ASSERT_EQ(m.start([&](const mspti::MarkerData &) { ++delivered; }, nullptr), MsptiResult::MSPTI_SUCCESS);
        mstxMarkA("cycle", nullptr);
        ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    };
    for (int i = 0; i < 200; ++i) cycle();  // warm up: allocator, libmspti's worker, string table
    const int threads = ThreadCount();
    // Two halves of one run: what the first half still grows (allocator arenas settling on a
    // loaded machine) is not counted; a leak grows the second half as much as the first.
    long rss = 0;
    for (int i = 0; i < 10000; ++i) {
        if (i == 5000) rss = RssKiB();
        cycle();
        if (HasFatalFailure()) return;
    }
    // A stop with a timeout returns once the delivery thread is exiting, joined if it is gone within a
    // grace period; on a loaded machine the last one may still be leaving here, and the warm-up's
    // last one may have been still leaving when `threads` was counted. It must leave: the count
    // comes back to at most what it was (a leak would keep one thread per cycle).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (ThreadCount() > threads && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_LE(ThreadCount(), threads);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    // (Sanitizers keep freed memory in quarantine: RSS says nothing there; LeakSanitizer checks leaks.)
    EXPECT_LT(RssKiB() - rss, 1024) << "RSS grew from " << rss << " KiB over 5000 cycles";
#else
    (void)rss;
#endif
    EXPECT_EQ(delivered, 10200u);
    EXPECT_EQ(m.stats().delivered, 10200u);
}

TEST(MonitorLifecycle, DestroyingARunningMonitorStopsIt) {
    MstxCollector c;
    auto m = std::make_unique<mspti::MstxMonitor>();
    ASSERT_EQ(m->start(&c, nullptr), MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("before_destroy", nullptr);
    m.reset();  // delivers what was collected, then detaches
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_MARKER));
    mstxMarkA("after_destroy", nullptr);
    ASSERT_EQ(c.marks().size(), 1u);
    EXPECT_EQ(c.marks()[0].name, "before_destroy");
}

TEST(MonitorLifecycle, DestroyingAMonitorFromItsOwnCallback) {
    auto *m = new mspti::MstxMonitor();
    std::atomic<int> calls{0};
    mspti::MstxMonitor keeper;  // keeps the session (and the thread) up, to flush with
    ASSERT_EQ(keeper.start([](const mspti::MarkerData &) {}, nullptr), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(m->start(
                  [&](const mspti::MarkerData &) {
                      calls.fetch_add(1);
                      delete m;  // the std::function being run lives on until the call returns
                  },
                  nullptr),
              MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 5; ++i) mstxMarkA("self_destroy", nullptr);
    keeper.flush_all();
    keeper.stop();
    EXPECT_EQ(calls.load(), 1);
}

TEST(MonitorLifecycle, ASubscriberOfTheApplicationIsToleratedAndKept) {
    msptiSubscriberHandle mine = nullptr;
    ASSERT_EQ(msptiSubscribe(&mine, nullptr, nullptr), MSPTI_SUCCESS);
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(&c, nullptr), MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("shared", nullptr);
    m.stop();
    EXPECT_EQ(c.marks().size(), 1u);
    // Ours is still the subscriber: a second subscribe is refused until we unsubscribe.
    msptiSubscriberHandle other = nullptr;
    EXPECT_EQ(msptiSubscribe(&other, nullptr, nullptr), MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    EXPECT_EQ(msptiUnsubscribe(mine), MSPTI_SUCCESS);
}

TEST(MonitorLifecycle, MonitorsOfDifferentKindsRunTogether) {
    MstxCollector c;
    mspti::MstxMonitor mstx;
    mspti::KernelMonitor kernel;
    mspti::CommunicationMonitor comm;
    std::atomic<int> kernels{0};
    ASSERT_EQ(kernel.start([&](const mspti::KernelData &) { kernels.fetch_add(1); }), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(comm.start([](const mspti::CommunicationData &) {}), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(mstx.start(&c, &c), MsptiResult::MSPTI_SUCCESS);
    EXPECT_TRUE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_KERNEL));
    EXPECT_TRUE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_COMMUNICATION));
    EXPECT_TRUE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_MARKER));
    mstxMarkA("with_kernel", nullptr);
    kernel.stop();
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_KERNEL));
    EXPECT_TRUE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_MARKER));
    mstxMarkA("without_kernel", nullptr);
    mstx.stop();
    comm.stop();
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_COMMUNICATION));
    ASSERT_EQ(c.marks().size(), 2u);
    EXPECT_EQ(kernels.load(), 0);  // no kernel ran
}

// A process that exits while monitors run and records stream neither crashes nor hangs.
TEST(MonitorLifecycleDeathTest, ExitWithMonitorsRunning) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            static mspti::MstxMonitor m;  // destroyed during exit, after the delivery thread left
            m.start([](const mspti::MarkerData &) {}, nullptr);
            auto *other = new mspti::KernelMonitor();  // never stopped
            other->start([](const mspti::KernelData &) {});
            std::thread([] {  // still marking while the process exits
                for (;;) mstxMarkA("exiting", nullptr);
            })
                .detach();
            for (int i = 0; i < 1000; ++i) mstxMarkA("exiting", nullptr);
            std::exit(7);
        },
        testing::ExitedWithCode(7), "");
}
