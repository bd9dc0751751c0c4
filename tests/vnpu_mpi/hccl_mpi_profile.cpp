// Profiling on the MPI transport is what it is on shared memory: run under mpirun with
// LD_PRELOAD=libmspti.so, every rank gets one HCCL and one COMMUNICATION record per collective, with its
// device, the communicator's name and a plausible bandwidth; rank 0 checks the totals over all ranks.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"
#include "mspti/mspti.h"

namespace {

constexpr int kCollectives = 3;  // AllReduce, Broadcast, AllGather
struct Counts {
    int hccl[kCollectives];
    int comm[kCollectives];
    int badRecords;
};
Counts g_counts{};
std::string g_commName;
uint32_t g_device = 0;
double g_minBandwidth = 1e300;

int indexOf(const char *name) {
    static const char *hccl[] = {"HcclAllReduce", "HcclBroadcast", "HcclAllGather"};
    static const char *comm[] = {"hcom_allReduce_", "hcom_broadcast_", "hcom_allGather_"};
    for (int i = 0; i < kCollectives; ++i) {
        if (std::strcmp(name, hccl[i]) == 0 || std::strcmp(name, comm[i]) == 0) return i;
    }
    return -1;
}

void request(uint8_t **buffer, size_t *size, size_t *maxRecords) {
    *size = 1 << 20;
    *buffer = static_cast<uint8_t *>(std::malloc(*size));
    *maxRecords = 0;
}

void complete(uint8_t *buffer, size_t, size_t valid) {
    msptiActivity *record = nullptr;
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
        if (record->kind == MSPTI_ACTIVITY_KIND_HCCL) {
            auto *h = reinterpret_cast<msptiActivityHccl *>(record);
            const int i = indexOf(h->name);
            const bool ok = i >= 0 && h->end > h->start && h->ds.deviceId == g_device && g_commName == h->commName &&
                            h->bandWidth > 0 && h->bandWidth < 1000;
            if (ok) {
                ++g_counts.hccl[i];
                if (i == 0 && h->bandWidth < g_minBandwidth) g_minBandwidth = h->bandWidth;
            } else {
                ++g_counts.badRecords;
                std::fprintf(stderr, "bad HCCL record: %s %s %f GB/s\n", h->name, h->commName, h->bandWidth);
            }
        } else if (record->kind == MSPTI_ACTIVITY_KIND_COMMUNICATION) {
            auto *c = reinterpret_cast<msptiActivityCommunication *>(record);
            const int i = indexOf(c->name);
            if (i >= 0 && c->end > c->start && c->ds.deviceId == g_device && g_commName == c->commName) {
                ++g_counts.comm[i];
            } else {
                ++g_counts.badRecords;
                std::fprintf(stderr, "bad COMMUNICATION record: %s %s\n", c->name, c->commName);
            }
        }
    }
    std::free(buffer);
}

}  // namespace

int main(int argc, char **argv) {
    int provided = 0, world = 0, size = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    msptiSubscriberHandle subscriber = nullptr;
    msptiSubscribe(&subscriber, nullptr, nullptr);
    msptiActivityRegisterCallbacks(request, complete);
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_HCCL);
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_COMMUNICATION);

    aclInit(nullptr);
    uint32_t devices = 1;
    aclrtGetDeviceCount(&devices);
    g_device = static_cast<uint32_t>(world) % devices;
    aclrtSetDevice(static_cast<int32_t>(g_device));
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    HcclRootInfo info;
    if (world == 0) HcclGetRootInfo(&info);
    MPI_Bcast(&info, sizeof info, MPI_BYTE, 0, MPI_COMM_WORLD);
    HcclComm comm = nullptr;
    if (HcclCommInitRootInfo(static_cast<uint32_t>(size), &info, static_cast<uint32_t>(world), &comm) != HCCL_SUCCESS) {
        std::fprintf(stderr, "rank %d: communicator failed\n", world);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char name[COMM_NAME_MAX_LENGTH] = {};
    HcclGetCommName(comm, name);
    g_commName = name;

    const uint64_t count = 1 << 20;  // 4 MiB of fp32
    void *a = nullptr, *b = nullptr;
    aclrtMalloc(&a, count * 4 * static_cast<uint64_t>(size), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&b, count * 4 * static_cast<uint64_t>(size), ACL_MEM_MALLOC_HUGE_FIRST);
    HcclAllReduce(a, b, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream);
    HcclBroadcast(a, count, HCCL_DATA_TYPE_FP32, 0, comm, stream);
    HcclAllGather(a, b, count / 8, HCCL_DATA_TYPE_FP32, comm, stream);
    aclrtSynchronizeStream(stream);
    msptiActivityFlushAll(1);

    Counts total{};
    MPI_Reduce(&g_counts, &total, sizeof(Counts) / sizeof(int), MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    double minBandwidth = 0;
    MPI_Reduce(&g_minBandwidth, &minBandwidth, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    int failed = 0;
    if (world == 0) {
        for (int i = 0; i < kCollectives; ++i) {
            std::printf("collective %d: %d HCCL records, %d COMMUNICATION records\n", i, total.hccl[i], total.comm[i]);
            failed |= total.hccl[i] != size || total.comm[i] != size;
        }
        std::printf("all-reduce bandwidth: at least %.3f GB/s; bad records: %d\n", minBandwidth, total.badRecords);
        failed |= total.badRecords != 0;
        std::printf(failed ? "FAILED\n" : "OK\n");
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);

    aclrtFree(a);
    aclrtFree(b);
    HcclCommDestroy(comm);
    aclrtDestroyStream(stream);
    msptiUnsubscribe(subscriber);
    MPI_Finalize();
    return failed;
}
