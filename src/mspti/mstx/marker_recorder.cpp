#include "mstx/marker_recorder.h"

#include <atomic>
#include <cstddef>
#include <cstring>

#include "common/diagnostics.h"
#include "core/activity_engine.h"
#include "core/marker_names.h"
#include "mstx/marker_domains.h"
#include "mstx/open_ranges.h"

namespace mspti::mstx {
namespace {

constexpr int kMarker = MSPTI_ACTIVITY_KIND_MARKER;
std::atomic<StreamTraceFunc> g_stream_trace{nullptr};

// The record path uses ActivityEngine's static members; the object is needed off it only.
ActivityEngine &engine() { return ActivityEngine::instance(); }

__attribute__((noinline, cold)) const char *invalid_message(const char *message, const char *api) {
    fail(MSPTI_ERROR_INVALID_PARAMETER, "%s: message is %s", api,
         message == nullptr ? "NULL" : "255 characters or longer");
    return nullptr;
}

// The interned copy of a message, or nullptr (with an error message) if it is invalid.
inline const char *interned_message(ThreadStaging *s, const char *message, const char *api) {
    const char *name = __builtin_expect(message != nullptr, 1) ? s->markers.intern(message) : nullptr;
    return __builtin_expect(name != nullptr, 1) ? name : invalid_message(message, api);
}

__attribute__((noinline)) bool trace_on_device(aclrtStream stream, uint64_t id, msptiActivityFlag flag) {
    StreamTraceFunc trace = g_stream_trace.load(std::memory_order_acquire);
    if (trace == nullptr) return true;
    if (trace(stream, id, static_cast<uint32_t>(flag)) != 0) {
        fail(MSPTI_ERROR_INNER, "mstx: could not enqueue the device marker %llu on stream %p",
             static_cast<unsigned long long>(id), stream);
        return false;
    }
    return true;
}

// Device half: enqueue the trace task first; if that fails the call records nothing.
inline bool trace_on_stream(aclrtStream stream, uint64_t id, msptiActivityFlag flag) {
    return stream == nullptr || trace_on_device(stream, id, flag);
}

// The first 16 bytes of a host marker record: kind, flag and sourceKind, and 4 bytes that the
// timestamp's store overwrites (fill_host_marker).
struct alignas(16) MarkHeader {
    int32_t kind, flag, source_kind, timestamp_low;
};
constexpr int kInternedHost = MSPTI_ACTIVITY_SOURCE_KIND_HOST | names::kStagedInternedName;
constexpr MarkHeader kMarkHeader{kMarker, MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, kInternedHost, 0};
constexpr MarkHeader kStartHeader{kMarker, MSPTI_ACTIVITY_FLAG_MARKER_START, kInternedHost, 0};
constexpr MarkHeader kEndHeader{kMarker, MSPTI_ACTIVITY_FLAG_MARKER_END, MSPTI_ACTIVITY_SOURCE_KIND_HOST, 0};

// Writes a host marker record into `slot`. `object` is read by the caller before: the stores
// here could alias it.
inline void fill_host_marker(void *slot, const MarkHeader &header, uint64_t at, uint64_t id, msptiObjectId object,
                             const char *name, const char *domain) {
    auto *m = static_cast<msptiActivityMarker *>(slot);
    // The header as one 16-byte store (of a constant, on the paths with no call); its last 4 bytes
    // are the timestamp's, which the next store overwrites (three stores would take an instruction more).
    static_assert(offsetof(msptiActivityMarker, timestamp) == 12, "the header's last 4 bytes are the timestamp's");
    std::memcpy(slot, &header, sizeof(header));
    m->timestamp = at;
    m->id = id;
    m->objectId = object;
    m->name = name;
    m->domain = domain;
}

// `interned`: kStagedInternedName when `name` came from the thread's name cache (the drain
// copies it into the client buffer), else 0 (a name that lives as long as the process).
// `timestamp` is taken before the device half is enqueued, so the device's time of a marker on a
// stream never precedes its host time (DevicePath.DeviceTimesLieInsideTheirHostSpans).
inline void write_host_marker(ThreadStaging *s, msptiActivityFlag flag, uint64_t id, const char *name,
                              const char *domain, int interned, uint64_t timestamp) {
    const msptiObjectId object = s->host_object;
    void *slot = ActivityEngine::reserve(s, kMarker);
    if (slot == nullptr) return;
    const MarkHeader header{kMarker, flag, MSPTI_ACTIVITY_SOURCE_KIND_HOST | interned, 0};
    fill_host_marker(slot, header, timestamp, id, object, name, domain);
    ActivityEngine::commit(s, kMarker);
}

// Writes a host marker record into the slot `h` of s's ring (StagingRing::room_at) and commits it.
inline void put_host_marker(ThreadStaging *s, uint64_t h, const MarkHeader &header, uint64_t at, uint64_t id,
                            const char *name, const char *domain) {
    fill_host_marker(s->ring.slot_at(h), header, at, id, s->host_object, name, domain);
    ActivityEngine::commit_at(s, h);
}

// The end of a host range of this thread's, with no call, if raw ticks are in use and the ring
// has room; false (nothing written) otherwise.
inline bool end_without_calls(ThreadStaging *s, uint64_t id) {
    uint64_t h = 0;
    if (__builtin_expect(!clock::raw_ticks_in_use() || !s->ring.room_at(h), 0)) return false;
    put_host_marker(s, h, kEndHeader, clock::raw_tick(), id, "", "");
    return true;
}

// The staging of the calling thread, or nullptr if MARKER is off or the thread is exiting.
inline ThreadStaging *marker_staging() {
    if (!ActivityEngine::enabled(kMarker)) return nullptr;
    ThreadStaging *s = ActivityEngine::staging();
    if (__builtin_expect(s == nullptr, 0)) engine().count_unstaged_drop(kMarker);
    return s;
}

inline void mark_in(const char *domain_name, const char *message, aclrtStream stream, const char *api) {
    ThreadStaging *s = marker_staging();
    if (s == nullptr) return;
    const char *name = interned_message(s, message, api);
    if (name == nullptr) return;
    uint64_t id = s->markers.take_id();
    msptiActivityFlag flag = stream != nullptr ? MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE
                                               : MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS;
    const uint64_t at = s->markers.timestamp();
    if (!trace_on_stream(stream, id, flag)) return;
    write_host_marker(s, flag, id, name, domain_name, names::kStagedInternedName, at);
}

// The start of range `id` is recorded, but its end could not be matched: that end is counted as lost.
__attribute__((noinline, cold)) void open_ranges_full(uint64_t id) {
    engine().count_unstaged_drop(kMarker);
    log(LogLevel::Warning, "mstx: too many open ranges; the end of range %llu will be lost",
        static_cast<unsigned long long>(id));
}

mstxRangeId start_in(const char *domain_name, const char *message, aclrtStream stream, const char *api) {
    ThreadStaging *s = marker_staging();
    if (s == nullptr) return 0;
    const char *name = interned_message(s, message, api);
    if (name == nullptr) return 0;
    uint64_t id = s->markers.take_id();
    msptiActivityFlag flag =
        stream != nullptr ? MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE : MSPTI_ACTIVITY_FLAG_MARKER_START;
    const uint64_t at = s->markers.timestamp();
    if (!trace_on_stream(stream, id, flag)) return 0;
    if (!range_open(id, stream)) open_ranges_full(id);
    write_host_marker(s, flag, id, name, domain_name, names::kStagedInternedName, at);
    return id;
}

// Forgets the range whether or not its end is recorded, so that ends arriving while MARKER or
// the domain is off cannot leave the open-range table full of dead entries.
void end_range(mstxRangeId id, bool record) {
    void *stream = nullptr;
    if (!range_close(id, &stream)) return;  // 0, unknown, already ended or evicted: no record, as msPTI
    if (!record) return;  // ended while not collecting: the end is not recorded
    ThreadStaging *s = t_staging;
    if (__builtin_expect(stream == nullptr && s != nullptr, 1) && end_without_calls(s, id)) return;
    s = ActivityEngine::staging();
    if (s == nullptr) {
        engine().count_unstaged_drop(kMarker);
        return;
    }
    msptiActivityFlag flag =
        stream != nullptr ? MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE : MSPTI_ACTIVITY_FLAG_MARKER_END;
    const uint64_t at = s->markers.timestamp();
    if (!trace_on_stream(stream, id, flag)) return;
    write_host_marker(s, flag, id, "", "", 0, at);
}

}  // namespace

void set_stream_trace(StreamTraceFunc trace) { g_stream_trace.store(trace, std::memory_order_release); }

uint64_t next_marker_id() {
    ThreadStaging *s = ActivityEngine::staging();
    if (s != nullptr) return s->markers.take_id();
    return ThreadMarkers::take_shared_id();
}

namespace {

// Writes a host mark of the default domain with an interned `name` into this thread's ring, if
// that needs no call: an id left in the thread's block, the TSC in use, room in the ring. False
// (nothing written) otherwise. kTicksInUse: the caller knows that raw ticks are in use.
template <bool kTicksInUse>
inline bool mark_without_calls(ThreadStaging *s, const char *name) {
    uint64_t h = 0, id = 0, at = 0;
    // The id last: a failed try leaves no trace.
    if constexpr (kTicksInUse) {
        if (__builtin_expect(!s->ring.room_at(h) || !s->markers.try_take_id(id), 0)) return false;
        at = clock::raw_tick();
    } else if (__builtin_expect(!s->ring.room_at(h) || !clock::raw_tick_now(at) || !s->markers.try_take_id(id), 0)) {
        return false;
    }
    put_host_marker(s, h, kMarkHeader, at, id, name, kDefaultDomain);
    return true;
}

// mark()'s second try, out of line: a message the thread's cache holds but did not intern last
// (or NULL, which mark_in reports).
__attribute__((noinline)) void mark_cached(ThreadStaging *s, const char *message) {
    s->markers.mirror_waiting();
    const char *name = message != nullptr ? s->markers.cached(message) : nullptr;
    if (name == nullptr || !mark_without_calls<false>(s, name)) {
        mark_in(kDefaultDomain, message, nullptr, "mstxMarkA");
        return;
    }
    s->markers.keep_last(message);  // its next mark takes the path with no call
}

// The start of a host range of the default domain with the message this thread interned last
// (is_last(), which also says that raw ticks are in use): an id left in the thread's block and
// room in the ring, else 0 (nothing written).
inline mstxRangeId start_without_calls(ThreadStaging *s) {
    uint64_t h = 0, id = 0;
    if (__builtin_expect(!s->ring.room_at(h) || !s->markers.try_take_id(id), 0)) return 0;
    const uint64_t at = clock::raw_tick();
    if (__builtin_expect(!range_open(id, nullptr), 0)) open_ranges_full(id);
    put_host_marker(s, h, kStartHeader, at, id, s->markers.last_interned(), kDefaultDomain);
    return id;
}

// range_start()'s general path, out of line: the message is then kept as the thread's last, so
// that the next start of the same message takes the path with no call.
__attribute__((noinline)) mstxRangeId start_general(const char *message, aclrtStream stream) {
    ThreadStaging *s = t_staging;
    if (s != nullptr) s->markers.mirror_waiting();
    const mstxRangeId id = start_in(kDefaultDomain, message, stream, "mstxRangeStartA");
    if (id != 0 && stream == nullptr && (s = t_staging) != nullptr) s->markers.keep_last(message);
    return id;
}

}  // namespace

void mark(const char *message, aclrtStream stream) {
    // Not collecting: nothing to record (nor to report: mark_in would return at once too).
    if (!default_marks_on()) return;
    // The common case inline, with no call: a host mark, a thread with its staging, the message
    // it interned last, an id left in its block, room in the ring. Anything else goes out of
    // line (a jump, not a call), so this path saves no registers. A NULL message is never the
    // last one (ThreadMarkers::is_last): mark_cached sends it on to be reported.
    ThreadStaging *s = t_staging;
    if (__builtin_expect(stream == nullptr, 1) && __builtin_expect(s != nullptr, 1)) {
        // is_last() also says that raw ticks are in use.
        if (__builtin_expect(s->markers.is_last(message), 1) && mark_without_calls<true>(s, s->markers.last_interned()))
            return;
        return mark_cached(s, message);
    }
    mark_in(kDefaultDomain, message, stream, "mstxMarkA");
}

mstxRangeId range_start(const char *message, aclrtStream stream) {
    // Not collecting: no record and no id (start_in would return 0 at once too).
    if (!default_marks_on()) return 0;
    // As in mark(): a host range of a thread with its staging and the message it kept last takes
    // the path with no call (bar the open-range table's); anything else goes out of line.
    ThreadStaging *s = t_staging;
    if (__builtin_expect(stream == nullptr, 1) && __builtin_expect(s != nullptr, 1) &&
        __builtin_expect(s->markers.is_last(message), 1)) {
        if (const mstxRangeId id = start_without_calls(s); __builtin_expect(id != 0, 1)) return id;
    }
    return start_general(message, stream);
}

void range_end(mstxRangeId id) { end_range(id, default_marks_on()); }

mstxDomainHandle_t domain_create(const char *name) { return create_domain(name); }

void domain_destroy(mstxDomainHandle_t domain) { destroy_domain(domain); }

namespace {
// The domain if it may record now, else nullptr (unknown handles get an error message).
mstxDomainRegistration_st *recording_domain(mstxDomainHandle_t domain, const char *api) {
    mstxDomainRegistration_st *d = checked(domain);
    if (d == nullptr) {
        fail(MSPTI_ERROR_INVALID_PARAMETER, "%s: %p is not a domain handle", api, static_cast<void *>(domain));
        return nullptr;
    }
    if (!d->enabled.load(std::memory_order_relaxed) || d->destroyed.load(std::memory_order_relaxed)) return nullptr;
    return d;
}
}  // namespace

void domain_mark(mstxDomainHandle_t domain, const char *message, aclrtStream stream) {
    if (!ActivityEngine::enabled(kMarker)) return;
    if (mstxDomainRegistration_st *d = recording_domain(domain, "mstxDomainMarkA"))
        mark_in(d->name, message, stream, "mstxDomainMarkA");
}

mstxRangeId domain_range_start(mstxDomainHandle_t domain, const char *message, aclrtStream stream) {
    mstxRangeId id = 0;
    if (ActivityEngine::enabled(kMarker)) {
        mstxDomainRegistration_st *d = recording_domain(domain, "mstxDomainRangeStartA");
        if (d != nullptr) id = start_in(d->name, message, stream, "mstxDomainRangeStartA");
    }
    return id;
}

void domain_range_end(mstxDomainHandle_t domain, mstxRangeId id) {
    if (!ActivityEngine::enabled(kMarker)) {
        if (checked(domain) != nullptr) end_range(id, false);
        return;
    }
    mstxDomainRegistration_st *d = recording_domain(domain, "mstxDomainRangeEnd");
    // A disabled or destroyed domain drops the end (as msPTI) but still forgets the range.
    if (d != nullptr || checked(domain) != nullptr) end_range(id, d != nullptr);
}

}  // namespace mspti::mstx
