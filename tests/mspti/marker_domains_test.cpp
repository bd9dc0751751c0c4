// Marker domains: creation, exact-name enable/disable, "default", destroyed domains.
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"
#include "marker_test_fixture.h"


namespace {

class MarkerDomains : public mspti_test::MarkerCollectionTest {};

}  // namespace

TEST_F(MarkerDomains, CreateRejectsDefaultAndInvalidNames) {
    EXPECT_EQ(mstxDomainCreateA("default"), nullptr);
    EXPECT_EQ(mstxDomainCreateA(nullptr), nullptr);
    EXPECT_EQ(mstxDomainCreateA(std::string(255, 'd').c_str()), nullptr);
    EXPECT_NE(mstxDomainCreateA(std::string(254, 'd').c_str()), nullptr);
}

TEST_F(MarkerDomains, SameNameSameHandleAndExactMatching) {
    mstxDomainHandle_t a = mstxDomainCreateA("exact_a");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(mstxDomainCreateA("exact_a"), a);
    mstxDomainHandle_t ab = mstxDomainCreateA("exact_ab");  // not a prefix match (msPTI quirk not kept)
    EXPECT_NE(ab, a);
    mstxDomainHandle_t default_x = mstxDomainCreateA("default_x");
    ASSERT_NE(default_x, nullptr);
    mstxDomainMarkA(default_x, "in_default_x", nullptr);
    auto m = Flushed();
    ASSERT_EQ(m.size(), 1u);
    EXPECT_STREQ(m[0].domain, "default_x");
}

TEST_F(MarkerDomains, DisableByNameStopsAndEnableResumes) {
    mstxDomainHandle_t d = mstxDomainCreateA("switchable");
    ASSERT_EQ(msptiActivityDisableMarkerDomain("switchable"), MSPTI_SUCCESS);
    mstxDomainMarkA(d, "hidden", nullptr);
    EXPECT_EQ(mstxDomainRangeStartA(d, "hidden", nullptr), 0u);
    ASSERT_EQ(msptiActivityEnableMarkerDomain("switchable"), MSPTI_SUCCESS);
    mstxRangeId id = mstxDomainRangeStartA(d, "shown", nullptr);
    mstxDomainRangeEnd(d, id);
    auto m = Flushed();
    ASSERT_EQ(m.size(), 2u);
    EXPECT_STREQ(m[0].name, "shown");
    EXPECT_STREQ(m[0].domain, "switchable");
    EXPECT_EQ(m[1].flag, MSPTI_ACTIVITY_FLAG_MARKER_END);
}

TEST_F(MarkerDomains, DomainsCreatedAfterDisableStartDisabled) {
    ASSERT_EQ(msptiActivityDisableMarkerDomain("born_disabled"), MSPTI_SUCCESS);
    mstxDomainHandle_t d = mstxDomainCreateA("born_disabled");
    mstxDomainMarkA(d, "hidden", nullptr);
    EXPECT_TRUE(Flushed().empty());
    msptiActivityEnableMarkerDomain("born_disabled");
}

TEST_F(MarkerDomains, DefaultDomainControlsTheNonDomainApi) {
    mstxDomainHandle_t other = mstxDomainCreateA("still_on");
    ASSERT_EQ(msptiActivityDisableMarkerDomain("default"), MSPTI_SUCCESS);
    mstxMarkA("hidden", nullptr);
    EXPECT_EQ(mstxRangeStartA("hidden", nullptr), 0u);
    mstxDomainMarkA(other, "visible", nullptr);
    ASSERT_EQ(msptiActivityEnableMarkerDomain("default"), MSPTI_SUCCESS);
    mstxMarkA("visible_again", nullptr);
    auto m = Flushed();
    ASSERT_EQ(m.size(), 2u);
    EXPECT_STREQ(m[0].name, "visible");
    EXPECT_STREQ(m[1].name, "visible_again");
    EXPECT_STREQ(m[1].domain, "default");
}

TEST_F(MarkerDomains, DisablingMidRangeDropsTheEnd) {
    mstxDomainHandle_t d = mstxDomainCreateA("mid_range");
    mstxRangeId id = mstxDomainRangeStartA(d, "started", nullptr);
    msptiActivityDisableMarkerDomain("mid_range");
    mstxDomainRangeEnd(d, id);
    msptiActivityEnableMarkerDomain("mid_range");
    mstxDomainRangeEnd(d, id);  // the range was forgotten: still no end record
    auto m = Flushed();
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].flag, MSPTI_ACTIVITY_FLAG_MARKER_START);
}

TEST_F(MarkerDomains, DestroyedDomainsRecordNothingUntilRecreated) {
    mstxDomainHandle_t d = mstxDomainCreateA("phoenix");
    mstxDomainDestroy(d);
    mstxDomainMarkA(d, "hidden", nullptr);
    EXPECT_EQ(mstxDomainCreateA("phoenix"), d);
    mstxDomainMarkA(d, "reborn", nullptr);
    auto m = Flushed();
    ASSERT_EQ(m.size(), 1u);
    EXPECT_STREQ(m[0].name, "reborn");
}

TEST_F(MarkerDomains, ForeignHandlesAreIgnored) {
    int not_a_domain = 0;
    auto foreign = reinterpret_cast<mstxDomainHandle_t>(&not_a_domain);
    mstxDomainMarkA(foreign, "x", nullptr);
    EXPECT_EQ(mstxDomainRangeStartA(foreign, "x", nullptr), 0u);
    mstxDomainRangeEnd(foreign, 1);
    mstxDomainDestroy(foreign);
    mstxDomainMarkA(nullptr, "x", nullptr);
    EXPECT_TRUE(Flushed().empty());
}

// The same switch, set one after the other in every order: a mark is recorded exactly when the
// default domain and the MARKER kind were both left on, whichever of the two changed last.
TEST_F(MarkerDomains, MarkSwitchFollowsTheLastChangeOfEither) {
    auto set_domain = [](bool on) {
        ASSERT_EQ(on ? msptiActivityEnableMarkerDomain("default") : msptiActivityDisableMarkerDomain("default"),
                  MSPTI_SUCCESS);
    };
    auto set_kind = [](bool on) {
        ASSERT_EQ(on ? msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER)
                     : msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER),
                  MSPTI_SUCCESS);
    };
    static const char kProbe[] = "probe";
    for (int from = 0; from < 4; ++from) {
        for (int to = 0; to < 4; ++to) {
            for (bool kind_last : {false, true}) {
                // The probe's message is the one this thread marked last, so that its next mark
                // can take the path with no call, which tests the switch alone.
                set_kind(true);
                set_domain(true);
                mstxMarkA(kProbe, nullptr);
                Flushed();
                mspti_test::RecordCollector::instance().clear();
                set_domain((from & 1) != 0);
                set_kind((from & 2) != 0);
                if (kind_last) {
                    set_domain((to & 1) != 0);
                    set_kind((to & 2) != 0);
                } else {
                    set_kind((to & 2) != 0);
                    set_domain((to & 1) != 0);
                }
                mstxMarkA(kProbe, nullptr);
                set_kind(true);
                set_domain(true);
                size_t seen = 0;
                for (const auto &r : Flushed()) seen += std::string(r.name) == kProbe;
                EXPECT_EQ(seen, to == 3 ? 1u : 0u) << "from " << from << " to " << to << ", kind last " << kind_last;
            }
        }
    }
}

// mstxMarkA tests one switch that stands for two (the default domain and the MARKER kind). Two
// threads toggle the two at once, each ending in a state the seed chose; a mark made after both
// have joined is recorded exactly when both ended on.
TEST_F(MarkerDomains, MarkSwitchFollowsTheDomainAndTheKindToggledAtOnce) {
    static const char kProbe[] = "probe";
    for (unsigned round = 0; round < 40; ++round) {
        mstxMarkA(kProbe, nullptr);
        Flushed();
        mspti_test::RecordCollector::instance().clear();
        const bool domain_on = (round & 1) != 0, kind_on = (round & 2) != 0;
        const int toggles = 200 + static_cast<int>(round % 7);
        std::thread domain([&] {
            for (int i = 0; i < toggles; ++i) {
                if (i % 2 == 0)
                    msptiActivityDisableMarkerDomain("default");
                else
                    msptiActivityEnableMarkerDomain("default");
            }
            if (domain_on)
                msptiActivityEnableMarkerDomain("default");
            else
                msptiActivityDisableMarkerDomain("default");
        });
        std::thread kind([&] {
            for (int i = 0; i < toggles; ++i) {
                if (i % 2 == 0)
                    msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
                else
                    msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
            }
            if (kind_on)
                msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
            else
                msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
        });
        domain.join();
        kind.join();
        mstxMarkA(kProbe, nullptr);  // the message marked last: the path with no call
        msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
        msptiActivityEnableMarkerDomain("default");
        size_t seen = 0;
        for (const auto &r : Flushed()) seen += std::string(r.name) == kProbe;
        EXPECT_EQ(seen, domain_on && kind_on ? 1u : 0u)
            << "round " << round << ": domain " << domain_on << ", kind " << kind_on;
        mspti_test::RecordCollector::instance().clear();
    }
}
