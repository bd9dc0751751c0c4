// dlog's local time (computed from a cached UTC offset) against glibc's localtime_r, in zones
// with and without summer time and around their changes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <time.h>

#include "dlog/dlog_time.h"

namespace {

void expect_same(time_t secs) {
    tm want{};
    ASSERT_NE(::localtime_r(&secs, &want), nullptr);
    timeval tv{};
    tv.tv_sec = secs;
    const dlog::LocalTime got = dlog::local_time(tv);
    EXPECT_EQ(got.year, want.tm_year + 1900) << secs;
    EXPECT_EQ(got.month, want.tm_mon + 1) << secs;
    EXPECT_EQ(got.day, want.tm_mday) << secs;
    EXPECT_EQ(got.hour, want.tm_hour) << secs;
    EXPECT_EQ(got.minute, want.tm_min) << secs;
    EXPECT_EQ(got.second, want.tm_sec) << secs;
}

}  // namespace

TEST(DlogTime, MatchesLocaltimeInSeveralZones) {
    for (const char *zone : {"UTC0", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/Berlin"}) {
        ASSERT_EQ(setenv("TZ", zone, 1), 0);
        tzset();
        SCOPED_TRACE(zone);
        // Every 7 h 13 min 17 s over ~60 years (leap years, month ends, summer time changes).
        for (time_t t = 0; t < time_t{1900000000}; t += 26000 + 17) expect_same(t);
        // Each second around a summer-time change in Europe and North America (2024).
        for (time_t t = 1711846800 - 7200; t < 1711846800 + 7200; t += 1) expect_same(t);
        for (time_t t = 1710054000 - 7200; t < 1710054000 + 7200; t += 1) expect_same(t);
    }
}
