// What the engine keeps per recording thread: its staging ring, the identity its records carry
// (pid and tid, renewed in a forked child), and its mstx state. Made on a thread's first record,
// retired when the thread ends, freed by the consumer once its ring is drained.
#pragma once

#include <atomic>
#include <sys/types.h>

#include "core/staging_ring.h"
#include "mstx/thread_markers.h"

namespace mspti {

struct ThreadStaging {
    explicit ThreadStaging(uint32_t capacity);

    // A staging for the calling thread, retired when the thread ends (by a pthread key destructor,
    // which also clears t_staging); nullptr if it could not be tied to the thread. A thread that
    // records again after its staging was retired gets a small one.
    static ThreadStaging *make_for_this_thread();
    // A staging of no thread: its writers serialise themselves (ActivityEngine::register_shared_staging).
    static ThreadStaging *make_shared();
    // Settles the ring size before a fork, so that a child never inherits its one-time
    // initialisation half done.
    static void settle_capacity();

    // In a forked child, on the thread that forked: an empty ring, the child's pid and tid.
    void restart_after_fork();

    StagingRing ring;
    pid_t pid = 0;
    pid_t tid = 0;
    msptiObjectId host_object{};  // pid and tid as a host marker's objectId: one 8-byte copy
    mstx::ThreadMarkers markers;  // producer-only

    // Set by the owning thread's exit; the consumer then frees the staging once drained.
    std::atomic<bool> retired{false};
    ThreadStaging *next = nullptr;  // engine's registry list, guarded by the consumer lock

    // Consumer-only (under the consumer lock): the last marker time converted from a raw tick,
    // so that the thread's markers stay in order whatever conversion each was read under. On a
    // line of its own: written for every marker drained, it must not evict the producer's.
    alignas(64) uint64_t last_marker_ns = 0;
};

// The engine's stagings, guarded by its consumer lock: new ones join at the head (a walk in
// progress stays valid); the consumer unlinks and frees retired ones once drained.
class StagingList {
public:
    void push(ThreadStaging *s) {
        s->next = head_;
        head_ = s;
    }
    ThreadStaging *first() const { return head_; }
    ThreadStaging **first_link() { return &head_; }
    // In a forked child, on the thread that forked: the other threads' stagings hold the parent's
    // records (the parent delivers them) and have no owner any more: freed. `own` (the forking
    // thread's, or nullptr) keeps its ring for the child's records.
    void restart_after_fork(ThreadStaging *own);

private:
    ThreadStaging *head_ = nullptr;
};

// The calling thread's staging, or nullptr before its first record and once it was retired.
// Constant-initialised: reading it needs no TLS init check.
extern constinit thread_local ThreadStaging *t_staging;

}  // namespace mspti
