// A rank that never comes (or, with argument "dies", one that dies in the middle of the all-reduce): with
// HCCL_EXEC_TIMEOUT=2, the others' all-reduce fails with HCCL_E_TIMEOUT (through the communicator's async
// error) within bounded time instead of hanging, and their next collective fails at once. The
// communicator comes from vnpuHcclGetWorldRootInfo, with no exchange.
#include <mpi.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"
#include "vnpu/vnpu_hccl.h"

int main(int argc, char **argv) {
    int provided = 0, world = 0, size = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    aclInit(nullptr);
    aclrtSetDevice(world % 8);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    HcclRootInfo info;
    int failed = vnpuHcclGetWorldRootInfo(&info) != HCCL_SUCCESS;
    HcclComm comm = nullptr;
    failed |=
        HcclCommInitRootInfo(static_cast<uint32_t>(size), &info, static_cast<uint32_t>(world), &comm) != HCCL_SUCCESS;
    void *buf = nullptr;
    aclrtMalloc(&buf, 4096, ACL_MEM_MALLOC_HUGE_FIRST);
    const bool dies = argc > 1 && std::strcmp(argv[1], "dies") == 0;
    if (dies && world == size - 1) {  // dies in the middle of its all-reduce: the others must still fail
        HcclAllReduce(buf, buf, 1024, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream);
        _exit(3);
    }
    if (!failed && world != size - 1) {  // the last rank stays away
        const double t0 = MPI_Wtime();
        failed |= HcclAllReduce(buf, buf, 1024, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream) != HCCL_SUCCESS;
        aclrtSynchronizeStream(stream);
        const double waited = MPI_Wtime() - t0;
        HcclResult async = HCCL_SUCCESS;
        HcclGetCommAsyncError(comm, &async);
        std::printf("rank %d: all-reduce without the last rank: %s after %.2f s\n", world, HcclGetErrorString(async),
                    waited);
        failed |= async != HCCL_E_TIMEOUT || waited < 1.9 || waited > 30;
        const double t1 = MPI_Wtime();
        HcclBarrier(comm, stream);
        aclrtSynchronizeStream(stream);
        const double again = MPI_Wtime() - t1;
        std::printf("rank %d: the next collective fails after %.3f s\n", world, again);
        failed |= again > 1.0;
    }
    if (dies) {  // MPI_COMM_WORLD has a dead member: no more collectives on it
        std::printf("rank %d: %s\n", world, failed ? "FAILED" : "OK");
        std::fflush(stdout);
        _exit(failed);
    }
    int total = 0;
    MPI_Allreduce(&failed, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    aclrtFree(buf);
    MPI_Finalize();
    if (world == 0) std::printf(total == 0 ? "OK\n" : "FAILED\n");
    return total == 0 ? 0 : 1;
}
