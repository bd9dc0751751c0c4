#include "dlog_time.h"

#include <atomic>
#include <cstdint>
#include <ctime>
#include <mutex>
#include <time.h>

namespace dlog {
namespace {

// The UTC offset of the last quarter hour seen (a TZ change shows within 15 min), packed as
// (quarter hours since the epoch << 20) | (offset + 2^19):
// one atomic word, so threads and a forked child never see a torn pair. 0: none yet.
std::atomic<uint64_t> g_offset{0};
constexpr int64_t kBias = int64_t{1} << 19;  // offsets are within +-14 h (50,400 s)

// glibc's localtime_r takes its time-zone lock, which fork() does not reset: a child forked while
// another thread was inside localtime_r waits for that lock forever at its own first call (the
// first lines of a process, or the first after a quarter hour, when both miss the cache). Our calls
// run under this mutex, which dlog's fork handler takes (lock_for_fork()).
std::mutex g_zone_mutex;

long cached_offset(uint64_t quarter, bool *hit) {
    const uint64_t cached = g_offset.load(std::memory_order_relaxed);
    *hit = cached != 0 && cached >> 20 == quarter;
    return static_cast<long>(static_cast<int64_t>(cached & 0xfffff) - kBias);
}

long utc_offset(time_t secs) {
    const uint64_t quarter = static_cast<uint64_t>(secs / 900);  // time zones change on quarter hours
    bool hit = false;
    long offset = cached_offset(quarter, &hit);
    if (hit) return offset;
    std::lock_guard<std::mutex> lock(g_zone_mutex);
    offset = cached_offset(quarter, &hit);  // another thread may have just looked it up
    if (hit) return offset;
    tm local{};
    ::localtime_r(&secs, &local);  // the only call that takes glibc's time-zone lock
    offset = local.tm_gmtoff;
    g_offset.store((quarter << 20) | static_cast<uint64_t>(offset + kBias), std::memory_order_relaxed);
    return offset;
}

}  // namespace

void lock_for_fork() { g_zone_mutex.lock(); }
void unlock_after_fork() { g_zone_mutex.unlock(); }

LocalTime local_time(const timeval &tv) {
    const int64_t secs = static_cast<int64_t>(tv.tv_sec) + utc_offset(tv.tv_sec);
    int64_t days = secs / 86400;
    int64_t rest = secs % 86400;
    if (rest < 0) {
        rest += 86400;
        --days;
    }
    // Civil date from days since 1970-01-01 (proleptic Gregorian, eras of 400 years).
    days += 719468;
    const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    const int64_t doe = days - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    const int64_t day = doy - (153 * mp + 2) / 5 + 1;
    const int64_t month = mp < 10 ? mp + 3 : mp - 9;
    const int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    return LocalTime{static_cast<int>(year),        static_cast<int>(month),          static_cast<int>(day),
                     static_cast<int>(rest / 3600), static_cast<int>(rest / 60 % 60), static_cast<int>(rest % 60)};
}

}  // namespace dlog
