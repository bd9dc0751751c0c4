#include "hccl_arena.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "report_spans.h"
#include "runtime.h"

namespace vnpu::hccl {
namespace {

constexpr uint64_t kMagic = 0x56'4e'50'55'48'43'43'4cULL;  // "VNPUHCCL"
constexpr uint32_t kReady = 0x52454459;  // "REDY"

size_t align64(size_t n) { return (n + 63) / 64 * 64; }

size_t header_bytes() { return align64(sizeof(ArenaHeader)); }
size_t descriptors_offset() { return header_bytes(); }
size_t mailboxes_offset(uint32_t n) { return descriptors_offset() + align64(n * sizeof(OpDescriptor)); }
size_t slots_offset(uint32_t n) { return mailboxes_offset(n) + align64(size_t{n} * n * sizeof(Mailbox)); }
size_t p2p_offset(uint32_t n, uint64_t slot_bytes) { return slots_offset(n) + n * slot_bytes; }

uint64_t seconds_from_env(const char *name, uint64_t fallback) {
    const char *text = std::getenv(name);
    if (text != nullptr && *text != '\0') {
        char *end = nullptr;
        unsigned long long value = std::strtoull(text, &end, 10);
        if (end != nullptr && *end == '\0' && value > 0) {
            return value;
        }
    }
    return fallback;
}

}  // namespace

uint64_t exec_timeout_ns() { return seconds_from_env("HCCL_EXEC_TIMEOUT", 1836) * 1000000000ULL; }
uint64_t connect_timeout_ns() { return seconds_from_env("HCCL_CONNECT_TIMEOUT", 120) * 1000000000ULL; }

size_t arena_bytes(uint32_t n_ranks, uint64_t slot_bytes, uint64_t p2p_bytes) {
    return p2p_offset(n_ranks, slot_bytes) + size_t{n_ranks} * n_ranks * p2p_bytes;
}

void init_arena(void *memory, uint32_t n_ranks, uint64_t slot_bytes, uint64_t p2p_bytes) {
    std::memset(memory, 0, header_bytes() + (slots_offset(n_ranks) - header_bytes()));
    auto *h = static_cast<ArenaHeader *>(memory);
    h->magic = kMagic;
    h->n_ranks = n_ranks;
    h->slot_bytes = slot_bytes;
    h->p2p_bytes = p2p_bytes;
    h->total_bytes = arena_bytes(n_ranks, slot_bytes, p2p_bytes);
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);  // a dead rank must not hang the others
    pthread_mutex_init(&h->mu, &ma);
    pthread_mutexattr_destroy(&ma);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->cv, &ca);
    pthread_condattr_destroy(&ca);
    __atomic_store_n(&h->ready, kReady, __ATOMIC_RELEASE);
}

bool arena_ready(const void *memory, uint32_t &n_ranks) {
    const auto *h = static_cast<const ArenaHeader *>(memory);
    if (__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE) != kReady || h->magic != kMagic) {
        return false;
    }
    n_ranks = h->n_ranks;
    return true;
}

// Holds the arena mutex; a previous owner that died leaves the arena broken but usable for error paths.
class Arena::Lock {
public:
    explicit Lock(ArenaHeader *h) : h_(h) {
        if (pthread_mutex_lock(&h_->mu) == EOWNERDEAD) {
            h_->broken = 1;
            pthread_mutex_consistent(&h_->mu);
        }
    }
    ~Lock() { pthread_mutex_unlock(&h_->mu); }
    Lock(const Lock &) = delete;
    Lock &operator=(const Lock &) = delete;

private:
    ArenaHeader *h_;
};

Arena::Arena(void *memory, std::function<void()> release)
    : header_(static_cast<ArenaHeader *>(memory)),
      base_(static_cast<unsigned char *>(memory)),
      release_(std::move(release)) {}

Arena::~Arena() {
    if (release_) {
        release_();
    }
}

OpDescriptor &Arena::descriptor(uint32_t rank) {
    return reinterpret_cast<OpDescriptor *>(base_ + descriptors_offset())[rank];
}

unsigned char *Arena::slot(uint32_t rank) {
    return base_ + slots_offset(header_->n_ranks) + rank * header_->slot_bytes;
}

Mailbox &Arena::mailbox(uint32_t from, uint32_t to) {
    return reinterpret_cast<Mailbox *>(base_ + mailboxes_offset(header_->n_ranks))[from * header_->n_ranks + to];
}

unsigned char *Arena::p2p_area(uint32_t from, uint32_t to) {
    return base_ + p2p_offset(header_->n_ranks, header_->slot_bytes) +
           (size_t{from} * header_->n_ranks + to) * header_->p2p_bytes;
}

// Must be called with the lock held. Wakes up every 100 ms to notice aclFinalize or a broken arena.
template <class Pred>
HcclResult Arena::wait_until(Pred ready, uint64_t deadline_ns) {
    const uint64_t epoch = Runtime::get().cancel_epoch();
    while (!ready()) {
        if (header_->broken != 0) {
            return HCCL_E_TIMEOUT;  // another rank timed out waiting (or one died): this wait would too
        }
        const uint64_t now = report::now_ns();
        if (now >= deadline_ns || Runtime::get().cancel_epoch() != epoch) {
            header_->broken = 1;
            pthread_cond_broadcast(&header_->cv);
            return HCCL_E_TIMEOUT;
        }
        const uint64_t wake_ns = std::min<uint64_t>(deadline_ns, now + 100000000ULL);
        timespec ts{static_cast<time_t>(wake_ns / 1000000000ULL), static_cast<long>(wake_ns % 1000000000ULL)};
        if (pthread_cond_timedwait(&header_->cv, &header_->mu, &ts) == EOWNERDEAD) {
            header_->broken = 1;
            pthread_mutex_consistent(&header_->mu);
        }
    }
    return HCCL_SUCCESS;
}

HcclResult Arena::barrier() {
    Lock lock(header_);
    if (header_->broken != 0) {
        return HCCL_E_TIMEOUT;  // a rank timed out (or died) earlier: the ranks are out of step for good
    }
    const uint64_t generation = header_->generation;
    if (++header_->arrived == header_->n_ranks) {
        header_->arrived = 0;
        ++header_->generation;
        pthread_cond_broadcast(&header_->cv);
        return HCCL_SUCCESS;
    }
    return wait_until([&] { return header_->generation != generation; }, report::now_ns() + exec_timeout_ns());
}

HcclResult Arena::join(uint32_t rank, uint64_t timeout_ns) {
    Lock lock(header_);
    const uint64_t bit = 1ULL << rank;
    if ((header_->claimed_ranks & bit) != 0) {
        return HCCL_E_PARA;  // two processes claim the same rank
    }
    header_->claimed_ranks |= bit;
    ++header_->joined;
    pthread_cond_broadcast(&header_->cv);
    return wait_until([&] { return header_->joined == header_->n_ranks; }, report::now_ns() + timeout_ns);
}

HcclResult Arena::send(uint32_t from, uint32_t to, const void *data, uint64_t bytes) {
    Lock lock(header_);
    Mailbox &box = mailbox(from, to);
    const uint64_t deadline = report::now_ns() + exec_timeout_ns();
    uint64_t offset = 0;
    do {
        HcclResult rc = wait_until([&] { return box.full == 0; }, deadline);
        if (rc != HCCL_SUCCESS) {
            return rc;
        }
        if (box.mismatch != 0) {
            box.mismatch = 0;
            return HCCL_E_PARA;
        }
        const uint64_t chunk = std::min<uint64_t>(bytes - offset, header_->p2p_bytes);
        if (chunk > 0) {
            std::memcpy(p2p_area(from, to), static_cast<const unsigned char *>(data) + offset, chunk);
        }
        box.total_bytes = bytes;
        box.chunk_bytes = chunk;
        box.full = 1;
        offset += chunk;
        pthread_cond_broadcast(&header_->cv);
    } while (offset < bytes);
    // Send is synchronous: return once the receiver has taken the last chunk.
    HcclResult rc = wait_until([&] { return box.full == 0; }, deadline);
    if (rc == HCCL_SUCCESS && box.mismatch != 0) {
        box.mismatch = 0;
        return HCCL_E_PARA;
    }
    return rc;
}

HcclResult Arena::recv(uint32_t from, uint32_t to, void *data, uint64_t bytes) {
    Lock lock(header_);
    Mailbox &box = mailbox(from, to);
    const uint64_t deadline = report::now_ns() + exec_timeout_ns();
    uint64_t offset = 0;
    do {
        HcclResult rc = wait_until([&] { return box.full != 0; }, deadline);
        if (rc != HCCL_SUCCESS) {
            return rc;
        }
        if (box.total_bytes != bytes) {
            box.mismatch = 1;
            box.full = 0;
            pthread_cond_broadcast(&header_->cv);
            return HCCL_E_PARA;
        }
        if (box.chunk_bytes > 0) {
            std::memcpy(static_cast<unsigned char *>(data) + offset, p2p_area(from, to), box.chunk_bytes);
        }
        offset += box.chunk_bytes;
        box.full = 0;
        pthread_cond_broadcast(&header_->cv);
    } while (offset < bytes);
    return HCCL_SUCCESS;
}

}  // namespace vnpu::hccl
