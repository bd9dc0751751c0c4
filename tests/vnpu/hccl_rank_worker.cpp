// One rank of the multi-process HCCL test: `vnpu_hccl_rank_worker <nRanks> <rank> <root info in hex>`.
// Joins through HcclCommInitRootInfo, runs collectives against references, exits 0 when all match.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"

namespace {

int failures = 0;

void check(bool ok, const char *what, uint32_t rank) {
    if (!ok) {
        std::fprintf(stderr, "rank %u: %s failed\n", rank, what);
        ++failures;
    }
}

float value(uint32_t rank, size_t i) { return static_cast<float>(rank + 1) * 0.5f + static_cast<float>(i % 101); }

}  // namespace

int main(int argc, char **argv) {
    if (argc != 4 || std::strlen(argv[3]) != 2 * HCCL_ROOT_INFO_BYTES) {
        std::fprintf(stderr, "usage: %s nRanks rank rootInfoHex\n", argv[0]);
        return 2;
    }
    const auto nRanks = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
    const auto rank = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
    HcclRootInfo root{};
    for (size_t i = 0; i < HCCL_ROOT_INFO_BYTES; ++i) {
        root.internal[i] = static_cast<char>(std::stoi(std::string(argv[3] + 2 * i, 2), nullptr, 16));
    }
    if (aclrtSetDevice(static_cast<int32_t>(rank)) != ACL_SUCCESS) return 3;
    aclrtStream stream = nullptr;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS) return 3;
    HcclComm comm = nullptr;
    HcclResult rc = HcclCommInitRootInfo(nRanks, &root, rank, &comm);
    if (rc != HCCL_SUCCESS) {
        std::fprintf(stderr, "rank %u: HcclCommInitRootInfo = %d\n", rank, rc);
        return 4;
    }

    const size_t count = (3u << 20) / sizeof(float) + 5;  // several 1 MiB shared-memory rounds
    const size_t bytes = count * sizeof(float);
    std::vector<float> host(count);
    for (size_t i = 0; i < count; ++i) host[i] = value(rank, i);
    void *send = nullptr;
    void *recv = nullptr;
    void *gathered = nullptr;
    aclrtMalloc(&send, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&recv, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&gathered, 64 * sizeof(float) * nRanks, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(send, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);

    check(HcclAllReduce(send, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream) == HCCL_SUCCESS,
          "allreduce enqueue", rank);
    check(HcclAllGather(send, gathered, 64, HCCL_DATA_TYPE_FP32, comm, stream) == HCCL_SUCCESS, "allgather", rank);
    check(HcclBarrier(comm, stream) == HCCL_SUCCESS, "barrier", rank);
    aclrtSynchronizeStream(stream);

    std::vector<float> out(count);
    aclrtMemcpy(out.data(), bytes, recv, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    for (size_t i = 0; i < count; i += 997) {
        float sum = 0;
        for (uint32_t r = 0; r < nRanks; ++r) sum += value(r, i);
        check(out[i] == sum, "allreduce result", rank);
    }
    std::vector<float> all(64 * nRanks);
    aclrtMemcpy(all.data(), all.size() * sizeof(float), gathered, all.size() * sizeof(float),
                ACL_MEMCPY_DEVICE_TO_HOST);
    for (uint32_t r = 0; r < nRanks; ++r) {
        check(all[r * 64 + 7] == value(r, 7), "allgather result", rank);
    }

    // Point to point: even ranks send to the next odd rank.
    const uint32_t peer = rank ^ 1u;
    if (peer < nRanks) {
        if (rank % 2 == 0) {
            check(HcclSend(send, count, HCCL_DATA_TYPE_FP32, peer, comm, stream) == HCCL_SUCCESS, "send", rank);
        } else {
            check(HcclRecv(recv, count, HCCL_DATA_TYPE_FP32, peer, comm, stream) == HCCL_SUCCESS, "recv", rank);
        }
        aclrtSynchronizeStream(stream);
        if (rank % 2 == 1) {
            aclrtMemcpy(out.data(), bytes, recv, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
            check(out[count - 1] == value(peer, count - 1) && out[0] == value(peer, 0), "recv result", rank);
        }
    }
    HcclResult async = HCCL_SUCCESS;
    HcclGetCommAsyncError(comm, &async);
    check(async == HCCL_SUCCESS, "async error", rank);
    char name[128] = {};
    HcclGetCommName(comm, name);
    std::printf("rank %u comm %s\n", rank, name);

    aclrtFree(send);
    aclrtFree(recv);
    aclrtFree(gathered);
    HcclCommDestroy(comm);
    aclrtDestroyStream(stream);
    aclrtResetDevice(static_cast<int32_t>(rank));
    return failures == 0 ? 0 : 1;
}
