/**
 * @file vnpu_hccl.h
 * @brief The virtual NPU's HCCL extensions (not in CANN).
 *
 * Transports: communicators made from a root info run on POSIX shared memory (one host, the default) or
 * on Open MPI, under mpirun (OMPI_COMM_WORLD_SIZE set) or with VNPU_HCCL_TRANSPORT=mpi
 * (VNPU_HCCL_TRANSPORT=shm keeps shared memory). HcclCommInitAll always runs in the process.
 */
#ifndef VNPU_HCCL_H
#define VNPU_HCCL_H

#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief The root info of the communicator of all MPI ranks (its rank = the rank in MPI_COMM_WORLD),
 *        computed alike on every rank without any exchange, for programs started with `mpirun -np N`.
 *
 * The n-th call on every rank names the same communicator; pass it to HcclCommInitRootInfo with the
 * world size and rank.
 * @return HCCL_SUCCESS; HCCL_E_PTR for NULL; HCCL_E_NOT_SUPPORT when the MPI transport is not chosen;
 *         HCCL_E_UNAVAIL when it cannot be loaded.
 */
HcclResult vnpuHcclGetWorldRootInfo(HcclRootInfo *rootInfo);

/**
 * @brief Why the communicator's async error (HcclGetCommAsyncError) was set: the first failed
 *        collective's message, naming the operation, the ranks and their values, e.g.
 *        "HCCL_E_PARA: HcclAllReduce on rank 0 of 2 (communicator ...): the ranks disagree: count
 *        differs: 1024 on rank 0, 4096 on rank 1". An empty string while the async error is not set.
 *
 * A failed collective also fails the next aclrtSynchronizeStream / aclrtSynchronizeDevice of its stream
 * (ACL_ERROR_RT_INTERNAL_ERROR), after which aclGetRecentErrMsg() on that thread returns the same text.
 * @param comm the communicator
 * @param message receives the text, cut to `bytes` - 1 characters and NUL-terminated
 * @param bytes size of `message` (at least 1)
 * @return HCCL_SUCCESS; HCCL_E_PTR for a NULL comm or message or zero bytes; HCCL_E_PARA for an unknown comm.
 */
HcclResult vnpuHcclGetCommErrorMessage(HcclComm comm, char *message, uint64_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* VNPU_HCCL_H */
