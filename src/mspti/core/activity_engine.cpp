#include "core/activity_engine.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstddef>
#include <cstring>
#include <new>
#include <pthread.h>

#include "common/diagnostics.h"
#include "core/buffer_limit.h"
#include "core/clock.h"
#include "core/marker_names.h"
#include "core/page_prefault.h"

namespace mspti {

namespace {

// Set while this thread runs a client callback, so that re-entrant calls behave.
thread_local int t_in_complete = 0;
thread_local bool t_in_request = false;
// The buffer whose complete callback this thread runs (for msptiExtActivityHoldBuffer).
thread_local const uint8_t *t_completing_data = nullptr;

}  // namespace

ActivityEngine &ActivityEngine::instance() {
    // Leaked on purpose: threads may record while the process exits.
    static ActivityEngine *engine = new ActivityEngine();
    return *engine;
}

ThreadStaging *ActivityEngine::register_this_thread() {
    ensure_worker();  // a thread of a forked child may be the first to record there
    ThreadStaging *s = ThreadStaging::make_for_this_thread();
    if (s == nullptr) return nullptr;
    {
        std::lock_guard<std::mutex> lock(consumer_mutex_);
        stagings_.push(s);
    }
    t_staging = s;
    return s;
}

ThreadStaging *ActivityEngine::register_shared_staging() {
    ensure_worker();
    ThreadStaging *s = ThreadStaging::make_shared();
    std::lock_guard<std::mutex> lock(consumer_mutex_);
    stagings_.push(s);
    return s;
}

void *ActivityEngine::reserve_slow(ThreadStaging *s, int kind) {
    // Ring full: move it into client buffers ourselves (asking for new ones if needed) rather
    // than lose records. Buffers that fill up are left to the worker: an application thread
    // never runs the complete callback nor waits for another delivery here, so a producer
    // holding a lock the callback needs (a Python GIL, say) cannot deadlock against it. Inside
    // the request callback we cannot ask for a buffer again, so there the record is dropped.
    // Past the limit of buffers in flight the record is dropped, or, under the lossless policy,
    // this thread waits (bounded) for the worker to hand a buffer back and tries again.
    if (!t_in_request) {
        for (;;) {
            bool completed, retry = false;
            {
                std::unique_lock<std::mutex> lock(consumer_mutex_);
                bool blocked = drain(lock, s, true);
                completed = buffers_.has_completed() || spare_wanted();
                if (blocked && buffer_limit::policy() == MSPTI_EXT_BUFFER_LIMIT_WAIT && t_in_complete == 0) {
                    if (completed) nudge();
                    retry = wait_below_limit(lock);
                }
            }
            if (completed) nudge();
            if (void *slot = s->ring.try_reserve()) return slot;
            if (!retry) break;
        }
    }
    s->ring.count_dropped(kind);
    return nullptr;
}

void ActivityEngine::quarter_filled_of(ThreadStaging *s) { instance().quarter_filled(s); }

void ActivityEngine::quarter_filled(ThreadStaging *s) {
    // The slots just written are still in this thread's cache, so moving them into the client
    // buffer here costs a few ns a record; the worker would pull every line across to its core
    // and this thread would pull it back to write the next lap (a mark took 22 ns against 17.5).
    // Only if the consumer lock is free: another producer or the worker moving records now
    // means this ring is tried again at its next quarter (and waited for only when it is full),
    // so producers never wait on each other here.
    ensure_worker();  // a forked child's first record starts its worker (for the flush period)
    if (!t_in_request) {
        std::unique_lock<std::mutex> lock(consumer_mutex_, std::try_to_lock);
        if (!lock.owns_lock()) return;
        bool blocked = drain(lock, s, true, true);
        bool completed = buffers_.has_completed() || spare_wanted();
        lock.unlock();
        // The worker hands buffers back, waits out the limit, and asks for the next buffer.
        if (blocked || completed) nudge();
        return;
    }
    nudge();
}

void ActivityEngine::free_retired_names() {
    // Ever-new marker names: a full drain frees those retired so far, rather than let them pile
    // up until the worker's next round (a thread marks millions of names a second). Skipped if
    // another thread is draining: the next new name tries again.
    if (t_in_request || t_in_complete > 0) return;
    std::unique_lock<std::mutex> lock(consumer_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    bool blocked = drain_all(lock, true);
    bool completed = buffers_.has_completed();
    lock.unlock();
    if (!blocked) names::reclaim();
    if (blocked || completed) nudge();
}

void ActivityEngine::nudge() { worker_.nudge(); }

// ---- consumer side -------------------------------------------------------------------

bool ActivityEngine::at_limit() const {
    // Buffers asked for inside a complete callback (a nested flush) are exempt: that thread is
    // the one handing buffers back, so waiting for one there would never end.
    // A request may pass the byte limit by one buffer: its size is known only once it is made.
    return buffers_.over_limit(buffer_limit::max_in_flight(), buffer_limit::max_bytes_in_flight()) &&
           t_in_complete == 0;
}

bool ActivityEngine::buffer_available() const {
    // Below the limit, or another thread has since installed a buffer that may have room.
    return !at_limit() || buffers_.current().data != nullptr || buffers_.has_spare();
}

bool ActivityEngine::wait_below_limit(std::unique_lock<std::mutex> &lock) {
    if (wait_stalled_) return false;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(buffer_limit::wait_ms());
    if (buffers_.changed().wait_until(lock, deadline, [this] { return buffer_available(); })) return true;
    if (!wait_stalled_)
        log(LogLevel::Warning, "no client buffer came back within %u ms: dropping records until one does",
            buffer_limit::wait_ms());
    wait_stalled_ = true;
    return false;
}

void ActivityEngine::limit_changed() {
    std::lock_guard<std::mutex> lock(consumer_mutex_);
    wait_stalled_ = false;
    buffers_.changed().notify_all();
}

ActivityEngine::Obtained ActivityEngine::obtain_buffer(std::unique_lock<std::mutex> &lock, size_t need) {
    if (buffers_.current().data != nullptr) buffers_.retire_current();
    if (!buffers_.has_spare()) {
        msptiBuffersCallbackRequestFunc request = request_.load(std::memory_order_acquire);
        if (request == nullptr) return Obtained::Declined;
        if (at_limit()) return Obtained::AtLimit;
        uint8_t *data = nullptr;
        size_t size = 0, max_records = 0;
        buffers_.request_begun();
        lock.unlock();
        t_in_request = true;
        request(&data, &size, &max_records);
        t_in_request = false;
        lock.lock();
        if (data == nullptr) {
            buffers_.request_declined();
            return Obtained::Declined;
        }
        buffers_.request_given(size);
        if (size == 0 || reinterpret_cast<uintptr_t>(data) % 8 != 0) {
            // Unusable: records are 8-byte structures written from the buffer's start. The
            // client still owns the buffer, so it goes back through the complete callback, empty.
            log(LogLevel::Error,
                "buffer request callback returned %s buffer %p (size %zu): handed back empty, "
                "records dropped",
                size == 0 ? "a zero-size" : "a not 8-byte aligned", static_cast<void *>(data), size);
            // Not made current: another consumer may have installed a buffer while we asked,
            // and overwriting it lost its records (never handed back).
            buffers_.retire_unused(ClientBuffers::fresh(data, size));
            return Obtained::Declined;
        }
        buffers_.add_spare(ClientBuffers::fresh(data, size));
        buffers_.changed().notify_all();  // threads waiting at the limit may use it
        // Another consumer may have installed (and even filled) a buffer while we were unlocked:
        // keep ours for later and let the caller look again.
        if (buffers_.current().data != nullptr) return Obtained::Retry;
    }
    buffers_.make_current(buffers_.take_spare());
    prefetch_declined_ = false;  // a new buffer is being filled: the worker may ask for the next
    if (buffers_.current().size < need) {
        buffers_.retire_current();  // smaller than one record: hand it back empty
        return Obtained::Declined;
    }
    return Obtained::Ready;
}

bool ActivityEngine::spare_wanted() const {
    // Records are flowing into a buffer past the threshold and none is ready to follow it. Not at
    // the limit (the worker could not ask), nor after the client declined the last ask for this
    // buffer (the producer asks for itself when it needs one, as before): both would wake the
    // worker at every quarter ring for nothing.
    const ClientBuffer &current = buffers_.current();
    if (current.data == nullptr) return false;
    const size_t used = current.valid + (current.size - current.names_at);  // records and names
    return flushing_ == 0 && used >= current.size / 100 * kAskAheadFromPercent && buffers_.spares() < kSparesAhead &&
           !buffers_.asking() && !prefetch_declined_ && request_.load(std::memory_order_relaxed) != nullptr &&
           !at_limit();
}

bool ActivityEngine::collection_stopped() {
    for (int kind = MSPTI_ACTIVITY_KIND_MARKER; kind < kKindCount; ++kind)
        if (enabled(kind)) return false;
    return true;
}

void ActivityEngine::prefetch_spares() {
    for (size_t i = 0; i < kSparesAhead; ++i)
        if (!prefetch_spare()) return;
}

bool ActivityEngine::prefetch_spare() {
    // On the worker: the buffer that will follow the current one is asked for now, and its pages
    // are faulted in, so that the producer that fills the current one takes it ready-made rather
    // than run the request callback and take a page fault every 4 KiB on its own thread.
    std::unique_lock<std::mutex> lock(consumer_mutex_);
    if (!spare_wanted()) return false;
    msptiBuffersCallbackRequestFunc request = request_.load(std::memory_order_acquire);
    uint8_t *data = nullptr;
    size_t size = 0, max_records = 0;
    buffers_.request_begun();
    prefetching_ = true;
    lock.unlock();
    t_in_request = true;
    request(&data, &size, &max_records);
    t_in_request = false;
    const bool usable = data != nullptr && size != 0 && reinterpret_cast<uintptr_t>(data) % 8 == 0;
    if (usable) prefault_pages(data, size);
    lock.lock();
    prefetching_ = false;
    buffers_.changed().notify_all();  // a flush at the end of collection waits for an ask in progress
    if (data == nullptr) {
        buffers_.request_declined();
        prefetch_declined_ = true;
        return false;
    }
    buffers_.request_given(size);
    if (!usable) {
        // As in obtain_buffer: the client still owns it, so it goes back empty. No record was
        // waiting for it, so none is dropped.
        log(LogLevel::Error, "buffer request callback returned %s buffer %p (size %zu): handed back empty",
            size == 0 ? "a zero-size" : "a not 8-byte aligned", static_cast<void *>(data), size);
        buffers_.retire_unused(ClientBuffers::fresh(data, size));
        prefetch_declined_ = true;
        return false;
    }
    // Kept even if a flush ran meanwhile: an ordinary flush leaves spares for the records to come,
    // and one at the end of collection waited for this ask and hands it back next.
    buffers_.add_spare(ClientBuffers::fresh(data, size));
    return true;
}

namespace {

// Whether a staged marker points to an interned name (which the drain copies into the buffer).
bool has_interned_name(const unsigned char *staged) {
    int source;
    std::memcpy(&source, staged + offsetof(msptiActivityMarker, sourceKind), sizeof(source));
    return (source & names::kStagedInternedName) != 0;
}

const char *staged_name(const unsigned char *staged) {
    const char *name;
    std::memcpy(&name, staged + offsetof(msptiActivityMarker, name), sizeof(name));
    return name;
}

// Bytes the staged record needs at a buffer's end for its name's copy.
size_t name_bytes(int kind, const unsigned char *staged) {
    if (kind != MSPTI_ACTIVITY_KIND_MARKER || !has_interned_name(staged)) return 0;
    return names::node_of(staged_name(staged))->length + 1;
}

// Copies a marker record; one staged with a raw tick gets its epoch time, never earlier than
// the last one of its thread. The tick is read from the staged record, not the copy: a load
// straddling the copy's wide stores could not be forwarded from them and would wait for both.
void copy_marker(uint8_t *to, const unsigned char *staged, const char *name, ThreadStaging *s,
                 clock::TickConverter &ticks) {
    constexpr size_t at = offsetof(msptiActivityMarker, timestamp);
    uint64_t t;
    std::memcpy(&t, staged + at, sizeof(t));
    std::memcpy(to, staged, sizeof(msptiActivityMarker));  // a fixed size: no call
    if (name != nullptr) {
        // The copy of an interned name, placed in the buffer. Such a marker is a host one, so
        // its sourceKind is HOST once the staging bit is gone.
        std::memcpy(to + offsetof(msptiActivityMarker, name), &name, sizeof(name));
        const int host = MSPTI_ACTIVITY_SOURCE_KIND_HOST;
        std::memcpy(to + offsetof(msptiActivityMarker, sourceKind), &host, sizeof(host));
    }
    if (!clock::is_raw_tick(t)) return;
    t = ticks.to_epoch(t);
    if (t < s->last_marker_ns) t = s->last_marker_ns;
    s->last_marker_ns = t;
    std::memcpy(to + at, &t, sizeof(t));
}

// 32 bytes at any address, moved as one where the code is compiled for AVX.
typedef char Bytes32 __attribute__((vector_size(32), aligned(1), may_alias));

// One marker of copy_marker_run: copies the staged marker `bytes` to `to` with its raw tick
// converted (by the window `w`, else by `ticks`, which renews `w`) and no earlier than `last_ns`
// (updated), and if kNamed, `name` (the copy of its interned name) with a sourceKind of HOST (an
// interned name is a host marker's). The tick is read from the staged record (see copy_marker).
// kWide: compiled for AVX2 (marker_run_avx2).
template <bool kNamed, bool kWide>
__attribute__((always_inline)) inline void put_marker(uint8_t *to, const unsigned char *bytes, const char *name,
                                                      clock::TickConverter &ticks, clock::TickConverter::Window &w,
                                                      uint64_t &last_ns) {
    constexpr size_t kAt = offsetof(msptiActivityMarker, timestamp);
    uint64_t t;
    std::memcpy(&t, bytes + kAt, sizeof(t));
    if constexpr (kWide) {
        // The 56 bytes as two 32-byte moves that overlap by 8: two loads and two stores, not four.
        static_assert(sizeof(msptiActivityMarker) == 56 && sizeof(StagingSlot) >= 56,
                      "two 32-byte moves cover a marker");
        const Bytes32 low = *reinterpret_cast<const Bytes32 *>(bytes);
        const Bytes32 high = *reinterpret_cast<const Bytes32 *>(bytes + 24);
        *reinterpret_cast<Bytes32 *>(to) = low;
        *reinterpret_cast<Bytes32 *>(to + 24) = high;
    } else {
        std::memcpy(to, bytes, sizeof(msptiActivityMarker));  // a fixed size: no call
    }
    if (kNamed) {
        const int host = MSPTI_ACTIVITY_SOURCE_KIND_HOST;
        std::memcpy(to + offsetof(msptiActivityMarker, sourceKind), &host, sizeof(host));
        std::memcpy(to + offsetof(msptiActivityMarker, name), &name, sizeof(name));
    }
    const uint64_t d = t - w.from;
    if (__builtin_expect(d < w.span, 1)) {
        t = w.offset + static_cast<uint64_t>((static_cast<unsigned __int128>(d) * w.mult) >> 32);
    } else {
        if (!clock::is_raw_tick(t)) return;  // epoch nanoseconds, clamped by the producer
        t = ticks.to_epoch(t);
        w = ticks.window();
    }
    if (t > last_ns) last_ns = t;  // the later of the two, in place: one conditional move
    std::memcpy(to + kAt, &last_ns, sizeof(last_ns));
}

// Copies the run of marker records staged in `ring` from `tail` on into the buffer `out`, whose
// records end at `valid` and names begin at `names_at` (both updated), and returns where it
// stopped: at `head`, at a record of another kind, or at a marker the buffer has no room for
// (drain's general path takes it from there). The per-record work of copy_marker, with what is
// the same along a run kept out of it: one name-copy lookup per name (not per record), the tick
// conversion's window, the buffer's room and the thread's last time in registers.
template <bool kWide>
__attribute__((always_inline)) inline uint64_t marker_run(const StagingRing &ring, uint64_t tail, uint64_t head,
                                                          uint8_t *out, size_t &valid_io, size_t &names_at_io,
                                                          ClientBuffers &buffers, clock::TickConverter &ticks,
                                                          uint64_t &last_ns_io) {
    constexpr size_t kSize = sizeof(msptiActivityMarker);
    static const char kNoName = 0;  // no staged record points here
    size_t valid = valid_io, names_at = names_at_io;
    uint64_t last_ns = last_ns_io;
    // The last interned name seen and its copy here. A staged name equal to it is that interned
    // name (a pinned name's memory holds no other text), so the common record reads no sourceKind.
    const char *interned = &kNoName, *copy = nullptr;
    const StagingSlot *const slots = ring.slots();
    const uint64_t capacity = ring.mask() + 1;
    clock::TickConverter::Window w = ticks.window();
    for (;;) {
        // A stretch of slots that lie in a row, up to head, the buffer's room and the ring's end:
        // the loop steps two pointers and tests one.
        const uint64_t at = tail & (capacity - 1);
        const uint64_t n = std::min({head - tail, static_cast<uint64_t>((names_at - valid) / kSize), capacity - at});
        if (n == 0) break;
        const StagingSlot *const first = slots + at;
        const StagingSlot *from = first;
        const StagingSlot *stop = first + n;
        uint8_t *to = out + valid;
        for (; from != stop; ++from, to += kSize) {
            const unsigned char *bytes = from->bytes;
            int kind;
            const char *name;
            std::memcpy(&kind, bytes, sizeof(kind));
            if (kind != MSPTI_ACTIVITY_KIND_MARKER) break;
            std::memcpy(&name, bytes + offsetof(msptiActivityMarker, name), sizeof(name));
            if (__builtin_expect(name != interned, 0)) {
                int source;
                std::memcpy(&source, bytes + offsetof(msptiActivityMarker, sourceKind), sizeof(source));
                if ((source & names::kStagedInternedName) == 0) {  // a name that lives as long as the process
                    put_marker<false, kWide>(to, bytes, nullptr, ticks, w, last_ns);
                    continue;
                }
                const char *c = buffers.name_copy(name);
                if (c == nullptr) {
                    const size_t filled = static_cast<size_t>(to - out);
                    if ((c = buffers.place_name(name, out, filled, kSize, names_at)) == nullptr) break;
                    // The name took room from the records: the stretch ends where that room does.
                    const StagingSlot *const room_end = from + (names_at - filled) / kSize;
                    if (room_end < stop) stop = room_end;
                }
                interned = name;
                copy = c;
            }
            put_marker<true, kWide>(to, bytes, copy, ticks, w, last_ns);
        }
        tail += static_cast<uint64_t>(from - first);
        valid = static_cast<size_t>(to - out);
        if (from != stop) break;  // another kind, or a name with no room
    }
    valid_io = valid;
    names_at_io = names_at;
    last_ns_io = last_ns;
    return tail;
}

#if defined(__x86_64__) && defined(__GNUC__)
// marker_run compiled for AVX2, where the processor has it: a marker's 56 bytes then move with
// two loads and two stores instead of four of each.
__attribute__((target("avx2"))) uint64_t marker_run_avx2(const StagingRing &ring, uint64_t tail, uint64_t head,
                                                         uint8_t *out, size_t &valid_io, size_t &names_at_io,
                                                         ClientBuffers &buffers, clock::TickConverter &ticks,
                                                         uint64_t &last_ns_io) {
    return marker_run<true>(ring, tail, head, out, valid_io, names_at_io, buffers, ticks, last_ns_io);
}
const bool g_has_avx2 = (__builtin_cpu_init(), __builtin_cpu_supports("avx2"));
#endif

uint64_t copy_marker_run(const StagingRing &ring, uint64_t tail, uint64_t head, uint8_t *out, size_t &valid_io,
                         size_t &names_at_io, ClientBuffers &buffers, clock::TickConverter &ticks,
                         uint64_t &last_ns_io) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (g_has_avx2) return marker_run_avx2(ring, tail, head, out, valid_io, names_at_io, buffers, ticks, last_ns_io);
#endif
    return marker_run<false>(ring, tail, head, out, valid_io, names_at_io, buffers, ticks, last_ns_io);
}

// Copies the run of KERNEL records staged in `ring` from `tail` on into the buffer `out`, whose records
// end at `valid_io` (updated) and names begin at `names_at`, and returns where it stopped: at `head`,
// at a record of another kind, or where the buffer has no room (drain's general path takes it from
// there). A kernel record has no name to place and a fixed size (msptiExtRecordSize's), so a record
// costs a kind test and a copy of a few stores (the device's records come in such runs).
uint64_t copy_kernel_run(const StagingRing &ring, uint64_t tail, uint64_t head, uint8_t *out, size_t &valid_io,
                         size_t names_at) {
    constexpr size_t kSize = sizeof(msptiActivityKernel);
    size_t valid = valid_io;
    const StagingSlot *const slots = ring.slots();
    const uint64_t mask = ring.mask();
    const uint64_t room = (names_at - valid) / kSize;
    const uint64_t end = head - tail < room ? head : tail + room;
    for (; tail != end; ++tail) {
        const unsigned char *bytes = slots[tail & mask].bytes;
        int kind;
        std::memcpy(&kind, bytes, sizeof(kind));
        if (kind != MSPTI_ACTIVITY_KIND_KERNEL) break;
        std::memcpy(out + valid, bytes, kSize);  // a fixed size: no call
        valid += kSize;
    }
    valid_io = valid;
    return tail;
}

}  // namespace

bool ActivityEngine::drain(std::unique_lock<std::mutex> &lock, ThreadStaging *s, bool may_obtain, bool defer,
                           bool *deferred) {
    // Delivered counts are summed locally and published once per pass (and before any unlock).
    uint64_t copied[kKindCount] = {};
    auto publish = [&] {
        for (int k = 1; k < kKindCount; ++k) {
            if (copied[k] != 0) {
                counters_.add_delivered(k, copied[k]);
                s->ring.count_taken(k, copied[k]);
            }
            copied[k] = 0;
        }
    };
    // Up to the records staged when the drain began: a producer that goes on recording cannot
    // keep a drain (a flush, the worker) going for ever; later records wait for the next one.
    const uint64_t head = s->ring.read_head();
    for (;;) {
        uint64_t tail = s->ring.read_tail();
        if (tail >= head) return false;  // (another consumer may have drained past it while we asked for a buffer)
        // The buffer's fields in locals: the copies below could alias any member. Records may
        // use the bytes up to `names_at`, where the copied names begin.
        ClientBuffer &current = buffers_.current();
        uint8_t *const out = current.data;
        size_t names_at = current.names_at;
        size_t valid = current.valid;
        while (tail != head) {
            const unsigned char *bytes = s->ring.slot(tail);
            int kind;
            std::memcpy(&kind, bytes, sizeof(kind));
            if (kind == MSPTI_ACTIVITY_KIND_MARKER && out != nullptr) {
                // Markers come in runs (a thread marking): copied by a loop of their own.
                const uint64_t next =
                    copy_marker_run(s->ring, tail, head, out, valid, names_at, buffers_, ticks_, s->last_marker_ns);
                if (next != tail) {
                    copied[kind] += next - tail;
                    tail = next;
                    continue;
                }
            } else if (kind == MSPTI_ACTIVITY_KIND_KERNEL && out != nullptr) {
                const uint64_t next = copy_kernel_run(s->ring, tail, head, out, valid, names_at);
                if (next != tail) {
                    copied[kind] += next - tail;
                    tail = next;
                    continue;
                }
            }
            size_t size = record_size(kind);
            const char *name = nullptr;  // the copy of a marker's interned name, in the buffer
            bool fits = out != nullptr && names_at - valid >= size;
            if (fits && kind == MSPTI_ACTIVITY_KIND_MARKER && has_interned_name(bytes)) {
                const char *interned = staged_name(bytes);
                name = buffers_.name_copy(interned);
                if (name == nullptr) {
                    name = buffers_.place_name(interned, out, valid, size, names_at);
                    fits = name != nullptr;
                }
            }
            if (!fits) {
                current.valid = valid;
                current.names_at = names_at;
                s->ring.release_to(tail);
                publish();
                if (!may_obtain) return false;
                if (defer && !buffers_.has_spare() && buffers_.asking()) {
                    if (deferred != nullptr) *deferred = true;
                    return false;  // the thread asking drains on with its buffer, or the next drain does
                }
                Obtained obtained = obtain_buffer(lock, size + name_bytes(kind, bytes));
                if (obtained == Obtained::AtLimit) return true;  // records stay staged
                if (obtained == Obtained::Declined) {
                    // Declined (or too small): drop what this pass holds, counted per kind.
                    uint64_t now_tail = s->ring.read_tail();
                    if (now_tail < head) {
                        for (uint64_t i = now_tail; i != head; ++i) {
                            int k;
                            std::memcpy(&k, s->ring.slot(i), sizeof(k));
                            counters_.add_consumer_dropped(k);
                            s->ring.count_taken(k, 1);
                        }
                        s->ring.release_to(head);
                    }
                }
                break;  // re-read tail and head: the lock was released
            }
            uint8_t *to = out + valid;
            if (kind == MSPTI_ACTIVITY_KIND_MARKER) {
                copy_marker(to, bytes, name, s, ticks_);
            } else if (names_at - valid >= kMaxRecordSize) {
                // The whole slot, a fixed size: a few stores instead of a call. The bytes past
                // this record fall where the next one goes, or past `valid`.
                std::memcpy(to, bytes, kMaxRecordSize);
            } else {
                std::memcpy(to, bytes, size);
            }
            valid += size;
            ++copied[kind];
            ++tail;
        }
        if (tail == head) {  // (else the buffer was handed on above)
            current.valid = valid;
            current.names_at = names_at;
            s->ring.release_to(tail);
        }
        publish();
    }
}

bool ActivityEngine::drain_all(std::unique_lock<std::mutex> &lock, bool defer) {
    // drain() may unlock to ask for a buffer. The list only grows at its head meanwhile, and
    // nothing is unlinked while any walk is in progress, so following `next` stays safe.
    // Marker names retired before a full drain are referenced by no staged record once it is
    // done (their records hold copies): names::reclaim() may free them. A drain stopped at the
    // limit leaves records staged, so their names wait for the next one.
    uint64_t names_ticket = names::seal();
    ++active_walks_;
    bool blocked = false, deferred = false;
    for (ThreadStaging *s = stagings_.first(); s != nullptr && !blocked; s = s->next)
        blocked = drain(lock, s, true, defer, &deferred);
    if (--active_walks_ == 0) reclaim_retired();
    if (blocked || deferred)  // records left staged may point to the sealed names
        names::unseal(names_ticket);
    else
        names::drained(names_ticket);
    return blocked;
}

void ActivityEngine::reclaim_retired() {
    ThreadStaging **link = stagings_.first_link();
    while (*link != nullptr) {
        ThreadStaging *s = *link;
        if (s->retired.load(std::memory_order_acquire) && s->ring.read_tail() == s->ring.read_head()) {
            counters_.absorb(s->ring);
            *link = s->next;
            delete s;
        } else {
            link = &s->next;
        }
    }
}

void ActivityEngine::deliver(std::vector<ClientBuffer> &batch) {
    if (batch.empty()) return;
    msptiBuffersCallbackCompleteFunc complete = complete_.load(std::memory_order_acquire);
    // Buffers are handed back one at a time, in the order they were filled, so a client sees
    // each thread's records in order and never has two complete callbacks running at once.
    // The exception: buffers flushed from inside a complete callback are handed back at once
    // (waiting for our own turn there would deadlock).
    bool nested = t_in_complete > 0;
    for (const ClientBuffer &b : batch) {
        if (!nested) {
            std::unique_lock<std::mutex> lock(consumer_mutex_);
            buffers_.wait_turn(lock, b.seq);
        }
        ++t_in_complete;
        const uint8_t *outer_data = t_completing_data;
        t_completing_data = b.data;
        if (complete != nullptr) complete(b.data, b.size, b.valid);
        t_completing_data = outer_data;
        --t_in_complete;
        std::lock_guard<std::mutex> lock(consumer_mutex_);
        wait_stalled_ = false;
        buffers_.handed_back(b);
    }
}

void ActivityEngine::flush_all() {
    if (t_in_request) {
        log(LogLevel::Warning, "msptiActivityFlushAll called from the buffer request callback: ignored");
        return;
    }
    // Records of what the device finished before the call are staged first.
    if (void (*device)() = device_flush_.load(std::memory_order_acquire)) device();
    // At the limit of buffers in flight a flush does not drop: it hands back what is full,
    // waits for buffers to come back if others are handing them back, and drains on.
    // A buffer asked for ahead of need and not used yet stays for the records to come: handing it
    // back empty would show the client a request and a complete that msPTI's library never makes
    // (docs/architecture.md, "Client buffers ahead of need"). Only at the end of collection (no
    // kind enabled) does it go back too, so that the client then has every buffer back.
    // No ask ahead of need starts while a flush runs (spare_wanted).
    struct Flushing {
        ActivityEngine &e;
        explicit Flushing(ActivityEngine &engine) : e(engine) {
            std::lock_guard<std::mutex> lock(e.consumer_mutex_);
            ++e.flushing_;
        }
        ~Flushing() {
            std::lock_guard<std::mutex> lock(e.consumer_mutex_);
            --e.flushing_;
        }
    } flushing(*this);
    auto retire_filled = [this] {
        if (collection_stopped())
            buffers_.retire_all();  // the spares too
        else if (buffers_.current().data != nullptr)
            buffers_.retire_current();
    };
    uint64_t last_seq;
    for (;;) {
        std::vector<ClientBuffer> batch;
        bool blocked;
        {
            std::unique_lock<std::mutex> lock(consumer_mutex_);
            blocked = drain_all(lock);
            if (!blocked) retire_filled();
            batch = buffers_.take_completed();
            last_seq = buffers_.last_seq();
            if (blocked && batch.empty()) {
                // Buffers come back from whoever is handing them back, or producers complete
                // buffers for us to hand back: either way there is progress to make.
                buffers_.changed().wait(lock, [this] { return buffer_available() || buffers_.has_completed(); });
                continue;
            }
        }
        names::reclaim();  // frees memory: not under the consumer lock
        deliver(batch);
        if (!blocked) break;
    }
    if (t_in_complete > 0) return;  // waiting for other deliveries from inside one could deadlock
    // At the end of collection, buffers asked for while this flush ran (by the worker ahead of
    // need, or by a drain on another thread) may have arrived after it handed everything back:
    // they come back too, so that the client has every buffer back when the flush returns.
    std::vector<ClientBuffer> late;
    {
        std::unique_lock<std::mutex> lock(consumer_mutex_);
        if (collection_stopped()) {
            buffers_.changed().wait(lock, [this] { return !prefetching_ && !buffers_.asking(); });
            if (!drain_all(lock)) buffers_.retire_all();
            late = buffers_.take_completed();
            if (!late.empty()) last_seq = buffers_.last_seq();
        }
    }
    deliver(late);
    {
        std::unique_lock<std::mutex> lock(consumer_mutex_);
        buffers_.changed().wait(lock, [&] { return buffers_.handed_back_through(last_seq); });
    }
}

bool ActivityEngine::hold_buffer(const uint8_t *buffer) {
    if (buffer == nullptr || buffer != t_completing_data) return false;
    std::lock_guard<std::mutex> lock(holds_mutex_);
    holds_.insert(buffer);
    return true;
}

bool ActivityEngine::release_hold(const uint8_t *buffer) {
    std::lock_guard<std::mutex> lock(holds_mutex_);
    auto it = holds_.find(buffer);
    if (it == holds_.end()) return false;
    holds_.erase(it);
    return true;
}

void ActivityEngine::register_callbacks(msptiBuffersCallbackRequestFunc request,
                                        msptiBuffersCallbackCompleteFunc complete) {
    request_.store(request, std::memory_order_release);
    complete_.store(complete, std::memory_order_release);
    worker_.start();
}

void ActivityEngine::set_flush_period(uint32_t ms) {
    flush_period_ms_.store(ms, std::memory_order_relaxed);
    worker_.ensure();
    worker_.wake();
}

void ActivityEngine::stats(int kind, msptiExtActivityStats *out) {
    std::lock_guard<std::mutex> lock(consumer_mutex_);
    counters_.read(kind, stagings_.first(), out);
}

uint64_t ActivityEngine::discard_delivered(int kind, uint64_t n) {
    std::lock_guard<std::mutex> lock(consumer_mutex_);  // stats() sees both counts move together
    return counters_.move_delivered_to_dropped(kind, n);
}

// ---- worker --------------------------------------------------------------------------

void ActivityEngine::worker_main() {
    using Clock = std::chrono::steady_clock;
    auto next_calibration = Clock::now();  // steered from the first wake: clock.cpp says when next
    auto next_periodic = Clock::now();
    for (;;) {
        uint32_t period = flush_period_ms_.load(std::memory_order_relaxed);
        worker_.begin_round();  // what producers signal from now on is handled next round
        std::vector<ClientBuffer> batch;
        bool blocked;
        {
            std::unique_lock<std::mutex> lock(consumer_mutex_);
            blocked = drain_all(lock, true);
            // With a flush period, hand back a partly filled buffer every half period.
            if (period != 0 && Clock::now() >= next_periodic) {
                if (buffers_.current().data != nullptr && buffers_.current().valid > 0) buffers_.retire_current();
                next_periodic = Clock::now() + std::chrono::milliseconds(period) / 2;
            }
            batch = buffers_.take_completed();
        }
        names::reclaim();  // frees memory: not under the consumer lock
        deliver(batch);
        // After handing buffers back, not before: a client whose request callback waits for a
        // buffer to come back (a fixed pool) gets one, and a client that frees buffers in its
        // complete callback may get the same memory, its pages still present, for the next.
        if (!blocked) prefetch_spares();
        if (Clock::now() >= next_calibration)
            next_calibration = Clock::now() + std::chrono::milliseconds(clock::recalibrate());

        auto timeout = period != 0 ? std::chrono::milliseconds(period) / 2 : std::chrono::milliseconds(100);
        if (timeout < std::chrono::milliseconds(1)) timeout = std::chrono::milliseconds(1);
        if (blocked) {
            // Stopped at the limit with records still staged: go on as soon as a buffer is back
            // (another thread may be handing them back), rather than sleeping a full period.
            if (batch.empty()) {
                std::unique_lock<std::mutex> lock(consumer_mutex_);
                buffers_.changed().wait_for(lock, timeout,
                                            [this] { return buffer_available() || buffers_.has_completed(); });
            }
            if (worker_.stopping()) break;
            continue;
        }
        if (!worker_.sleep(timeout)) break;
    }
}

void ActivityEngine::shutdown() { worker_.shutdown(); }

// ---- fork ----------------------------------------------------------------------------

void ActivityEngine::fork_prepare() {
    // Neither lock is ever held while client code runs or while waiting for another lock of
    // ours, so these waits are short. The ring size is settled first, so that a child never
    // inherits its one-time initialisation half done.
    ThreadStaging::settle_capacity();
    consumer_mutex_.lock();
    worker_.lock_for_fork();
}

void ActivityEngine::fork_parent() {
    worker_.unlock_after_fork();
    consumer_mutex_.unlock();
}

void ActivityEngine::fork_child() {
    // Only this thread exists now; each part resets itself. Kinds and callbacks are kept.
    stagings_.restart_after_fork(t_staging);  // this thread's keeps its ring for the child's records
    buffers_.restart_after_fork();
    counters_.reset();  // the child's statistics count the child's records only
    // The consumer's own flags: walks, asks ahead of need and flushes in progress at the fork
    // were other threads' (or the parent's worker's) and never resume here.
    active_walks_ = 0;
    prefetch_declined_ = false;
    prefetching_ = false;
    flushing_ = 0;
    wait_stalled_ = false;
    worker_.forget_after_fork();  // releases the wake lock; a new worker starts on first need
    consumer_mutex_.unlock();
}

}  // namespace mspti
