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

#ifdef __cplusplus
}
#endif

#endif /* VNPU_HCCL_H */
