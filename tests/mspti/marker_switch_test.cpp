// The paths with no call of mstxMarkA and mstxRangeStartA/End. mstxMarkA tests one switch that
// stands for two, the default domain and the MARKER kind (mstx::g_default_marks_on, kept equal to
// them by refresh_default_marks). Only the path with no call reads that switch alone, so each
// test first waits until a mark of its probe takes that path: the TSC is in use and the probe is
// the message this thread marked last.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/thread_staging.h"
#include "mspti/mspti.h"
#include "mstx/marker_recorder.h"

namespace {

alignas(16) const char kProbe[16] = "probe";  // its 16 bytes in one page
std::atomic<uint64_t> g_probes{0};

void Request(uint8_t **buffer, size_t *size, size_t *max) {
    *size = 1 << 20;
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, *size));
    *max = 0;
}

void Complete(uint8_t *buffer, size_t, size_t valid) {
    msptiActivity *record = nullptr;
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
        if (record->kind != MSPTI_ACTIVITY_KIND_MARKER) continue;
        const char *name = reinterpret_cast<const msptiActivityMarker *>(record)->name;
        if (std::strcmp(name, kProbe) == 0) g_probes.fetch_add(1);
    }
    std::free(buffer);
}

void SetDomain(bool on) {
    ASSERT_EQ(on ? msptiActivityEnableMarkerDomain("default") : msptiActivityDisableMarkerDomain("default"),
              MSPTI_SUCCESS);
}

void SetKind(bool on) {
    ASSERT_EQ(on ? msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER) : msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER),
              MSPTI_SUCCESS);
}

// Probe marks recorded since the last call.
uint64_t ProbesRecorded() {
    msptiActivityFlushAll(1);
    return g_probes.exchange(0);
}

class MarkSwitch : public ::testing::Test {
protected:
    void SetUp() override {
        if (!mspti::clock::uses_tsc()) GTEST_SKIP() << "no invariant TSC: marks never take the path with no call";
#ifndef MSPTI_WIDE_NAME_COMPARE
        GTEST_SKIP() << "sanitized builds compare names with strcmp: marks never take the path with no call";
#endif
        ASSERT_EQ(msptiActivityRegisterCallbacks(Request, Complete), MSPTI_SUCCESS);
        SetDomain(true);
        SetKind(true);
        // A reading after the clock's 10 ms baseline switches it to the TSC; the probe's next mark
        // after that is kept as the thread's last message.
        auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        for (;;) {
            mspti::mstx::mark(kProbe, nullptr);
            if (mspti::t_staging != nullptr && mspti::t_staging->markers.is_last(kProbe)) break;
            ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "the probe never took the path with no call";
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        ProbesRecorded();
    }
    void TearDown() override {
        SetDomain(true);
        SetKind(false);
        msptiActivityFlushAll(1);
    }
};

}  // namespace

// The two switches set one after the other in every order: a probe mark is recorded exactly when
// both were left on, whichever of the two changed last.
TEST_F(MarkSwitch, FollowsTheLastChangeOfEither) {
    for (int from = 0; from < 4; ++from) {
        for (int to = 0; to < 4; ++to) {
            for (bool kind_last : {false, true}) {
                SetDomain((from & 1) != 0);
                SetKind((from & 2) != 0);
                if (kind_last) {
                    SetDomain((to & 1) != 0);
                    SetKind((to & 2) != 0);
                } else {
                    SetKind((to & 2) != 0);
                    SetDomain((to & 1) != 0);
                }
                ASSERT_TRUE(mspti::t_staging->markers.is_last(kProbe));
                mspti::mstx::mark(kProbe, nullptr);
                SetKind(true);
                SetDomain(true);
                EXPECT_EQ(ProbesRecorded(), to == 3 ? 1u : 0u)
                    << "from " << from << " to " << to << ", kind last " << kind_last;
            }
        }
    }
}

// Two threads toggle the two switches at once, each ending in a state the round chose; a probe
// mark made after both have joined is recorded exactly when both ended on.
TEST_F(MarkSwitch, FollowsTheDomainAndTheKindToggledAtOnce) {
    for (unsigned round = 0; round < 40; ++round) {
        const bool domain_on = (round & 1) != 0, kind_on = (round & 2) != 0;
        const int toggles = 200 + static_cast<int>(round % 7);
        std::thread domain([&] {
            for (int i = 0; i < toggles; ++i) SetDomain(i % 2 != 0);
            SetDomain(domain_on);
        });
        std::thread kind([&] {
            for (int i = 0; i < toggles; ++i) SetKind(i % 2 != 0);
            SetKind(kind_on);
        });
        domain.join();
        kind.join();
        ASSERT_TRUE(mspti::t_staging->markers.is_last(kProbe));
        mspti::mstx::mark(kProbe, nullptr);
        SetKind(true);
        SetDomain(true);
        EXPECT_EQ(ProbesRecorded(), domain_on && kind_on ? 1u : 0u)
            << "round " << round << ": domain " << domain_on << ", kind " << kind_on;
    }
}

namespace {

struct RangeRecord {
    msptiActivityFlag flag;
    uint64_t id;
    std::string name;
};
std::mutex g_range_mutex;
std::vector<RangeRecord> g_ranges;

void CompleteRanges(uint8_t *buffer, size_t, size_t valid) {
    msptiActivity *record = nullptr;
    std::lock_guard<std::mutex> lock(g_range_mutex);
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
        if (record->kind != MSPTI_ACTIVITY_KIND_MARKER) continue;
        const auto *m = reinterpret_cast<const msptiActivityMarker *>(record);
        g_ranges.push_back({m->flag, m->id, m->name});
    }
    std::free(buffer);
}

}  // namespace

// Range starts of the message a thread kept last, and every range end, take paths with no call
// (mstx::range_start, end_range). Their records hold the right name, id and flag: for one message
// started over and over, for a buffer that is reused with another text at the same address (the
// kept message is compared by text, not only by address), and for ends on another thread.
TEST_F(MarkSwitch, RangesWithNoCallKeepTheirNamesAndIds) {
    ASSERT_EQ(msptiActivityRegisterCallbacks(Request, CompleteRanges), MSPTI_SUCCESS);
    alignas(16) static char text[16] = "first";
    // The second start in a row on the general path keeps the message (ThreadMarkers::keep_last).
    for (int i = 0; i < 3; ++i) mspti::mstx::range_end(mspti::mstx::range_start(text, nullptr));
    ASSERT_TRUE(mspti::t_staging->markers.is_last(text));
    msptiActivityFlushAll(1);
    {
        std::lock_guard<std::mutex> lock(g_range_mutex);
        g_ranges.clear();
    }
    std::vector<std::pair<uint64_t, std::string>> started;
    for (int i = 0; i < 3000; ++i) {
        if (i == 1000) std::strcpy(text, "second");  // same address, other text
        if (i == 2000) std::strcpy(text, "first");
        const mstxRangeId id = mspti::mstx::range_start(text, nullptr);
        ASSERT_NE(id, 0u);
        started.emplace_back(id, text);
        if (i % 2 == 0) {
            mspti::mstx::range_end(id);
        } else {
            std::thread([id] { mspti::mstx::range_end(id); }).join();
        }
    }
    msptiActivityFlushAll(1);
    std::lock_guard<std::mutex> lock(g_range_mutex);
    std::map<uint64_t, std::string> start_names;
    std::map<uint64_t, int> ends;
    for (const auto &r : g_ranges) {
        if (r.flag == MSPTI_ACTIVITY_FLAG_MARKER_START) {
            EXPECT_TRUE(start_names.emplace(r.id, r.name).second) << "two starts with id " << r.id;
        } else {
            ASSERT_EQ(r.flag, MSPTI_ACTIVITY_FLAG_MARKER_END);
            EXPECT_EQ(r.name, "");
            ++ends[r.id];
        }
    }
    ASSERT_EQ(start_names.size(), started.size());
    for (const auto &[id, name] : started) {
        EXPECT_EQ(start_names[id], name) << "range " << id;
        EXPECT_EQ(ends[id], 1) << "range " << id;
    }
}
