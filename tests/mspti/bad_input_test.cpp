// Every function rejects bad arguments with msPTI's code and a message, and changes nothing.
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"

namespace {

void NoRequest(uint8_t **, size_t *, size_t *) {}
void NoComplete(uint8_t *, size_t, size_t) {}

std::string LastError() { return msptiExtGetLastError(); }

}  // namespace

TEST(BadInput, RegisterCallbacksRejectsNull) {
    EXPECT_EQ(msptiActivityRegisterCallbacks(nullptr, nullptr), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiActivityRegisterCallbacks(&NoRequest, nullptr), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_NE(LastError().find("complete"), std::string::npos);
    EXPECT_EQ(msptiActivityRegisterCallbacks(nullptr, &NoComplete), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_NE(LastError().find("request"), std::string::npos);
}

TEST(BadInput, EnableAndDisableRejectKindsOutsideOneToTwelve) {
    for (int kind : {0, 13, 14, -1, 0x7fffffff}) {
        EXPECT_EQ(msptiActivityEnable(static_cast<msptiActivityKind>(kind)), MSPTI_ERROR_INVALID_PARAMETER) << kind;
        EXPECT_NE(LastError().find("not an activity kind"), std::string::npos);
        EXPECT_EQ(msptiActivityDisable(static_cast<msptiActivityKind>(kind)), MSPTI_ERROR_INVALID_PARAMETER) << kind;
        EXPECT_FALSE(msptiActivityIsEnabled(static_cast<msptiActivityKind>(kind)));
    }
}

TEST(BadInput, EnableDisableRoundTrip) {
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_KERNEL));
    EXPECT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_KERNEL), MSPTI_SUCCESS);
    EXPECT_TRUE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_KERNEL));
    EXPECT_EQ(msptiActivityDisable(MSPTI_ACTIVITY_KIND_KERNEL), MSPTI_SUCCESS);
    EXPECT_EQ(msptiActivityDisable(MSPTI_ACTIVITY_KIND_KERNEL), MSPTI_SUCCESS);
    EXPECT_FALSE(msptiActivityIsEnabled(MSPTI_ACTIVITY_KIND_KERNEL));
}

TEST(BadInput, MarkerDomainNames) {
    EXPECT_EQ(msptiActivityEnableMarkerDomain(nullptr), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiActivityDisableMarkerDomain(nullptr), MSPTI_ERROR_INVALID_PARAMETER);
    std::string longest(254, 'x'), too_long(255, 'x');
    EXPECT_EQ(msptiActivityDisableMarkerDomain(too_long.c_str()), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_NE(LastError().find("255"), std::string::npos);
    EXPECT_EQ(msptiActivityDisableMarkerDomain(longest.c_str()), MSPTI_SUCCESS);
    EXPECT_EQ(msptiActivityEnableMarkerDomain(longest.c_str()), MSPTI_SUCCESS);
    EXPECT_EQ(msptiActivityEnableMarkerDomain(""), MSPTI_SUCCESS);  // accepted, as msPTI's C API
}

TEST(BadInput, ExternalCorrelationKinds) {
    uint64_t id = 0;
    for (int kind : {0, 5, 99, -3}) {
        auto k = static_cast<msptiExternalCorrelationKind>(kind);
        EXPECT_EQ(msptiActivityPushExternalCorrelationId(k, 1), MSPTI_ERROR_INVALID_PARAMETER) << kind;
        EXPECT_EQ(msptiActivityPopExternalCorrelationId(k, &id), MSPTI_ERROR_INVALID_PARAMETER) << kind;
    }
    EXPECT_EQ(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, &id),
              MSPTI_ERROR_QUEUE_EMPTY);
    EXPECT_NE(LastError().find("nothing was pushed"), std::string::npos);
}

TEST(BadInput, FlushCallsAlwaysSucceed) {
    EXPECT_EQ(msptiActivityFlushAll(0), MSPTI_SUCCESS);
    EXPECT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);
    EXPECT_EQ(msptiActivityFlushAll(99), MSPTI_SUCCESS);
    EXPECT_EQ(msptiActivityFlushPeriod(1), MSPTI_SUCCESS);
    EXPECT_EQ(msptiActivityFlushPeriod(0), MSPTI_SUCCESS);
}

TEST(BadInput, ExtensionsCheckArguments) {
    msptiExtActivityStats stats;
    EXPECT_EQ(msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_INVALID, &stats), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, nullptr), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiExtActivityGetNumDroppedRecords(MSPTI_ACTIVITY_KIND_MARKER, nullptr), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(msptiExtActivityReportDiscarded(MSPTI_ACTIVITY_KIND_INVALID, 1), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_NE(LastError().find("not an activity kind"), std::string::npos) << LastError();
    EXPECT_EQ(msptiExtActivityReportDiscarded(MSPTI_ACTIVITY_KIND_MARKER, 0), MSPTI_SUCCESS);
    EXPECT_STREQ(msptiExtResultString(MSPTI_ERROR_QUEUE_EMPTY), "MSPTI_ERROR_QUEUE_EMPTY");
    EXPECT_STREQ(msptiExtResultString(static_cast<msptiResult>(12345)), "MSPTI_ERROR_UNKNOWN");
    uint32_t major = 9, minor = 9, patch = 9;
    EXPECT_EQ(msptiExtGetVersion(&major, &minor, &patch), MSPTI_SUCCESS);
    // Against the header the client compiled with, not the library's own view of itself.
    EXPECT_EQ(major, static_cast<uint32_t>(MSPTI_EXT_VERSION_MAJOR));
    EXPECT_EQ(minor, static_cast<uint32_t>(MSPTI_EXT_VERSION_MINOR));
    EXPECT_EQ(patch, static_cast<uint32_t>(MSPTI_EXT_VERSION_PATCH));
    const std::string header_version = std::to_string(MSPTI_EXT_VERSION_MAJOR) + "." +
                                       std::to_string(MSPTI_EXT_VERSION_MINOR) + "." +
                                       std::to_string(MSPTI_EXT_VERSION_PATCH);
    EXPECT_EQ(header_version, msptiExtGetVersionString());
    EXPECT_EQ(msptiExtGetVersion(nullptr, nullptr, nullptr), MSPTI_SUCCESS);
}
