// The Activity API's C entry points: argument checks and error messages, then the engine.
#include <cstdint>
#include <cstring>

#include "common/diagnostics.h"
#include "core/activity_engine.h"
#include "core/correlation.h"
#include "device/cann_collector.h"
#include "interpose/interposition.h"
#include "mspti/mspti_activity.h"
#include "mstx/marker_domains.h"

using mspti::ActivityEngine;
using mspti::fail;

namespace {

msptiResult check_kind(const char *api, msptiActivityKind kind) {
    if (!mspti::is_valid_kind(kind))
        return fail(MSPTI_ERROR_INVALID_PARAMETER, "%s: kind %d is not an activity kind (1..12)", api,
                    static_cast<int>(kind));
    return MSPTI_SUCCESS;
}

msptiResult check_domain_name(const char *api, const char *name) {
    if (name == nullptr) return fail(MSPTI_ERROR_INVALID_PARAMETER, "%s: name is NULL", api);
    if (strnlen(name, 255) == 255)
        return fail(MSPTI_ERROR_INVALID_PARAMETER, "%s: name is 255 characters or longer", api);
    return MSPTI_SUCCESS;
}

msptiResult check_external_kind(const char *api, msptiExternalCorrelationKind kind) {
    if (!mspti::correlation::is_valid_external_kind(kind))
        return fail(MSPTI_ERROR_INVALID_PARAMETER, "%s: kind %d is not an external correlation kind (1..4)", api,
                    static_cast<int>(kind));
    return MSPTI_SUCCESS;
}

// A record's kind, read without assuming the client's buffer is aligned.
int kind_at(const uint8_t *record) {
    int kind;
    std::memcpy(&kind, record, sizeof(kind));
    return kind;
}

// Record sizes by kind for msptiActivityGetNextRecord: one load where record_size() is a range
// check and a switch. A value that is not a kind (any int outside 0..15 is looked up as 0) has
// kNotARecord, a size no buffer holds twice: the walk's room test sends it to the full walk,
// which reports it, so the common path needs no test of its own for it. (A caller that states
// 2^62 valid bytes or more states what no buffer holds; given that and a pointer to a non-record
// of its own making, the walk would read where the size says.)
constexpr uint64_t kNotARecord = uint64_t{1} << 61;
const struct WalkSizes {
    uint64_t size[16];
    WalkSizes() : size{} {
        for (int kind = 0; kind < 16; ++kind) {
            const size_t bytes = mspti::record_size(kind);
            size[kind] = bytes != 0 ? bytes : kNotARecord;
        }
    }
} g_walk_sizes;

// The size of a record of `kind`, or 0 if `kind` is not a kind.
inline size_t walk_size(int kind) {
    const uint64_t size = static_cast<unsigned>(kind) < 16 ? g_walk_sizes.size[static_cast<unsigned>(kind)] : 0;
    return size != kNotARecord ? size : 0;
}

__attribute__((noinline, cold)) msptiResult null_walk_argument(const uint8_t *buffer) {
    return fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiActivityGetNextRecord: %s is NULL",
                buffer == nullptr ? "buffer" : "record");
}

__attribute__((noinline, cold)) msptiResult record_not_inside() {
    return fail(MSPTI_ERROR_INVALID_PARAMETER,
                "msptiActivityGetNextRecord: *record is not inside the buffer's valid bytes");
}

__attribute__((noinline, cold)) msptiResult unknown_current_kind(int kind) {
    return fail(MSPTI_ERROR_INNER, "msptiActivityGetNextRecord: the current record has unknown kind %d", kind);
}

__attribute__((noinline, cold)) msptiResult unknown_next_kind(size_t offset, int kind) {
    return fail(MSPTI_ERROR_INNER, "msptiActivityGetNextRecord: record at offset %zu has unknown kind %d", offset,
                kind);
}

// msptiActivityGetNextRecord in full: every check, every error.
__attribute__((noinline)) msptiResult next_record(uint8_t *buffer, size_t valid, msptiActivity **record) {
    if (buffer == nullptr || record == nullptr) return null_walk_argument(buffer);
    size_t offset = 0;
    if (*record != nullptr) {
        auto current = reinterpret_cast<uintptr_t>(*record);
        auto start = reinterpret_cast<uintptr_t>(buffer);
        if (current < start || current - start >= valid || valid - (current - start) < sizeof(msptiActivity))
            return record_not_inside();
        const int current_kind = kind_at(reinterpret_cast<const uint8_t *>(*record));
        const size_t stride = walk_size(current_kind);
        if (stride == 0) return unknown_current_kind(current_kind);
        offset = static_cast<size_t>(current - start);
        if (valid - offset <= stride) return MSPTI_ERROR_MAX_LIMIT_REACHED;
        offset += stride;
    }
    if (valid - offset < sizeof(msptiActivity)) return MSPTI_ERROR_MAX_LIMIT_REACHED;
    const int next_kind = kind_at(buffer + offset);
    const size_t size = walk_size(next_kind);
    if (size == 0) return unknown_next_kind(offset, next_kind);
    if (valid - offset < size) return MSPTI_ERROR_MAX_LIMIT_REACHED;
    *record = reinterpret_cast<msptiActivity *>(buffer + offset);
    return MSPTI_SUCCESS;
}

}  // namespace

extern "C" {

msptiResult msptiActivityRegisterCallbacks(msptiBuffersCallbackRequestFunc funcBufferRequested,
                                           msptiBuffersCallbackCompleteFunc funcBufferCompleted) {
    if (funcBufferRequested == nullptr || funcBufferCompleted == nullptr)
        return fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiActivityRegisterCallbacks: %s callback is NULL",
                    funcBufferRequested == nullptr ? "the request" : "the complete");
    ActivityEngine::instance().register_callbacks(funcBufferRequested, funcBufferCompleted);
    return MSPTI_SUCCESS;
}

msptiResult msptiActivityEnable(msptiActivityKind kind) {
    if (msptiResult r = check_kind("msptiActivityEnable", kind); r != MSPTI_SUCCESS) return r;
    if (mspti::needs_interposition(kind) && !mspti::interpose::interposing())
        return fail(MSPTI_ERROR_WITHOUT_LD_PRELOAD,
                    "msptiActivityEnable: kind %d needs libmspti.so to interpose the runtime; load it with LD_PRELOAD",
                    static_cast<int>(kind));
    // Device kinds come through Ascend's profiling libraries: a host without them says so.
    if (const char *why = nullptr; !mspti::device::kind_available(kind, &why))
        return fail(MSPTI_ERROR_DEVICE_OFFLINE, "msptiActivityEnable: kind %d cannot be collected on this host: %s",
                    static_cast<int>(kind), why);
    ActivityEngine::instance().set_enabled(kind, true);
    if (kind == MSPTI_ACTIVITY_KIND_MARKER) mspti::mstx::refresh_default_marks();
    mspti::device::attach();  // the profiling command and channels this kind needs
    return MSPTI_SUCCESS;
}

msptiResult msptiActivityDisable(msptiActivityKind kind) {
    if (msptiResult r = check_kind("msptiActivityDisable", kind); r != MSPTI_SUCCESS) return r;
    // What the device finished before the call is parsed while the kind is still on, so a
    // disable right after the device's work loses nothing.
    if (mspti::device::is_device_kind(kind)) mspti::device::flush_device();
    ActivityEngine::instance().set_enabled(kind, false);
    if (kind == MSPTI_ACTIVITY_KIND_MARKER) mspti::mstx::refresh_default_marks();
    mspti::device::attach();  // stop the reports and channels no enabled kind needs
    return MSPTI_SUCCESS;
}

bool msptiActivityIsEnabled(msptiActivityKind kind) {
    return mspti::is_valid_kind(kind) && ActivityEngine::instance().enabled(kind);
}

msptiResult msptiActivityEnableMarkerDomain(const char *name) {
    if (msptiResult r = check_domain_name("msptiActivityEnableMarkerDomain", name); r != MSPTI_SUCCESS) return r;
    mspti::mstx::set_domain_enabled(name, true);
    return MSPTI_SUCCESS;
}

msptiResult msptiActivityDisableMarkerDomain(const char *name) {
    if (msptiResult r = check_domain_name("msptiActivityDisableMarkerDomain", name); r != MSPTI_SUCCESS) return r;
    mspti::mstx::set_domain_enabled(name, false);
    return MSPTI_SUCCESS;
}

msptiResult msptiActivityGetNextRecord(uint8_t *buffer, size_t validBufferSizeBytes, msptiActivity **record) {
    // Called once per record by every client. Most records are followed by one of their own kind
    // (a run of markers, of kernels): if both lie inside the valid bytes, that is the answer, with
    // one table load and no test of the size it gives; everything else, errors included, is
    // next_record's (out of line, so this path saves no registers). Offsets, not pointers, are compared: buffer + validBufferSizeBytes
    // may not be a valid pointer (a huge size would wrap around the address space). A NULL
    // *record (the first call) lies below the buffer, so it needs no test of its own. The sums
    // below cannot wrap: `offset` is at most UINTPTR_MAX - buffer, and a buffer's address is
    // above twice any stride (the first pages of an address space are never mapped).
    if (__builtin_expect(buffer != nullptr && record != nullptr, 1)) {
        const auto current = reinterpret_cast<uintptr_t>(*record);
        const auto start = reinterpret_cast<uintptr_t>(buffer);
        const size_t valid = validBufferSizeBytes;
        const size_t offset = current - start;
        if (__builtin_expect(current >= start && offset + sizeof(msptiActivity) <= valid, 1)) {
            const int kind = kind_at(reinterpret_cast<const uint8_t *>(current));
            const unsigned index = static_cast<unsigned>(kind);
            if (__builtin_expect(index < 16, 1)) {
                // A value that is not a kind has kNotARecord here, which fails the room test.
                const uint64_t stride = g_walk_sizes.size[index];
                if (__builtin_expect(offset + 2 * stride <= valid &&
                                         kind_at(reinterpret_cast<const uint8_t *>(current + stride)) == kind,
                                     1)) {
                    *record = reinterpret_cast<msptiActivity *>(current + stride);
                    return MSPTI_SUCCESS;
                }
            }
        }
    }
    return next_record(buffer, validBufferSizeBytes, record);
}

msptiResult msptiActivityFlushAll(uint32_t) {
    ActivityEngine::instance().flush_all();
    return MSPTI_SUCCESS;
}

msptiResult msptiActivityFlushPeriod(uint32_t time) {
    ActivityEngine::instance().set_flush_period(time);
    return MSPTI_SUCCESS;
}

msptiResult msptiActivityPushExternalCorrelationId(msptiExternalCorrelationKind kind, uint64_t id) {
    if (msptiResult r = check_external_kind("msptiActivityPushExternalCorrelationId", kind); r != MSPTI_SUCCESS)
        return r;
    mspti::correlation::push(kind, id);
    return MSPTI_SUCCESS;
}

msptiResult msptiActivityPopExternalCorrelationId(msptiExternalCorrelationKind kind, uint64_t *lastId) {
    if (msptiResult r = check_external_kind("msptiActivityPopExternalCorrelationId", kind); r != MSPTI_SUCCESS)
        return r;
    if (!mspti::correlation::pop(kind, lastId))
        return fail(MSPTI_ERROR_QUEUE_EMPTY,
                    "msptiActivityPopExternalCorrelationId: nothing was pushed for kind %d on this thread",
                    static_cast<int>(kind));
    return MSPTI_SUCCESS;
}

}  // extern "C"
