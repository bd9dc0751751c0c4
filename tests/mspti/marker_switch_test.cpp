// mstxMarkA tests one switch that stands for two, the default domain and the MARKER kind
// (mstx::g_default_marks_on, kept equal to them by refresh_default_marks). Only the path with no
// call reads that switch alone, so each test first waits until a mark of its probe takes that
// path: the TSC is in use and the probe is the message this thread marked last.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

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
