// POSIX shared memory arenas for communicators whose ranks are separate processes.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "hccl_comm.h"
#include "profiler_hooks.h"

namespace vnpu::hccl {
namespace {

constexpr uint64_t kSlotBytes = 1ULL << 20;  // per rank per round of a collective

uint64_t p2pBytesFor(uint32_t nRanks) {
    const uint64_t share = (1ULL << 20) / nRanks;  // ~1 MiB of mailboxes per rank in all
    return share < 4096 ? 4096 : share / 64 * 64;
}

void pause1ms() {
    timespec ts{0, 1000000};
    nanosleep(&ts, nullptr);
}

} // namespace

HcclResult openSharedArena(const char *shmName, uint32_t nRanks, std::shared_ptr<Arena> &out, bool &creator) {
    const uint64_t p2pBytes = p2pBytesFor(nRanks);
    const size_t bytes = arenaBytes(nRanks, kSlotBytes, p2pBytes);
    int fd = shm_open(shmName, O_CREAT | O_EXCL | O_RDWR, 0600);
    creator = fd >= 0;
    if (creator) {
        if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
            close(fd);
            shm_unlink(shmName);
            return HCCL_E_MEMORY;
        }
        void *header = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (header == MAP_FAILED) {
            shm_unlink(shmName);
            return HCCL_E_MEMORY;
        }
        initArena(header, nRanks, kSlotBytes, p2pBytes);
        out = std::make_shared<Arena>(header, [header, bytes] { munmap(header, bytes); });
        return HCCL_SUCCESS;
    }
    if (errno != EEXIST) {
        return HCCL_E_SYSCALL;
    }
    // Another rank created it: wait (briefly, only during setup) until it is sized and initialised.
    fd = shm_open(shmName, O_RDWR, 0600);
    if (fd < 0) {
        return HCCL_E_SYSCALL;
    }
    const uint64_t deadline = profiler::nowNs() + connectTimeoutNs();
    struct stat info {};
    while (fstat(fd, &info) == 0 && static_cast<size_t>(info.st_size) < sizeof(ArenaHeader)) {
        if (profiler::nowNs() > deadline) {
            close(fd);
            return HCCL_E_TIMEOUT;
        }
        pause1ms();
    }
    const auto mapped = static_cast<size_t>(info.st_size);
    void *memory = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (memory == MAP_FAILED) {
        return HCCL_E_MEMORY;
    }
    auto arena = std::make_shared<Arena>(memory, [memory, mapped] { munmap(memory, mapped); });
    uint32_t arenaRanks = 0;
    while (!arenaReady(memory, arenaRanks)) {
        if (profiler::nowNs() > deadline) {
            return HCCL_E_TIMEOUT;
        }
        pause1ms();
    }
    if (arenaRanks != nRanks || mapped != bytes) {
        return HCCL_E_PARA;  // ranks disagree on the communicator size
    }
    out = std::move(arena);
    return HCCL_SUCCESS;
}

void unlinkSharedArena(const char *shmName) { shm_unlink(shmName); }

} // namespace vnpu::hccl
