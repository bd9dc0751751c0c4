#include "hccl_arena.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "profiler_hooks.h"
#include "runtime.h"

namespace vnpu::hccl {
namespace {

constexpr uint64_t kMagic = 0x56'4e'50'55'48'43'43'4cULL;  // "VNPUHCCL"
constexpr uint32_t kReady = 0x52454459;                    // "REDY"

size_t align64(size_t n) { return (n + 63) / 64 * 64; }

size_t headerBytes() { return align64(sizeof(ArenaHeader)); }
size_t descriptorsOffset() { return headerBytes(); }
size_t mailboxesOffset(uint32_t n) { return descriptorsOffset() + align64(n * sizeof(OpDescriptor)); }
size_t slotsOffset(uint32_t n) { return mailboxesOffset(n) + align64(size_t{n} * n * sizeof(Mailbox)); }
size_t p2pOffset(uint32_t n, uint64_t slotBytes) { return slotsOffset(n) + n * slotBytes; }

uint64_t secondsFromEnv(const char *name, uint64_t fallback) {
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

} // namespace

uint64_t execTimeoutNs() { return secondsFromEnv("HCCL_EXEC_TIMEOUT", 1836) * 1000000000ULL; }
uint64_t connectTimeoutNs() { return secondsFromEnv("HCCL_CONNECT_TIMEOUT", 120) * 1000000000ULL; }

size_t arenaBytes(uint32_t nRanks, uint64_t slotBytes, uint64_t p2pBytes) {
    return p2pOffset(nRanks, slotBytes) + size_t{nRanks} * nRanks * p2pBytes;
}

void initArena(void *memory, uint32_t nRanks, uint64_t slotBytes, uint64_t p2pBytes) {
    std::memset(memory, 0, headerBytes() + (slotsOffset(nRanks) - headerBytes()));
    auto *h = static_cast<ArenaHeader *>(memory);
    h->magic = kMagic;
    h->nRanks = nRanks;
    h->slotBytes = slotBytes;
    h->p2pBytes = p2pBytes;
    h->totalBytes = arenaBytes(nRanks, slotBytes, p2pBytes);
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

bool arenaReady(const void *memory, uint32_t &nRanks) {
    const auto *h = static_cast<const ArenaHeader *>(memory);
    if (__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE) != kReady || h->magic != kMagic) {
        return false;
    }
    nRanks = h->nRanks;
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
    : header_(static_cast<ArenaHeader *>(memory)), base_(static_cast<unsigned char *>(memory)),
      release_(std::move(release)) {}

Arena::~Arena() {
    if (release_) {
        release_();
    }
}

OpDescriptor &Arena::descriptor(uint32_t rank) {
    return reinterpret_cast<OpDescriptor *>(base_ + descriptorsOffset())[rank];
}

unsigned char *Arena::slot(uint32_t rank) { return base_ + slotsOffset(header_->nRanks) + rank * header_->slotBytes; }

Mailbox &Arena::mailbox(uint32_t from, uint32_t to) {
    return reinterpret_cast<Mailbox *>(base_ + mailboxesOffset(header_->nRanks))[from * header_->nRanks + to];
}

unsigned char *Arena::p2pArea(uint32_t from, uint32_t to) {
    return base_ + p2pOffset(header_->nRanks, header_->slotBytes) +
           (size_t{from} * header_->nRanks + to) * header_->p2pBytes;
}

// Must be called with the lock held. Wakes up every 100 ms to notice aclFinalize or a broken arena.
template <class Pred>
HcclResult Arena::waitUntil(Pred ready, uint64_t deadlineNs) {
    const uint64_t epoch = Runtime::get().cancelEpoch();
    while (!ready()) {
        if (header_->broken != 0) {
            return HCCL_E_INTERNAL;
        }
        const uint64_t now = profiler::nowNs();
        if (now >= deadlineNs || Runtime::get().cancelEpoch() != epoch) {
            header_->broken = 1;
            pthread_cond_broadcast(&header_->cv);
            return HCCL_E_TIMEOUT;
        }
        const uint64_t wakeNs = std::min<uint64_t>(deadlineNs, now + 100000000ULL);
        timespec ts{static_cast<time_t>(wakeNs / 1000000000ULL), static_cast<long>(wakeNs % 1000000000ULL)};
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
        return HCCL_E_INTERNAL;
    }
    const uint64_t generation = header_->generation;
    if (++header_->arrived == header_->nRanks) {
        header_->arrived = 0;
        ++header_->generation;
        pthread_cond_broadcast(&header_->cv);
        return HCCL_SUCCESS;
    }
    return waitUntil([&] { return header_->generation != generation; }, profiler::nowNs() + execTimeoutNs());
}

HcclResult Arena::join(uint32_t rank, uint64_t timeoutNs) {
    Lock lock(header_);
    const uint64_t bit = 1ULL << rank;
    if ((header_->claimedRanks & bit) != 0) {
        return HCCL_E_PARA;  // two processes claim the same rank
    }
    header_->claimedRanks |= bit;
    ++header_->joined;
    pthread_cond_broadcast(&header_->cv);
    return waitUntil([&] { return header_->joined == header_->nRanks; }, profiler::nowNs() + timeoutNs);
}

HcclResult Arena::send(uint32_t from, uint32_t to, const void *data, uint64_t bytes) {
    Lock lock(header_);
    Mailbox &box = mailbox(from, to);
    const uint64_t deadline = profiler::nowNs() + execTimeoutNs();
    uint64_t offset = 0;
    do {
        HcclResult rc = waitUntil([&] { return box.full == 0; }, deadline);
        if (rc != HCCL_SUCCESS) {
            return rc;
        }
        if (box.mismatch != 0) {
            box.mismatch = 0;
            return HCCL_E_PARA;
        }
        const uint64_t chunk = std::min<uint64_t>(bytes - offset, header_->p2pBytes);
        if (chunk > 0) {
            std::memcpy(p2pArea(from, to), static_cast<const unsigned char *>(data) + offset, chunk);
        }
        box.totalBytes = bytes;
        box.chunkBytes = chunk;
        box.full = 1;
        offset += chunk;
        pthread_cond_broadcast(&header_->cv);
    } while (offset < bytes);
    // Send is synchronous: return once the receiver has taken the last chunk.
    HcclResult rc = waitUntil([&] { return box.full == 0; }, deadline);
    if (rc == HCCL_SUCCESS && box.mismatch != 0) {
        box.mismatch = 0;
        return HCCL_E_PARA;
    }
    return rc;
}

HcclResult Arena::recv(uint32_t from, uint32_t to, void *data, uint64_t bytes) {
    Lock lock(header_);
    Mailbox &box = mailbox(from, to);
    const uint64_t deadline = profiler::nowNs() + execTimeoutNs();
    uint64_t offset = 0;
    do {
        HcclResult rc = waitUntil([&] { return box.full != 0; }, deadline);
        if (rc != HCCL_SUCCESS) {
            return rc;
        }
        if (box.totalBytes != bytes) {
            box.mismatch = 1;
            box.full = 0;
            pthread_cond_broadcast(&header_->cv);
            return HCCL_E_PARA;
        }
        if (box.chunkBytes > 0) {
            std::memcpy(static_cast<unsigned char *>(data) + offset, p2pArea(from, to), box.chunkBytes);
        }
        offset += box.chunkBytes;
        box.full = 0;
        pthread_cond_broadcast(&header_->cv);
    } while (offset < bytes);
    return HCCL_SUCCESS;
}

} // namespace vnpu::hccl
