// The activity engine: kind switches, per-thread staging, the client's buffers, and the
// worker that moves records from the first to the second and hands full buffers back.
//
// Hot path (reserve/commit): this thread's staging ring only; no lock, no allocation.
// Everything that touches client buffers runs under one consumer lock, and client
// callbacks (request, complete) always run with no library lock held.
#pragma once

#include <atomic>
#include <cstring>
#include <cstdint>
#include <mutex>
#include <set>
#include <vector>

#include "core/activity_kinds.h"
#include "core/client_buffers.h"
#include "core/clock.h"
#include "core/engine_worker.h"
#include "core/kind_counters.h"
#include "core/marker_names.h"
#include "core/thread_staging.h"
#include "mspti/mspti_activity.h"
#include "mspti/mspti_ext.h"

namespace mspti {

class ActivityEngine {
public:
    static ActivityEngine &instance();

    // The record path below is static: it touches the kind switches and this thread's staging
    // only, and reaches the engine object on its slow paths (first record, full ring, nudges).
    static bool enabled(int kind) { return enabled_[kind].load(std::memory_order_relaxed); }
    // A switch's store and this load are sequentially consistent, for a caller that derives a
    // switch of its own from them (mstx::refresh_default_marks).
    static bool enabled_now(int kind) { return enabled_[kind].load(); }
    static void set_enabled(int kind, bool on) { enabled_[kind].store(on); }

    // This thread's staging (created on first use, also in a thread's exit path); nullptr only if
    // it could not be registered.
    static ThreadStaging *staging() {
        ThreadStaging *s = t_staging;
        return __builtin_expect(s != nullptr, 1) ? s : instance().register_this_thread();
    }

    // A staging of no thread's own, for records a component writes under a lock of its own, in
    // the order it gives them (the device's records, whichever thread parses them). Never
    // retired; a forked child frees it with the other threads' stagings.
    ThreadStaging *register_shared_staging();

    // A slot for one record of `kind`, or nullptr if it had to be dropped (counted).
    static void *reserve(ThreadStaging *s, int kind) {
        void *slot = s->ring.try_reserve();
        return __builtin_expect(slot != nullptr, 1) ? slot : instance().reserve_slow(s, kind);
    }

    // A record that never reached a staging ring (its thread is exiting, or its range end
    // could not be tracked): counted as produced and dropped.
    void count_unstaged_drop(int kind) { counters_.add_unstaged_drop(kind); }

    // Every quarter ring the producer moves its ring into the client buffer itself, if no one
    // else holds the consumer lock (quarter_filled): it never waits for it there.
    static void commit(ThreadStaging *s, int kind) {
        (void)kind;  // counted from the slot (StagingRing::produced)
        if (__builtin_expect(s->ring.commit(), 0)) quarter_filled_of(s);
    }
    // commit() of the slot `h` of s's ring (StagingRing::room_at).
    static void commit_at(ThreadStaging *s, uint64_t h) {
        if (__builtin_expect(s->ring.commit_at(h), 0)) quarter_filled_of(s);
    }
    // instance().quarter_filled(s), out of line: the record paths then end in a jump to it and
    // keep no registers across a call.
    [[gnu::noinline]] static void quarter_filled_of(ThreadStaging *s);

    // Copies a complete record if its kind is enabled. The size is the record type's, known here,
    // so the copy is a few stores rather than a call to memcpy.
    template <typename Record>
    static void record(const Record &r) {
        static_assert(sizeof(Record) <= kMaxRecordSize, "a record must fit a staging slot");
        const int kind = r.kind;
        if (!is_valid_kind(kind) || !enabled(kind)) return;
        ThreadStaging *s = staging();
        if (__builtin_expect(s == nullptr, 0)) {
            instance().count_unstaged_drop(kind);
            return;
        }
        void *slot = reserve(s, kind);
        if (slot == nullptr) return;
        std::memcpy(slot, &r, sizeof(Record));
        commit(s, kind);
    }

    void register_callbacks(msptiBuffersCallbackRequestFunc request, msptiBuffersCallbackCompleteFunc complete);
    void flush_all();
    /// What flush_all() runs first: the device side parses what its channels hold (device/cann_collector).
    static void set_device_flush(void (*flush)()) { device_flush_.store(flush, std::memory_order_release); }
    void set_flush_period(uint32_t ms);
    void stats(int kind, msptiExtActivityStats *out);
    // The limit on buffers in flight changed: threads waiting for it look again.
    void limit_changed();
    // The client discarded `n` delivered records of `kind` unprocessed: they move from delivered
    // to dropped (at most as many as were delivered). Returns how many moved.
    uint64_t discard_delivered(int kind, uint64_t n);

    // msptiExtActivityHoldBuffer / ReleaseBuffer: kept for clients written against them. A
    // buffer's names live in the buffer itself, so a hold changes nothing but is still checked:
    // hold_buffer is false outside the complete callback for `buffer`, release_hold false for a
    // buffer not held.
    bool hold_buffer(const uint8_t *buffer);
    bool release_hold(const uint8_t *buffer);

    // Many marker names wait for a full drain to be freed (names::many_retired): a producer that
    // just retired one drains every ring now if no one else is draining.
    void free_retired_names();

    // Stops the worker (process exit). Waits a bounded time for a delivery in progress.
    void shutdown();

    // fork(): prepare takes the engine's locks so that no other thread is inside them at the
    // fork; the parent releases them. In the child, the forking thread is the only one left:
    // fork_child() drops what the parent had staged or buffered (the parent delivers it),
    // zeroes the counters, gives the forking thread's staging the child's pid and tid, and
    // leaves the worker to be started again on first need. Kinds and callbacks are kept.
    void fork_prepare();
    void fork_parent();
    void fork_child();

private:
    using ClientBuffer = ClientBuffers::Buffer;

    ActivityEngine() = default;
    ThreadStaging *register_this_thread();
    void *reserve_slow(ThreadStaging *s, int kind);
    void nudge();
    // A quarter of `s`'s ring was filled since the last one (the calling thread owns `s`).
    void quarter_filled(ThreadStaging *s);

    // Consumer side; each takes the consumer lock held by `lock`. drain and drain_all return
    // true when they stopped at the limit of buffers in flight, leaving records staged.
    // With `defer`, a drain that needs a buffer while another thread is asking the client for one
    // leaves its records staged (setting *deferred) rather than ask too: two asks at once gave the
    // client a request msPTI's library would not make. The worker and producers defer; a flush and
    // a producer whose ring is full do not.
    bool drain_all(std::unique_lock<std::mutex> &lock, bool defer = false);
    bool drain(std::unique_lock<std::mutex> &lock, ThreadStaging *s, bool may_obtain, bool defer = false,
               bool *deferred = nullptr);
    // Makes a client buffer with room for `need` bytes current; may unlock to ask the client.
    enum class Obtained { Ready, Retry, Declined, AtLimit };
    Obtained obtain_buffer(std::unique_lock<std::mutex> &lock, size_t need);
    bool at_limit() const;
    // The worker asks for one buffer to follow the current one, once the current one is half
    // full: a request the client would have seen soon anyway (docs/architecture.md, "Client
    // buffers ahead of need"). A workload that fits one buffer never sees an early request.
    static constexpr size_t kSparesAhead = 1;
    static constexpr size_t kAskAheadFromPercent = 50;
    // Whether the worker should ask for a buffer to follow the current one (prefetch_spare).
    bool spare_wanted() const;
    // On the worker, no lock held: asks the client for such a buffer and faults its pages in;
    // false if none was wanted or the client gave none. prefetch_spares asks until none is wanted.
    bool prefetch_spare();
    void prefetch_spares();
    // Whether no activity kind is enabled: nothing more will be recorded, so a flush hands back
    // the buffers asked for ahead of need too (the end of collection).
    static bool collection_stopped();
    bool buffer_available() const;
    // A producer under the lossless policy waits for a buffer to come back; false if it gave up.
    bool wait_below_limit(std::unique_lock<std::mutex> &lock);
    void reclaim_retired();
    void deliver(std::vector<ClientBuffer> &batch);
    // The worker's loop (EngineWorker runs it on its thread).
    void worker_main();
    void ensure_worker() { worker_.ensure(); }

    // Constant-initialised, outside the engine object: the record path reads them directly.
    static inline std::atomic<bool> enabled_[kKindCount] = {};
    static inline std::atomic<void (*)()> device_flush_{nullptr};

    // Under the consumer lock: the stagings list, the client's buffers, the tick conversion.
    std::mutex consumer_mutex_;
    StagingList stagings_;
    ClientBuffers buffers_;
    clock::TickConverter ticks_;  // converts staged raw ticks (core/clock.h)
    bool prefetch_declined_ = false;  // the client declined the worker's last ask ahead of need
    bool prefetching_ = false;  // the worker is asking ahead of need (unlocked, in the callback)
    int flushing_ = 0;  // flushes in progress (no ask ahead of need starts meanwhile)
    bool wait_stalled_ = false;  // a lossless wait timed out; no waiting until a buffer is back
    int active_walks_ = 0;
    KindCounters counters_;

    std::atomic<msptiBuffersCallbackRequestFunc> request_{nullptr};
    std::atomic<msptiBuffersCallbackCompleteFunc> complete_{nullptr};

    std::atomic<uint32_t> flush_period_ms_{0};
    EngineWorker worker_{[] { instance().worker_main(); }, [] { instance().shutdown(); }};

    std::mutex holds_mutex_;
    std::multiset<const uint8_t *> holds_;
};

}  // namespace mspti
