// Marker domains: creation, exact-name enable/disable, "default", destroyed domains.
#include <string>

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
