// MstxMonitor end to end: marks and ranges from the mstx API arrive with msPTI's fields.
#include <chrono>
#include <cstring>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "monitor_test_support.h"

using namespace monitor_test;
using mspti::MsptiActivityFlag;
using mspti::MsptiActivityKind;
using mspti::MsptiActivitySourceKind;
using mspti::MsptiResult;

namespace {

// libmspti's clock is calibrated against CLOCK_REALTIME, not read from it, and a preempted
// calibration on a loaded machine can be off by a scheduling slice: allow 50 ms either way (a
// timestamp in another unit or epoch is off by far more).
constexpr uint64_t kClockSlackNs = 50000000;

uint64_t EpochNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

TEST(MstxMonitor, MarkArrivesWithExactFields) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(&c, &c), MsptiResult::MSPTI_SUCCESS);
    uint64_t before = EpochNs();
    mstxMarkA("hello", nullptr);
    uint64_t after = EpochNs();
    ASSERT_EQ(m.flush_all(), MsptiResult::MSPTI_SUCCESS);
    auto marks = c.marks();
    ASSERT_EQ(marks.size(), 1u);
    const mspti::MarkerData &d = marks[0];
    EXPECT_EQ(d.kind, MsptiActivityKind::MSPTI_ACTIVITY_KIND_MARKER);
    EXPECT_EQ(d.flag, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS);
    EXPECT_EQ(d.source_kind, MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_HOST);
    EXPECT_GE(d.timestamp + kClockSlackNs, before);
    EXPECT_LE(d.timestamp, after + kClockSlackNs);
    EXPECT_GE(d.id, 1u);
    EXPECT_EQ(d.object_id.process_id, getpid());
    EXPECT_EQ(d.object_id.thread_id, Tid());
    EXPECT_EQ(d.object_id.device_id, -1);
    EXPECT_EQ(d.object_id.stream_id, -1);
    EXPECT_EQ(d.name, "hello");
    EXPECT_EQ(d.domain, "default");
    EXPECT_TRUE(c.ranges().empty());
    EXPECT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    EXPECT_EQ(m.stats().delivered, 1u);
}

TEST(MstxMonitor, MarkOnAStreamIsAHostRecordWithTheDeviceFlag) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(&c, nullptr), MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("on_stream", FakeStream());
    m.stop();
    auto marks = c.marks();
    ASSERT_EQ(marks.size(), 1u);
    EXPECT_EQ(marks[0].flag, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE);
    EXPECT_EQ(marks[0].source_kind, MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_HOST);
    EXPECT_EQ(marks[0].name, "on_stream");
}

TEST(MstxMonitor, DomainMarkCarriesItsDomain) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(&c, &c), MsptiResult::MSPTI_SUCCESS);
    mstxDomainHandle_t dom = mstxDomainCreateA("monitor_domain");
    ASSERT_NE(dom, nullptr);
    mstxDomainMarkA(dom, "in_domain", nullptr);
    ASSERT_EQ(m.disable_domain("monitor_domain"), MsptiResult::MSPTI_SUCCESS);
    mstxDomainMarkA(dom, "dropped", nullptr);
    ASSERT_EQ(m.enable_domain("monitor_domain"), MsptiResult::MSPTI_SUCCESS);
    mstxDomainMarkA(dom, "again", nullptr);
    m.stop();
    auto marks = c.marks();
    ASSERT_EQ(marks.size(), 2u);
    EXPECT_EQ(marks[0].name, "in_domain");
    EXPECT_EQ(marks[0].domain, "monitor_domain");
    EXPECT_EQ(marks[1].name, "again");
}

TEST(MstxMonitor, RangeArrivesPairedWithFieldsFromTheStart) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(&c, &c), MsptiResult::MSPTI_SUCCESS);
    uint64_t before = EpochNs();
    mstxRangeId id = mstxRangeStartA("work", nullptr);
    mstxRangeEnd(id);
    uint64_t after = EpochNs();
    m.stop();
    EXPECT_TRUE(c.marks().empty());
    auto ranges = c.ranges();
    ASSERT_EQ(ranges.size(), 1u);
    const mspti::RangeMarkerData &r = ranges[0];
    EXPECT_EQ(r.kind, MsptiActivityKind::MSPTI_ACTIVITY_KIND_MARKER);
    EXPECT_EQ(r.source_kind, MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_HOST);
    EXPECT_EQ(r.id, id);
    EXPECT_EQ(r.name, "work");
    EXPECT_EQ(r.domain, "default");
    EXPECT_EQ(r.object_id, (mspti::MsptiObjectId{getpid(), Tid(), -1, -1}));
    EXPECT_GE(r.start + kClockSlackNs, before);
    EXPECT_LE(r.start, r.end);
    EXPECT_LE(r.end, after + kClockSlackNs);
    EXPECT_EQ(m.stats().delivered, 1u);
}

TEST(MstxMonitor, RangeEndedOnAnotherThreadKeepsTheStartersIds) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(nullptr, &c), MsptiResult::MSPTI_SUCCESS);
    mstxRangeId id = mstxRangeStartA("cross", nullptr);
    std::thread([id] { mstxRangeEnd(id); }).join();
    m.stop();
    auto ranges = c.ranges();
    ASSERT_EQ(ranges.size(), 1u);
    EXPECT_EQ(ranges[0].object_id.thread_id, Tid());
    EXPECT_EQ(ranges[0].name, "cross");
}

TEST(MstxMonitor, RangeOnAStreamPairsItsHostHalves) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(&c, &c), MsptiResult::MSPTI_SUCCESS);
    mstxRangeId id = mstxRangeStartA("stream_range", FakeStream());
    mstxRangeEnd(id);
    m.stop();
    auto ranges = c.ranges();
    ASSERT_EQ(ranges.size(), 1u);
    EXPECT_EQ(ranges[0].id, id);
    EXPECT_EQ(ranges[0].source_kind, MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_HOST);
    EXPECT_EQ(ranges[0].name, "stream_range");
}

TEST(MstxMonitor, NullCallbacksStillConsumeRecords) {
    msptiExtActivityStats before{}, after{};
    ASSERT_EQ(msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &before), MSPTI_SUCCESS);
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(static_cast<mspti::MarkCallback *>(nullptr), nullptr), MsptiResult::MSPTI_SUCCESS);
    mstxMarkA("nobody", nullptr);
    mstxRangeEnd(mstxRangeStartA("nobody", nullptr));
    EXPECT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    // Nobody is called back, yet the three records were collected into buffers and handed back
    // (the monitor still enables the kind and drains it), not dropped.
    ASSERT_EQ(msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &after), MSPTI_SUCCESS);
    EXPECT_EQ(after.produced - before.produced, 3u);
    EXPECT_EQ(after.delivered - before.delivered, 3u);
    EXPECT_EQ(after.dropped, before.dropped);
    EXPECT_EQ(m.stats().delivered, 0u);
    EXPECT_EQ(m.stats().dropped, 0u);
    EXPECT_EQ(m.stats().unpaired_dropped, 0u);
}

// Starts whose ends never come are evicted, oldest first, once kMaxOpenRanges are open.
TEST(MstxMonitor, UnpairedStartsAreBoundedAndCounted) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(&c, &c), MsptiResult::MSPTI_SUCCESS);
    // With the "default" domain off, mstxRangeEnd records nothing (and frees libmspti's slot),
    // so each iteration leaves exactly one start record without its end.
    mstxDomainHandle_t dom = mstxDomainCreateA("unpaired");
    ASSERT_NE(dom, nullptr);
    ASSERT_EQ(m.disable_domain("default"), MsptiResult::MSPTI_SUCCESS);
    const size_t extra = 10;
    for (size_t i = 0; i < mspti::MstxMonitor::kMaxOpenRanges + extra; ++i)
        mstxRangeEnd(mstxDomainRangeStartA(dom, "open", nullptr));
    ASSERT_EQ(m.enable_domain("default"), MsptiResult::MSPTI_SUCCESS);
    mstxRangeId last = mstxRangeStartA("closed", nullptr);
    mstxRangeEnd(last);
    m.flush_all();  // all of it, however slow the build: stop() alone waits at most its timeout
    m.stop();
    auto ranges = c.ranges();
    // The closed range evicted one more open start when its start arrived.
    EXPECT_EQ(m.stats().unpaired_dropped, extra + 1);
    ASSERT_EQ(ranges.size(), 1u);
    EXPECT_EQ(ranges[0].id, last);
    EXPECT_EQ(ranges[0].name, "closed");
}

// As msPTI's Python package: the open half is kept across stop() and start().
TEST(MstxMonitor, RangeOpenAcrossARestartPairsAfterIt) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.start(&c, &c), MsptiResult::MSPTI_SUCCESS);
    mstxRangeId straddling = mstxRangeStartA("straddling", nullptr);
    ASSERT_NE(straddling, 0u);
    ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(m.start(&c, &c), MsptiResult::MSPTI_SUCCESS);
    mstxRangeEnd(straddling);
    ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    auto ranges = c.ranges();
    ASSERT_EQ(ranges.size(), 1u);
    EXPECT_EQ(ranges[0].id, straddling);
    EXPECT_EQ(ranges[0].name, "straddling");
    EXPECT_LE(ranges[0].start, ranges[0].end);
    EXPECT_EQ(m.stats().unpaired_dropped, 0u);
}

// Ranges still open at stop() and ended while stopped: their ends are not recorded, but they
// neither fill libmspti's table nor lose later ranges; their starts are evicted and counted.
TEST(MstxMonitor, RangesEndedWhileStoppedDoNotLoseLaterRanges) {
    MstxCollector c;
    mspti::MstxMonitor m;
    constexpr size_t kWindows = 70, kOpenPerWindow = 1000, kLater = 1000;
    std::vector<mstxRangeId> open;
    for (size_t w = 0; w < kWindows; ++w) {
        ASSERT_EQ(m.start(&c, &c), MsptiResult::MSPTI_SUCCESS);
        open.clear();
        for (size_t i = 0; i < kOpenPerWindow; ++i) open.push_back(mstxRangeStartA("window", nullptr));
        ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
        for (mstxRangeId id : open) mstxRangeEnd(id);
    }
    ASSERT_EQ(m.start(&c, &c), MsptiResult::MSPTI_SUCCESS);
    for (size_t i = 0; i < kLater; ++i) mstxRangeEnd(mstxRangeStartA("later", nullptr));
    ASSERT_EQ(m.stop(), MsptiResult::MSPTI_SUCCESS);
    auto ranges = c.ranges();
    ASSERT_EQ(ranges.size(), kLater);
    for (const auto &r : ranges) EXPECT_EQ(r.name, "later");
    // The window starts wait in the monitor's table; the first later start evicted one more.
    EXPECT_EQ(m.stats().unpaired_dropped, kWindows * kOpenPerWindow + 1 - mspti::MstxMonitor::kMaxOpenRanges);
}

TEST(MstxMonitor, TwoMonitorsOfOneKindEachGetEveryRecord) {
    MstxCollector a, b;
    mspti::MstxMonitor ma, mb;
    ASSERT_EQ(ma.start(&a, &a), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(mb.start(&b, &b), MsptiResult::MSPTI_SUCCESS);
    for (int i = 0; i < 100; ++i) mstxMarkA("both", nullptr);
    mstxRangeEnd(mstxRangeStartA("both_range", nullptr));
    ma.stop();
    // MARKER stays enabled for the second monitor.
    EXPECT_TRUE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_MARKER));
    mstxMarkA("only_b", nullptr);
    mb.stop();
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_MARKER));
    ASSERT_EQ(a.marks().size(), 100u);
    ASSERT_EQ(b.marks().size(), 101u);
    for (size_t i = 0; i < 100; ++i) EXPECT_EQ(a.marks()[i], b.marks()[i]);
    EXPECT_EQ(b.marks()[100].name, "only_b");
    ASSERT_EQ(a.ranges().size(), 1u);
    ASSERT_EQ(b.ranges().size(), 1u);
    EXPECT_EQ(a.ranges()[0], b.ranges()[0]);
    EXPECT_EQ(ma.stats().delivered, 101u);
    EXPECT_EQ(mb.stats().delivered, 102u);
}

TEST(MstxMonitor, RecordsArriveInOrder) {
    MstxCollector c;
    mspti::MstxMonitor m;
    ASSERT_EQ(m.set_buffer_size(1), MsptiResult::MSPTI_SUCCESS);  // many buffers
    ASSERT_EQ(m.start(&c, nullptr), MsptiResult::MSPTI_SUCCESS);
    const size_t n = 50000;  // 2.8 MB of records
    for (size_t i = 0; i < n; ++i) mstxMarkA("ordered", nullptr);
    m.flush_all();  // all of it, however slow the build: stop() alone waits at most its timeout
    m.stop();
    m.set_buffer_size(8);
    auto marks = c.marks();
    ASSERT_EQ(marks.size(), n);
    for (size_t i = 1; i < n; ++i) ASSERT_LT(marks[i - 1].id, marks[i].id) << i;
    uint64_t dropped = 1;
    ASSERT_EQ(msptiExtActivityGetNumDroppedRecords(MSPTI_ACTIVITY_KIND_MARKER, &dropped), MSPTI_SUCCESS);
    EXPECT_EQ(dropped, 0u);
}

namespace {
class BatchCollector : public mspti::BatchCallback {
public:
    void on_batch(const mspti::RecordBatch &b) override {
        ++batches;
        kind_ok = kind_ok && b.kind == mspti::MsptiActivityKind::MSPTI_ACTIVITY_KIND_MARKER;
        stride_ok = stride_ok && b.stride == sizeof(msptiActivityMarker);
        size_ok = size_ok && b.size_bytes() == b.count * b.stride;
        aligned = aligned && reinterpret_cast<uintptr_t>(b.data) % 8 == 0;
        for (size_t i = 0; i < b.count; ++i) {
            msptiActivityMarker r;
            std::memcpy(&r, static_cast<const uint8_t *>(b.data) + i * b.stride, sizeof(r));
            ids.push_back(r.id);
            names.insert(r.name != nullptr ? r.name : "(null)");
        }
    }
    size_t batches = 0;
    bool kind_ok = true, stride_ok = true, size_ok = true, aligned = true;
    std::vector<uint64_t> ids;
    std::set<std::string> names;
};
}  // namespace

TEST(MstxMonitor, BatchCallbackSeesZeroCopyViewsInMsptisLayout) {
    BatchCollector batch;
    MstxCollector per_record;
    mspti::MstxMonitor mb, mr;
    ASSERT_EQ(mb.start_batch(&batch), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(mr.start(&per_record, nullptr), MsptiResult::MSPTI_SUCCESS);
    const size_t n = 1000;
    for (size_t i = 0; i < n; ++i) mstxMarkA("batched", nullptr);
    mb.stop();
    mr.stop();
    EXPECT_TRUE(batch.kind_ok);
    EXPECT_TRUE(batch.stride_ok);
    EXPECT_TRUE(batch.size_ok);
    EXPECT_TRUE(batch.aligned);
    EXPECT_GE(batch.batches, 1u);
    EXPECT_LT(batch.batches, n / 10);  // records come in blocks, not one by one
    ASSERT_EQ(batch.ids.size(), n);
    EXPECT_EQ(batch.names, std::set<std::string>{"batched"});
    EXPECT_EQ(mb.stats().delivered, n);
    auto marks = per_record.marks();
    ASSERT_EQ(marks.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(batch.ids[i], marks[i].id);
}

namespace {

class BatchKeeper : public mspti::BatchCallback {
public:
    void on_batch(const mspti::RecordBatch &batch) override {
        std::lock_guard<std::mutex> lock(mutex_);
        copies_.emplace_back(batch);
    }
    std::vector<mspti::RecordBatchCopy> take() {
        std::lock_guard<std::mutex> lock(mutex_);
        return std::move(copies_);
    }

private:
    std::mutex mutex_;
    std::vector<mspti::RecordBatchCopy> copies_;
};

}  // namespace

// Records and batch copies kept past their callbacks still hold the marked names after later
// flushes have reused the library's buffers (ten rounds of unique names, each flushed).
TEST(MstxMonitor, RecordsAndBatchCopiesKeptPastTheCallbackKeepTheirNames) {
    MstxCollector records;
    BatchKeeper batches;
    mspti::MstxMonitor per_record, per_batch;
    ASSERT_EQ(per_record.start(&records, &records), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(per_batch.start_batch(&batches), MsptiResult::MSPTI_SUCCESS);
    std::vector<std::string> expected;
    char name[64];
    for (int round = 0; round < 10; ++round) {
        for (int i = 0; i < 5000; ++i) {
            std::snprintf(name, sizeof(name), "round %d name %d", round, i);
            mstxMarkA(name, nullptr);
            expected.emplace_back(name);
        }
        ASSERT_EQ(mspti::MstxMonitor::flush_all(), MsptiResult::MSPTI_SUCCESS);
    }
    ASSERT_EQ(per_record.stop(), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(per_batch.stop(), MsptiResult::MSPTI_SUCCESS);
    std::vector<std::string> from_records;
    for (const mspti::MarkerData &m : records.marks()) from_records.push_back(m.name);
    EXPECT_EQ(from_records, expected);

    std::vector<mspti::RecordBatchCopy> copies = batches.take();
    // Copies and moves keep their own strings.
    std::vector<mspti::RecordBatchCopy> copied(copies.begin(), copies.end());
    copies.clear();
    std::vector<std::string> from_batches;
    for (const mspti::RecordBatchCopy &copy : copied) {
        const mspti::RecordBatch &b = copy.batch();
        ASSERT_EQ(b.kind, MsptiActivityKind::MSPTI_ACTIVITY_KIND_MARKER);
        for (size_t i = 0; i < b.count; ++i) {
            msptiActivityMarker m;
            std::memcpy(&m, static_cast<const char *>(b.data) + i * b.stride, sizeof(m));
            const char *marked = m.name;  // (a packed field binds to no reference)
            from_batches.emplace_back(marked);
            const char *domain = m.domain;
            EXPECT_STREQ(domain, "default");
        }
    }
    EXPECT_EQ(from_batches, expected);
}
