// Our extensions (mspti_ext.h).
#include "common/diagnostics.h"
#include "core/activity_engine.h"
#include "core/buffer_limit.h"
#include "core/marker_names.h"
#include "device/cann_collector.h"
#include "interpose/interposition.h"
#include "mstx/open_ranges.h"
#include "mspti/mspti_ext.h"

#define MSPTI_STR2(x) #x
#define MSPTI_STR(x) MSPTI_STR2(x)

extern "C" {

msptiResult msptiExtActivityGetStats(msptiActivityKind kind, msptiExtActivityStats *stats) {
    if (!mspti::is_valid_kind(kind))
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER,
                           "msptiExtActivityGetStats: kind %d is not an activity kind (1..12)", static_cast<int>(kind));
    if (stats == nullptr) return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiExtActivityGetStats: stats is NULL");
    mspti::ActivityEngine::instance().stats(kind, stats);
    return MSPTI_SUCCESS;
}

msptiResult msptiExtActivityGetNumDroppedRecords(msptiActivityKind kind, uint64_t *dropped) {
    if (dropped == nullptr)
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiExtActivityGetNumDroppedRecords: dropped is NULL");
    msptiExtActivityStats stats;
    msptiResult result = msptiExtActivityGetStats(kind, &stats);
    if (result == MSPTI_SUCCESS) *dropped = stats.dropped;
    return result;
}

msptiResult msptiExtActivitySetBufferLimit(size_t maxBuffersInFlight, msptiExtBufferLimitPolicy policy,
                                           uint32_t waitMs) {
    namespace limit = mspti::buffer_limit;
    if (maxBuffersInFlight < 1 || maxBuffersInFlight > limit::kMaxMaxInFlight)
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER,
                           "msptiExtActivitySetBufferLimit: maxBuffersInFlight %zu is outside 1..%zu",
                           maxBuffersInFlight, limit::kMaxMaxInFlight);
    if (policy != MSPTI_EXT_BUFFER_LIMIT_DROP && policy != MSPTI_EXT_BUFFER_LIMIT_WAIT)
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER,
                           "msptiExtActivitySetBufferLimit: policy %d is not DROP (0) or WAIT (1)",
                           static_cast<int>(policy));
    if (waitMs > limit::kMaxWaitMs)
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiExtActivitySetBufferLimit: waitMs %u is above %u",
                           waitMs, limit::kMaxWaitMs);
    limit::set(maxBuffersInFlight, policy, waitMs);
    mspti::ActivityEngine::instance().limit_changed();
    return MSPTI_SUCCESS;
}

msptiResult msptiExtActivityGetBufferLimit(size_t *maxBuffersInFlight, msptiExtBufferLimitPolicy *policy,
                                           uint32_t *waitMs) {
    if (maxBuffersInFlight != nullptr) *maxBuffersInFlight = mspti::buffer_limit::max_in_flight();
    if (policy != nullptr) *policy = mspti::buffer_limit::policy();
    if (waitMs != nullptr) *waitMs = mspti::buffer_limit::wait_ms();
    return MSPTI_SUCCESS;
}

msptiResult msptiExtActivitySetBufferBytesLimit(size_t maxBytesInFlight) {
    namespace limit = mspti::buffer_limit;
    if (maxBytesInFlight < limit::kMinMaxBytesInFlight || maxBytesInFlight > limit::kMaxMaxBytesInFlight)
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER,
                           "msptiExtActivitySetBufferBytesLimit: maxBytesInFlight %zu is not in %zu..%zu",
                           maxBytesInFlight, limit::kMinMaxBytesInFlight, limit::kMaxMaxBytesInFlight);
    limit::set_max_bytes(maxBytesInFlight);
    mspti::ActivityEngine::instance().limit_changed();
    return MSPTI_SUCCESS;
}

msptiResult msptiExtActivityGetBufferBytesLimit(size_t *maxBytesInFlight) {
    if (maxBytesInFlight == nullptr)
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER,
                           "msptiExtActivityGetBufferBytesLimit: maxBytesInFlight is NULL");
    *maxBytesInFlight = mspti::buffer_limit::max_bytes_in_flight();
    return MSPTI_SUCCESS;
}

msptiResult msptiExtActivityReportDiscarded(msptiActivityKind kind, uint64_t count) {
    if (!mspti::is_valid_kind(kind))
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER,
                           "msptiExtActivityReportDiscarded: kind %d is not an activity kind (1..12)",
                           static_cast<int>(kind));
    uint64_t moved = mspti::ActivityEngine::instance().discard_delivered(kind, count);
    if (moved != count)
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER,
                           "msptiExtActivityReportDiscarded: %llu records of kind %d reported, only %llu were "
                           "delivered; counted %llu",
                           static_cast<unsigned long long>(count), static_cast<int>(kind),
                           static_cast<unsigned long long>(moved), static_cast<unsigned long long>(moved));
    return MSPTI_SUCCESS;
}

msptiResult msptiExtMarkerGetRangeStats(msptiExtRangeStats *stats) {
    if (stats == nullptr)
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiExtMarkerGetRangeStats: stats is NULL");
    mspti::mstx::RangeTableStats s = mspti::mstx::range_stats();
    stats->open = s.open;
    stats->evicted = s.evicted;
    stats->capacity = s.capacity;
    return MSPTI_SUCCESS;
}

msptiResult msptiExtDeviceGetStats(msptiExtDeviceStats *stats) {
    if (stats == nullptr) return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiExtDeviceGetStats: stats is NULL");
    mspti::device::device_stats(stats);
    return MSPTI_SUCCESS;
}

msptiResult msptiExtActivityHoldBuffer(uint8_t *buffer) {
    if (!mspti::ActivityEngine::instance().hold_buffer(buffer))
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER,
                           "msptiExtActivityHoldBuffer: %p is not the buffer of the complete callback this thread runs",
                           static_cast<void *>(buffer));
    return MSPTI_SUCCESS;
}

msptiResult msptiExtActivityReleaseBuffer(uint8_t *buffer) {
    if (!mspti::ActivityEngine::instance().release_hold(buffer))
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiExtActivityReleaseBuffer: %p is not held",
                           static_cast<void *>(buffer));
    return MSPTI_SUCCESS;
}

msptiResult msptiExtMarkerGetNameStats(msptiExtNameStats *stats) {
    if (stats == nullptr)
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiExtMarkerGetNameStats: stats is NULL");
    mspti::names::Stats s = mspti::names::stats();
    stats->live = s.live;
    stats->retired = s.retired;
    stats->reclaimed = s.reclaimed;
    stats->bytes = s.bytes;
    return MSPTI_SUCCESS;
}

msptiResult msptiExtGetVersion(uint32_t *major, uint32_t *minor, uint32_t *patch) {
    if (major != nullptr) *major = MSPTI_EXT_VERSION_MAJOR;
    if (minor != nullptr) *minor = MSPTI_EXT_VERSION_MINOR;
    if (patch != nullptr) *patch = MSPTI_EXT_VERSION_PATCH;
    return MSPTI_SUCCESS;
}

const char *msptiExtGetVersionString(void) {
    return MSPTI_STR(MSPTI_EXT_VERSION_MAJOR) "." MSPTI_STR(MSPTI_EXT_VERSION_MINOR) "." MSPTI_STR(
        MSPTI_EXT_VERSION_PATCH);
}

const char *msptiExtResultString(msptiResult result) { return mspti::result_name(result); }

const char *msptiExtGetLastError(void) { return mspti::last_error(); }

bool msptiExtIsInterposing(void) { return mspti::interpose::interposing(); }

}  // extern "C"
