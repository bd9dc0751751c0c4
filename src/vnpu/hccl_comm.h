// A communicator handle: one rank's view of a shared arena.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "handle_registry.h"
#include "hccl_arena.h"
#include "hccl_mpi.h"

namespace vnpu::hccl {

struct Communicator {
    std::shared_ptr<Arena> arena;  // shared-memory transport
    std::shared_ptr<MpiComm> mpi;  // MPI transport (then arena is null)
    uint32_t rank = 0;
    uint32_t rank_size = 0;
    int32_t device_id = 0;
    std::string name;  // identical on every rank
    std::atomic<int> async_error{HCCL_SUCCESS};
    std::atomic<uint64_t> ops{0};  // collectives started on this rank (their sequence numbers)

    /// Records a queued operation's failure: the async error and why (the first reason is kept).
    void fail(HcclResult code, const std::string &why) {
        async_error.store(code);
        std::lock_guard<std::mutex> lock(errorMu_);
        if (errorMessage_.empty()) errorMessage_ = why;
    }
    /// Why the async error was set ("" if it was not).
    std::string error_message() const {
        std::lock_guard<std::mutex> lock(errorMu_);
        return errorMessage_;
    }

private:
    mutable std::mutex errorMu_;
    std::string errorMessage_;
};

HandleRegistry<Communicator> &communicators();

/// Resolves a comm handle: HCCL_E_PTR for NULL, HCCL_E_PARA for an unknown handle.
HcclResult find_communicator(const void *handle, std::shared_ptr<Communicator> &out);

/// A realistic, process-unique communicator name: <ip>%<iface>_<port>_<n>_<16 digits>.
std::string make_comm_name();

/// Multi-process transport: creates or opens the POSIX shared-memory arena called `shm_name`.
HcclResult open_shared_arena(const char *shm_name, uint32_t n_ranks, std::shared_ptr<Arena> &out, bool &creator);
/// Removes the arena's name once every rank has mapped it.
void unlink_shared_arena(const char *shm_name);

}  // namespace vnpu::hccl
