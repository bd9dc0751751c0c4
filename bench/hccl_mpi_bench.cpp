// All-reduce bus bandwidth of the virtual HCCL on Open MPI against a plain MPI_Allreduce of the same size,
// in the same run, interleaved: fp32 sums from 4 KiB to 64 MiB. Run under mpirun; rank 0 prints JSON.
// Each figure is the best of 5 batches; a batch's time is the slowest rank's. Bus bandwidth is
// bytes / time * 2 (n - 1) / n, the bytes each rank moves in a ring all-reduce.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"

namespace {

constexpr int kBatches = 5;

// Seconds for `iters` runs of fn, slowest rank, after all ranks start together.
template <class Fn>
double timeBatch(int iters, Fn fn) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) fn();
    const double mine = MPI_Wtime() - t0;
    double slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest / iters;
}

}  // namespace

int main(int argc, char **argv) {
    int provided = 0, rank = 0, size = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    aclInit(nullptr);
    uint32_t devices = 1;
    aclrtGetDeviceCount(&devices);
    aclrtSetDevice(static_cast<int32_t>(static_cast<uint32_t>(rank) % devices));
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    HcclRootInfo info;
    if (rank == 0) HcclGetRootInfo(&info);
    MPI_Bcast(&info, sizeof info, MPI_BYTE, 0, MPI_COMM_WORLD);
    HcclComm comm = nullptr;
    if (HcclCommInitRootInfo(static_cast<uint32_t>(size), &info, static_cast<uint32_t>(rank), &comm) != HCCL_SUCCESS) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const size_t maxBytes = 64u << 20;
    void *dIn = nullptr, *dOut = nullptr;
    aclrtMalloc(&dIn, maxBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dOut, maxBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<float> ones(maxBytes / 4, 1.0f);
    aclrtMemcpy(dIn, maxBytes, ones.data(), maxBytes, ACL_MEMCPY_HOST_TO_DEVICE);

    if (rank == 0) std::printf("{\"ranks\": %d, \"transport\": \"tcp\", \"sizes\": [", size);
    bool first = true;
    for (size_t bytes = 4096; bytes <= maxBytes; bytes *= 4) {
        const uint64_t count = bytes / 4;
        const int iters = static_cast<int>(std::clamp<size_t>((256u << 20) / bytes / 4, 2, 200));
        double vnpu = 1e30, mpi = 1e30;
        auto runVnpu = [&] {
            HcclAllReduce(dIn, dOut, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream);
            aclrtSynchronizeStream(stream);
        };
        auto runMpi = [&] {
            // The same buffers: vnpu's device memory is host memory.
            MPI_Allreduce(dIn, dOut, static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        };
        runVnpu();  // warm-up: connections, pages
        runMpi();
        for (int b = 0; b < kBatches; ++b) {
            vnpu = std::min(vnpu, timeBatch(iters, runVnpu));
            mpi = std::min(mpi, timeBatch(iters, runMpi));
        }
        const double factor = 2.0 * (size - 1) / size;
        if (rank == 0) {
            std::printf(
                "%s\n  {\"bytes\": %zu, \"iterations\": %d, \"vnpu_s\": %.9f, \"mpi_s\": %.9f, "
                "\"vnpu_busbw_gbps\": %.4f, \"mpi_busbw_gbps\": %.4f}",
                first ? "" : ",", bytes, iters, vnpu, mpi, bytes / vnpu * factor / 1e9, bytes / mpi * factor / 1e9);
            std::fflush(stdout);
        }
        first = false;
    }
    if (rank == 0) std::printf("\n]}\n");
    aclrtFree(dIn);
    aclrtFree(dOut);
    HcclCommDestroy(comm);
    aclrtDestroyStream(stream);
    MPI_Finalize();
    return 0;
}
