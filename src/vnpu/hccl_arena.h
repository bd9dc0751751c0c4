// The memory every rank of a communicator shares: a header with a process-shared mutex and condition
// variable, per-rank op descriptors and data slots (collectives), and a mailbox per ordered rank pair
// (send/recv). The same layout serves both transports: heap memory for HcclCommInitAll (ranks are threads
// of one process) and POSIX shared memory for HcclCommInitRootInfo (ranks are processes).
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "hccl/hccl_types.h"

namespace vnpu::hccl {

constexpr uint32_t kMaxRanks = 64;

/// What one rank is about to run; all ranks must agree on everything but input_bytes and seq. The MPI
/// transport exchanges it too (as bytes), so it holds no pointers.
struct OpDescriptor {
    uint32_t op = 0;
    uint32_t data_type = 0;
    uint32_t reduce_op = 0;
    uint32_t root = 0;
    uint64_t count = 0;
    uint64_t input_bytes = 0;  // bytes this rank publishes
    uint64_t seq = 0;  // this rank's count of collectives, this one included (shm: stored last, atomically)
};

struct Mailbox {
    uint64_t total_bytes;  // of the whole message
    uint64_t chunk_bytes;  // in the mailbox now
    uint32_t full;
    uint32_t mismatch;  // receiver expected another size
};

struct ArenaHeader {
    uint64_t magic;
    uint32_t ready;  // set last by the creator
    uint32_t n_ranks;
    uint64_t slot_bytes;
    uint64_t p2p_bytes;
    uint64_t total_bytes;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t claimed_ranks;  // bit r: rank r joined
    uint32_t joined;
    uint32_t arrived;  // at the current barrier
    uint64_t generation;  // of the barrier
    uint32_t broken;  // a rank timed out or died: every later operation fails
};

size_t arena_bytes(uint32_t n_ranks, uint64_t slot_bytes, uint64_t p2p_bytes);
/// Initialises the header in fresh memory of arena_bytes() bytes (the creator only).
void init_arena(void *memory, uint32_t n_ranks, uint64_t slot_bytes, uint64_t p2p_bytes);

/// True once the creator has initialised the arena; gives its rank count.
bool arena_ready(const void *memory, uint32_t &n_ranks);

/// A view of an arena, owning the mapping through `release`.
class Arena {
public:
    Arena(void *memory, std::function<void()> release);
    ~Arena();
    Arena(const Arena &) = delete;
    Arena &operator=(const Arena &) = delete;

    uint32_t n_ranks() const { return header_->n_ranks; }
    uint64_t slot_bytes() const { return header_->slot_bytes; }
    OpDescriptor &descriptor(uint32_t rank);
    unsigned char *slot(uint32_t rank);

    /// Waits until every rank has arrived. HCCL_E_TIMEOUT after HCCL_EXEC_TIMEOUT or when cancelled.
    HcclResult barrier();
    /// Claims `rank` and waits for all ranks to join (multi-process rendezvous).
    HcclResult join(uint32_t rank, uint64_t timeout_ns);
    /// Synchronous point-to-point transfer, chunked through the (from, to) mailbox.
    HcclResult send(uint32_t from, uint32_t to, const void *data, uint64_t bytes);
    HcclResult recv(uint32_t from, uint32_t to, void *data, uint64_t bytes);

private:
    class Lock;
    template <class Pred>
    HcclResult wait_until(Pred ready, uint64_t deadline_ns);
    Mailbox &mailbox(uint32_t from, uint32_t to);
    unsigned char *p2p_area(uint32_t from, uint32_t to);

    ArenaHeader *header_;
    unsigned char *base_;
    std::function<void()> release_;
};

/// Seconds a collective waits for its peers (HCCL_EXEC_TIMEOUT, default 1836 as in CANN).
uint64_t exec_timeout_ns();
/// Seconds a rank waits for the others to join (HCCL_CONNECT_TIMEOUT, default 120).
uint64_t connect_timeout_ns();

}  // namespace vnpu::hccl
