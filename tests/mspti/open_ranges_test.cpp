// The open-range table: ranges are forgotten when they end, whatever is enabled at that moment;
// ranges never ended are evicted (and counted) instead of filling it; bogus ends give no record.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"
#include "marker_test_fixture.h"

namespace {

class OpenRanges : public mspti_test::MarkerCollectionTest {
protected:
    msptiExtRangeStats RangeStats() {
        msptiExtRangeStats stats{};
        EXPECT_EQ(msptiExtMarkerGetRangeStats(&stats), MSPTI_SUCCESS);
        return stats;
    }
    // Starts and ends `n` ranges; returns how many of them got both records.
    size_t PairedRanges(size_t n) {
        size_t before = Flushed().size();
        std::vector<mstxRangeId> ids;
        for (size_t i = 0; i < n; ++i) ids.push_back(mstxRangeStartA("after", nullptr));
        for (mstxRangeId id : ids) mstxRangeEnd(id);
        auto m = Flushed();
        size_t ends = 0;
        for (size_t i = before; i < m.size(); ++i) ends += m[i].flag == MSPTI_ACTIVITY_FLAG_MARKER_END;
        return ends;
    }
    // Somewhat less than the table holds.
    static constexpr size_t kMany = 60000;
};

}  // namespace

TEST_F(OpenRanges, EndOfZeroOrOfAnIdNeverStartedGivesNoRecord) {
    mstxRangeEnd(0);
    mstxRangeEnd(987654321);
    mstxDomainHandle_t d = mstxDomainCreateA("bogus_ends");
    ASSERT_NE(d, nullptr);
    mstxDomainRangeEnd(d, 0);
    mstxDomainRangeEnd(d, 987654322);
    EXPECT_TRUE(Flushed().empty());
    mstxRangeId id = mstxRangeStartA("real", nullptr);
    mstxRangeEnd(id);
    mstxRangeEnd(id);  // twice: the second gives nothing
    EXPECT_EQ(Flushed().size(), 2u);
}

TEST_F(OpenRanges, RangesEndedWhileMarkerIsOffAreForgotten) {
    // Windows of collection, each left with ranges open that end while MARKER is off: more such
    // ranges in all than the table holds, never more than it holds at once.
    size_t starts = 0;
    for (int window = 0; window < 3; ++window) {
        std::vector<mstxRangeId> ids;
        for (size_t i = 0; i < kMany / 2; ++i) ids.push_back(mstxRangeStartA("off_at_end", nullptr));
        starts += ids.size();
        ASSERT_EQ(msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
        for (mstxRangeId id : ids) mstxRangeEnd(id);  // not recorded, but no longer open
        ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
    }
    EXPECT_EQ(Flushed().size(), starts);  // the starts only
    EXPECT_EQ(RangeStats().open, 0u);
    EXPECT_EQ(PairedRanges(1000), 1000u);
    EXPECT_EQ(RangeStats().evicted, 0u);  // nothing had to be evicted: the ends freed the table
}

TEST_F(OpenRanges, RangesEndedWhileTheirDomainIsOffAreForgotten) {
    mstxDomainHandle_t d = mstxDomainCreateA("switched_off");
    ASSERT_NE(d, nullptr);
    size_t starts = 0;
    for (int window = 0; window < 3; ++window) {
        std::vector<mstxRangeId> ids, default_ids;
        for (size_t i = 0; i < kMany / 4; ++i) ids.push_back(mstxDomainRangeStartA(d, "in_domain", nullptr));
        for (size_t i = 0; i < kMany / 4; ++i) default_ids.push_back(mstxRangeStartA("in_default", nullptr));
        starts += ids.size() + default_ids.size();
        ASSERT_EQ(msptiActivityDisableMarkerDomain("switched_off"), MSPTI_SUCCESS);
        ASSERT_EQ(msptiActivityDisableMarkerDomain("default"), MSPTI_SUCCESS);
        for (mstxRangeId id : ids) mstxDomainRangeEnd(d, id);
        for (mstxRangeId id : default_ids) mstxRangeEnd(id);
        ASSERT_EQ(msptiActivityEnableMarkerDomain("switched_off"), MSPTI_SUCCESS);
        ASSERT_EQ(msptiActivityEnableMarkerDomain("default"), MSPTI_SUCCESS);
    }
    EXPECT_EQ(Flushed().size(), starts);  // the starts only
    EXPECT_EQ(RangeStats().open, 0u);
    EXPECT_EQ(PairedRanges(1000), 1000u);
    EXPECT_EQ(RangeStats().evicted, 0u);
}

TEST_F(OpenRanges, RangesNeverEndedAreEvictedAndCounted) {
    msptiExtRangeStats before = RangeStats();
    EXPECT_EQ(msptiExtMarkerGetRangeStats(nullptr), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_GE(before.capacity, 1024u);
    const size_t leaked = 3 * before.capacity;
    mstxRangeId oldest = mstxRangeStartA("never_ended", nullptr);
    ASSERT_NE(oldest, 0u);
    for (size_t i = 1; i < leaked; ++i) ASSERT_NE(mstxRangeStartA("never_ended", nullptr), 0u);
    msptiExtRangeStats full = RangeStats();
    EXPECT_EQ(full.open, full.capacity);  // bounded: the table is full, no more
    EXPECT_EQ(full.open + (full.evicted - before.evicted), before.open + leaked);
    // New ranges still pair: each start evicts one of the leaked ranges, each end frees a slot.
    EXPECT_EQ(PairedRanges(1000), 1000u);
    EXPECT_EQ(RangeStats().open, full.capacity - 1000);
    EXPECT_EQ(RangeStats().evicted, full.evicted + 1000);
    // The end of an evicted range gives no record.
    size_t records = Flushed().size();
    mstxRangeEnd(oldest);
    EXPECT_EQ(Flushed().size(), records);
}

TEST_F(OpenRanges, EvictionKeepsRangesOfManyThreadsPairing) {
    // Threads leak ranges and pair others at the same time. A paired range is lost only if it was
    // evicted (possible only if the thread stalled between its start and end while the others
    // went round the whole table), and then it is counted.
    constexpr size_t kThreads = 4;
    constexpr size_t kPerThread = 25000;
    msptiExtRangeStats before = RangeStats();
    std::vector<std::thread> threads;
    std::atomic<size_t> started{0};
    for (size_t t = 0; t < kThreads; ++t)
        threads.emplace_back([&] {
            for (size_t i = 0; i < kPerThread; ++i) {
                ASSERT_NE(mstxRangeStartA("leaked", nullptr), 0u);
                mstxRangeId id = mstxRangeStartA("paired", nullptr);
                if (id != 0) started.fetch_add(1);
                mstxRangeEnd(id);
            }
        });
    for (auto &t : threads) t.join();
    size_t ends = 0;
    for (const auto &r : Flushed()) ends += r.flag == MSPTI_ACTIVITY_FLAG_MARKER_END;
    msptiExtRangeStats after = RangeStats();
    const size_t leaked = kThreads * kPerThread;
    ASSERT_EQ(started.load(), leaked);
    // Every range is ended, evicted or still open; the leaked ones are evicted or open.
    const size_t evicted = after.evicted - before.evicted;
    const size_t open = after.open - before.open;
    ASSERT_GE(evicted + open, leaked);
    const size_t paired_evicted = evicted + open - leaked;
    EXPECT_EQ(ends + paired_evicted, leaked);
    EXPECT_LE(paired_evicted, leaked / 100);
    EXPECT_LE(open, after.capacity);
}
