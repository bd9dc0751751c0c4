// Our extensions (mspti_ext.h).
#include "common/error.h"
#include "core/activity_engine.h"
#include "core/marker_names.h"
#include "interpose/interposition.h"
#include "mstx/range_table.h"
#include "mspti/mspti_ext.h"

#define MSPTI_STR2(x) #x
#define MSPTI_STR(x) MSPTI_STR2(x)

extern "C" {

msptiResult msptiExtActivityGetStats(msptiActivityKind kind, msptiExtActivityStats *stats) {
    if (!mspti::is_valid_kind(kind))
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiExtActivityGetStats: kind %d is not an activity kind (1..12)",
                           static_cast<int>(kind));
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

msptiResult msptiExtMarkerGetRangeStats(msptiExtRangeStats *stats) {
    if (stats == nullptr) return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiExtMarkerGetRangeStats: stats is NULL");
    mspti::mstx::RangeTableStats s = mspti::mstx::range_stats();
    stats->open = s.open;
    stats->evicted = s.evicted;
    stats->capacity = s.capacity;
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
    if (!mspti::names::release_hold(buffer))
        return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiExtActivityReleaseBuffer: %p is not held",
                           static_cast<void *>(buffer));
    return MSPTI_SUCCESS;
}

msptiResult msptiExtMarkerGetNameStats(msptiExtNameStats *stats) {
    if (stats == nullptr) return mspti::fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiExtMarkerGetNameStats: stats is NULL");
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
