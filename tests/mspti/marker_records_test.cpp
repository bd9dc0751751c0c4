// MARKER records from the mstx API, exactly as msPTI shapes them (docs/compatibility.md, "Markers").
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"
#include "marker_test_fixture.h"

using mspti_test::RecordCollector;

namespace {

aclrtStream FakeStream() { return reinterpret_cast<aclrtStream>(0x1000); }

class MarkerRecords : public mspti_test::MarkerCollectionTest {};

uint64_t EpochNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

TEST_F(MarkerRecords, MarksAndRangesGiveMsptisSixHostRecords) {
    uint64_t before = EpochNs();
    mstxMarkA("mark_stream", FakeStream());
    mstxMarkA("mark_host", nullptr);
    mstxRangeId r1 = mstxRangeStartA("range_stream", FakeStream());
    mstxRangeEnd(r1);
    mstxRangeId r2 = mstxRangeStartA("range_host", nullptr);
    mstxRangeEnd(r2);
    mstxRangeEnd(987654321);  // unknown: no record
    uint64_t after = EpochNs();

    auto m = Flushed();
    ASSERT_EQ(m.size(), 6u);
    uint64_t first = m[0].id;
    EXPECT_GE(first, 1u);
    std::vector<uint64_t> ids, flags;
    for (const auto &r : m) {
        ids.push_back(r.id);
        flags.push_back(r.flag);
        EXPECT_EQ(r.sourceKind, MSPTI_ACTIVITY_SOURCE_KIND_HOST);
        EXPECT_EQ(r.objectId.pt.processId, static_cast<uint32_t>(getpid()));
        EXPECT_EQ(r.objectId.pt.threadId, static_cast<uint32_t>(syscall(SYS_gettid)));
        // Same epoch clock; 50 ms for a calibration preempted on a loaded machine (another unit or
        // epoch would be off by far more).
        EXPECT_GE(r.timestamp, before - 50000000);
        EXPECT_LE(r.timestamp, after + 50000000);
    }
    EXPECT_EQ(ids, (std::vector<uint64_t>{first, first + 1, first + 2, first + 2, first + 3, first + 3}));
    EXPECT_EQ(flags, (std::vector<uint64_t>{8, 1, 16, 32, 2, 4}));
    EXPECT_EQ(r1, first + 2);
    EXPECT_EQ(r2, first + 3);
    EXPECT_STREQ(m[0].name, "mark_stream");
    EXPECT_STREQ(m[0].domain, "default");
    EXPECT_STREQ(m[4].name, "range_host");
    EXPECT_STREQ(m[3].name, "");  // end records: empty strings, not NULL
    EXPECT_STREQ(m[3].domain, "");
    EXPECT_STREQ(m[5].name, "");
    for (size_t i = 1; i < m.size(); ++i) EXPECT_LE(m[i - 1].timestamp, m[i].timestamp);
}

TEST_F(MarkerRecords, NamesAreInternedAndOutliveTheCallersBuffer) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "first");
    mstxMarkA(buffer, nullptr);
    std::snprintf(buffer, sizeof(buffer), "second");  // same pointer, new text
    mstxMarkA(buffer, nullptr);
    std::snprintf(buffer, sizeof(buffer), "clobbered");
    auto m = Flushed();
    ASSERT_EQ(m.size(), 2u);
    EXPECT_STREQ(m[0].name, "first");
    EXPECT_STREQ(m[1].name, "second");
    EXPECT_NE(static_cast<const void *>(m[0].name), static_cast<const void *>(buffer));
}

TEST_F(MarkerRecords, InvalidMessagesAreRejected) {
    std::string longest(254, 'a'), too_long(255, 'a');
    mstxMarkA(nullptr, nullptr);
    EXPECT_NE(std::string(msptiExtGetLastError()).find("NULL"), std::string::npos);
    mstxMarkA(too_long.c_str(), nullptr);
    EXPECT_EQ(mstxRangeStartA(too_long.c_str(), nullptr), 0u);
    EXPECT_EQ(mstxRangeStartA(nullptr, nullptr), 0u);
    mstxMarkA(longest.c_str(), nullptr);
    auto m = Flushed();
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(std::string(m[0].name), longest);
}

TEST_F(MarkerRecords, NothingIsRecordedWhileMarkerIsDisabled) {
    msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
    mstxMarkA("off", nullptr);
    EXPECT_EQ(mstxRangeStartA("off", nullptr), 0u);
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
    mstxMarkA("on", nullptr);
    auto m = Flushed();
    ASSERT_EQ(m.size(), 1u);
    EXPECT_STREQ(m[0].name, "on");
}

TEST_F(MarkerRecords, RangeEndedOnAnotherThread) {
    mstxRangeId id = mstxRangeStartA("cross_thread", nullptr);
    ASSERT_NE(id, 0u);
    uint32_t other_tid = 0;
    std::thread([&] {
        mstxRangeEnd(id);
        other_tid = static_cast<uint32_t>(syscall(SYS_gettid));
    }).join();
    auto m = Flushed();
    ASSERT_EQ(m.size(), 2u);
    // Records of different threads may arrive in either order; each thread's stay in order.
    const msptiActivityMarker &end = m[0].flag == MSPTI_ACTIVITY_FLAG_MARKER_END ? m[0] : m[1];
    const msptiActivityMarker &start = m[0].flag == MSPTI_ACTIVITY_FLAG_MARKER_END ? m[1] : m[0];
    EXPECT_EQ(start.flag, MSPTI_ACTIVITY_FLAG_MARKER_START);
    EXPECT_EQ(end.flag, MSPTI_ACTIVITY_FLAG_MARKER_END);
    EXPECT_EQ(end.id, id);
    EXPECT_EQ(end.objectId.pt.threadId, other_tid);
    EXPECT_LE(start.timestamp, end.timestamp);
    mstxRangeEnd(id);  // ending twice: no second record
    EXPECT_EQ(Flushed().size(), 2u);
}

TEST_F(MarkerRecords, IdsAreUniqueAcrossThreads) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([] {
            for (int i = 0; i < 1000; ++i) mstxMarkA("unique", nullptr);
        });
    for (auto &t : threads) t.join();
    auto m = Flushed();
    ASSERT_EQ(m.size(), 4000u);
    std::set<uint64_t> ids;
    for (const auto &r : m) ids.insert(r.id);
    EXPECT_EQ(ids.size(), 4000u);
    EXPECT_EQ(*ids.begin() >= 1, true);
}

TEST_F(MarkerRecords, GetToolIdIsInvalidAsMspti) {
    uint64_t id = 42;
    mstxGetToolId(&id);
    EXPECT_EQ(id, static_cast<uint64_t>(MSTX_TOOL_INVALID_ID));
}
