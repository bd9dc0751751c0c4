// POSIX shared memory arenas for communicators whose ranks are separate processes.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "hccl_comm.h"
#include "report_spans.h"

namespace vnpu::hccl {
namespace {

constexpr uint64_t kSlotBytes = 1ULL << 20;  // per rank per round of a collective

uint64_t p2p_bytes_for(uint32_t n_ranks) {
    const uint64_t share = (1ULL << 20) / n_ranks;  // ~1 MiB of mailboxes per rank in all
    return share < 4096 ? 4096 : share / 64 * 64;
}

void pause1ms() {
    timespec ts{0, 1000000};
    nanosleep(&ts, nullptr);
}

}  // namespace

HcclResult open_shared_arena(const char *shm_name, uint32_t n_ranks, std::shared_ptr<Arena> &out, bool &creator) {
    const uint64_t p2p_bytes = p2p_bytes_for(n_ranks);
    const size_t bytes = arena_bytes(n_ranks, kSlotBytes, p2p_bytes);
    int fd = shm_open(shm_name, O_CREAT | O_EXCL | O_RDWR, 0600);
    creator = fd >= 0;
    if (creator) {
        if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
            close(fd);
            shm_unlink(shm_name);
            return HCCL_E_MEMORY;
        }
        void *header = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (header == MAP_FAILED) {
            shm_unlink(shm_name);
            return HCCL_E_MEMORY;
        }
        init_arena(header, n_ranks, kSlotBytes, p2p_bytes);
        out = std::make_shared<Arena>(header, [header, bytes] { munmap(header, bytes); });
        return HCCL_SUCCESS;
    }
    if (errno != EEXIST) {
        return HCCL_E_SYSCALL;
    }
    // Another rank created it: wait (briefly, only during setup) until it is sized and initialised.
    fd = shm_open(shm_name, O_RDWR, 0600);
    if (fd < 0) {
        return HCCL_E_SYSCALL;
    }
    const uint64_t deadline = report::now_ns() + connect_timeout_ns();
    struct stat info {};
    while (fstat(fd, &info) == 0 && static_cast<size_t>(info.st_size) < sizeof(ArenaHeader)) {
        if (report::now_ns() > deadline) {
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
    uint32_t arena_ranks = 0;
    while (!arena_ready(memory, arena_ranks)) {
        if (report::now_ns() > deadline) {
            return HCCL_E_TIMEOUT;
        }
        pause1ms();
    }
    if (arena_ranks != n_ranks || mapped != bytes) {
        return HCCL_E_PARA;  // ranks disagree on the communicator size
    }
    out = std::move(arena);
    return HCCL_SUCCESS;
}

void unlink_shared_arena(const char *shm_name) { shm_unlink(shm_name); }

}  // namespace vnpu::hccl
