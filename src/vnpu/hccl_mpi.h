// The MPI transport of the virtual HCCL. It lives in its own library, libvnpu_hccl_mpi.so (linked to Open
// MPI), which libvnpu loads only when the transport is chosen: under mpirun (OMPI_COMM_WORLD_SIZE set) or
// with VNPU_HCCL_TRANSPORT=mpi. Shared memory stays the default on one host.
#pragma once

#include <cstdint>
#include <memory>

#include "hccl/hccl_types.h"

namespace vnpu::hccl {

/// One communicator on MPI: every collective is the matching MPI call, run on the stream's worker and waited
/// for until HCCL_EXEC_TIMEOUT (then HCCL_E_TIMEOUT, and the communicator is unusable).
class MpiComm {
public:
    virtual ~MpiComm() = default;
    virtual HcclResult all_reduce(const void *send, void *recv, uint64_t count, HcclDataType type, HcclReduceOp op) = 0;
    virtual HcclResult broadcast(void *buf, uint64_t count, HcclDataType type, uint32_t root) = 0;
    virtual HcclResult all_gather(const void *send, void *recv, uint64_t send_count, HcclDataType type) = 0;
    virtual HcclResult reduce_scatter(const void *send, void *recv, uint64_t recv_count, HcclDataType type,
                                      HcclReduceOp op) = 0;
    virtual HcclResult reduce(const void *send, void *recv, uint64_t count, HcclDataType type, HcclReduceOp op,
                              uint32_t root) = 0;
    virtual HcclResult scatter(const void *send, void *recv, uint64_t recv_count, HcclDataType type, uint32_t root) = 0;
    virtual HcclResult all_to_all(const void *send, void *recv, uint64_t count, HcclDataType type) = 0;
    virtual HcclResult send(const void *buf, uint64_t bytes, uint32_t peer) = 0;
    virtual HcclResult recv(void *buf, uint64_t bytes, uint32_t peer) = 0;
    virtual HcclResult barrier() = 0;
};

/// The loaded transport: MPI initialised (MPI_THREAD_MULTIPLE), communicators made from MPI_COMM_WORLD.
class MpiTransport {
public:
    virtual ~MpiTransport() = default;
    /// This process's rank in MPI_COMM_WORLD.
    virtual uint32_t world_rank() const = 0;
    /// Forms the communicator of the ranks that share one root info (made by world rank `root_world_rank`,
    /// its `sequence`-th): they meet at the root, which hands out the member list; then
    /// MPI_Comm_create_group, collective over the members only (sub-groups need no other rank).
    virtual HcclResult open(uint32_t root_world_rank, uint32_t sequence, uint32_t n_ranks, uint32_t rank,
                            uint64_t timeout_ns, std::unique_ptr<MpiComm> &out) = 0;
};

/// acc[i] = op(acc[i], in[i]): vnpu's reduction, handed to the plugin for the 16-bit float MPI operations.
using ReduceFn = void (*)(void *acc, const void *in, uint64_t count, HcclDataType type, HcclReduceOp op);

/// Whether the MPI transport is chosen (decided once, logged once at info level).
bool mpi_selected();
/// The transport, loaded on first use; nullptr (with a message on stderr) when it cannot be loaded.
MpiTransport *mpi_transport();

}  // namespace vnpu::hccl

/// The plugin's entry point: a new MpiTransport (as void *), or nullptr with `error` filled in.
extern "C" void *vnpuHcclMpiCreate(vnpu::hccl::ReduceFn reduce, char *error, unsigned long error_bytes);
