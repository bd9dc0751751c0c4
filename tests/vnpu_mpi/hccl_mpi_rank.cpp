// One rank of the MPI transport test, run by CTest under mpirun (2, 4 and 8 ranks, TCP only). Every
// collective runs on a communicator made from a root info on Open MPI, and its result is compared byte for
// byte with the shared-memory path: the same collective over all ranks' inputs on an in-process
// communicator (HcclCommInitAll) in this process. Inputs are small integers, so every reduction is exact
// whatever its order. Also: in-place, large buffers, sub-groups and two communicators at once.
#include <dlfcn.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"
#include "hccl/hccl_types.h"

namespace {

enum class Kind { AllReduce, Broadcast, AllGather, ReduceScatter, Reduce, Scatter, AlltoAll, SendRecv, Barrier };

struct Case {
    Kind kind;
    HcclDataType type;
    HcclReduceOp op;
    uint64_t count;
    uint32_t root;
    bool inPlace;
};

const char *kindName(Kind k) {
    static const char *names[] = {"AllReduce", "Broadcast", "AllGather", "ReduceScatter", "Reduce",
                                  "Scatter",   "AlltoAll",  "SendRecv",  "Barrier"};
    return names[static_cast<int>(k)];
}

int g_failures = 0;
int g_checks = 0;
int g_world = 0;

#define EXPECT(cond, ...) \
    do { \
        ++g_checks; \
        if (!(cond)) { \
            ++g_failures; \
            std::fprintf(stderr, "rank %d: %s failed: ", g_world, #cond); \
            std::fprintf(stderr, __VA_ARGS__); \
            std::fprintf(stderr, "\n"); \
        } \
    } while (0)

size_t typeSize(HcclDataType t) {
    switch (t) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_FP8E4M3: return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT128: return 16;
    default: return 8;
    }
}

// Small integers (1..7; 1..2 for products, so that 8 ranks stay exact) in the element's own encoding.
void encode(HcclDataType t, unsigned v, unsigned char *out) {
    std::memset(out, 0, typeSize(t));
    const float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    switch (t) {
    case HCCL_DATA_TYPE_FP32: std::memcpy(out, &f, 4); break;
    case HCCL_DATA_TYPE_FP64: {
        const double d = v;
        std::memcpy(out, &d, 8);
        break;
    }
    case HCCL_DATA_TYPE_BFP16: {
        const uint16_t h = static_cast<uint16_t>(bits >> 16);
        std::memcpy(out, &h, 2);
        break;
    }
    case HCCL_DATA_TYPE_FP16: {  // exact for small integers: rebias the exponent, keep 10 mantissa bits
        const uint16_t h = static_cast<uint16_t>(((((bits >> 23) & 0xff) - 127 + 15) << 10) | ((bits >> 13) & 0x3ff));
        std::memcpy(out, &h, 2);
        break;
    }
    default: {  // integers (little-endian) and the byte formats
        const uint64_t u = v;
        std::memcpy(out, &u, std::min<size_t>(8, typeSize(t)));
        break;
    }
    }
}

uint64_t inputElems(const Case &c, uint32_t n) {
    switch (c.kind) {
    case Kind::ReduceScatter:
    case Kind::Scatter:
    case Kind::AlltoAll: return c.count * n;
    case Kind::Barrier: return 0;
    default: return c.count;
    }
}

uint64_t outputElems(const Case &c, uint32_t n) {
    switch (c.kind) {
    case Kind::AllGather:
    case Kind::AlltoAll: return c.count * n;
    case Kind::Barrier: return 0;
    default: return c.count;
    }
}

std::vector<unsigned char> input(const Case &c, uint32_t rank, uint32_t n) {
    const size_t size = typeSize(c.type);
    std::vector<unsigned char> v(inputElems(c, n) * size);
    for (uint64_t i = 0; i < inputElems(c, n); ++i) {
        const unsigned x = c.op == HCCL_REDUCE_PROD && c.kind != Kind::Broadcast
                               ? 1 + static_cast<unsigned>((rank + i) % 2)
                               : static_cast<unsigned>(((rank + 1) * 3 + i) % 7 + 1);
        encode(c.type, x, v.data() + i * size);
    }
    return v;
}

void *deviceCopy(const std::vector<unsigned char> &host, size_t bytes) {
    void *p = nullptr;
    if (aclrtMalloc(&p, bytes == 0 ? 1 : bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return nullptr;
    if (!host.empty()) aclrtMemcpy(p, bytes, host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE);
    return p;
}

std::vector<unsigned char> hostCopy(const void *dev, size_t bytes) {
    std::vector<unsigned char> v(bytes);
    if (bytes > 0) aclrtMemcpy(v.data(), bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    return v;
}

/// Issues rank's part of the case; the result ends up in `out` (for Broadcast: in `in`, copied over).
HcclResult issue(const Case &c, void *in, void *out, uint32_t rank, uint32_t n, HcclComm comm, aclrtStream s) {
    void *recv = c.inPlace ? in : out;
    switch (c.kind) {
    case Kind::AllReduce: return HcclAllReduce(in, recv, c.count, c.type, c.op, comm, s);
    case Kind::Broadcast: return HcclBroadcast(in, c.count, c.type, c.root, comm, s);
    case Kind::AllGather: return HcclAllGather(in, out, c.count, c.type, comm, s);
    case Kind::ReduceScatter: return HcclReduceScatter(in, recv, c.count, c.type, c.op, comm, s);
    case Kind::Reduce: return HcclReduce(in, recv, c.count, c.type, c.op, c.root, comm, s);
    case Kind::Scatter: return HcclScatter(in, out, c.count, c.type, c.root, comm, s);
    case Kind::AlltoAll: return HcclAlltoAll(in, c.count, c.type, out, c.count, c.type, comm, s);
    case Kind::Barrier: return HcclBarrier(comm, s);
    case Kind::SendRecv: {  // a ring: even ranks send first, odd ranks receive first
        const uint32_t next = (rank + 1) % n, prev = (rank + n - 1) % n;
        HcclResult rc;
        if (rank % 2 == 0) {
            rc = HcclSend(in, c.count, c.type, next, comm, s);
            return rc != HCCL_SUCCESS ? rc : HcclRecv(out, c.count, c.type, prev, comm, s);
        }
        rc = HcclRecv(out, c.count, c.type, prev, comm, s);
        return rc != HCCL_SUCCESS ? rc : HcclSend(in, c.count, c.type, next, comm, s);
    }
    }
    return HCCL_E_PARA;
}

struct Reference {  // the in-process (shared-memory path) communicator over devices 0..n-1
    std::vector<HcclComm> comms;
    std::vector<aclrtStream> streams;
};

Reference makeReference(uint32_t n, int32_t myDevice) {
    Reference ref;
    std::vector<int32_t> devices(n);
    for (uint32_t i = 0; i < n; ++i) devices[i] = static_cast<int32_t>(i);
    ref.comms.resize(n);
    ref.streams.resize(n);
    EXPECT(HcclCommInitAll(n, devices.data(), ref.comms.data()) == HCCL_SUCCESS, "reference communicator");
    for (uint32_t i = 0; i < n; ++i) {
        aclrtSetDevice(static_cast<int32_t>(i));
        aclrtCreateStream(&ref.streams[i]);
    }
    aclrtSetDevice(myDevice);
    return ref;
}

// Rank `rank`'s result of the case on the shared-memory path.
std::vector<unsigned char> referenceResult(const Case &c, uint32_t rank, uint32_t n, Reference &ref, int32_t myDevice) {
    const size_t size = typeSize(c.type);
    std::vector<void *> ins(n), outs(n);
    for (uint32_t r = 0; r < n; ++r) {
        aclrtSetDevice(static_cast<int32_t>(r));
        ins[r] = deviceCopy(input(c, r, n), std::max(inputElems(c, n), outputElems(c, n)) * size);
        outs[r] = deviceCopy({}, outputElems(c, n) * size);
    }
    for (uint32_t r = 0; r < n; ++r) {
        EXPECT(issue(c, ins[r], outs[r], r, n, ref.comms[r], ref.streams[r]) == HCCL_SUCCESS, "reference %s",
               kindName(c.kind));
    }
    for (uint32_t r = 0; r < n; ++r) aclrtSynchronizeStream(ref.streams[r]);
    const bool inBuffer = c.inPlace || c.kind == Kind::Broadcast;
    std::vector<unsigned char> result = hostCopy(inBuffer ? ins[rank] : outs[rank], outputElems(c, n) * size);
    for (uint32_t r = 0; r < n; ++r) {
        aclrtFree(ins[r]);
        aclrtFree(outs[r]);
    }
    aclrtSetDevice(myDevice);
    return result;
}

void runCase(const Case &c, uint32_t rank, uint32_t n, HcclComm comm, aclrtStream stream, Reference &ref,
             int32_t myDevice) {
    const size_t size = typeSize(c.type);
    void *in = deviceCopy(input(c, rank, n), std::max(inputElems(c, n), outputElems(c, n)) * size);
    void *out = deviceCopy({}, outputElems(c, n) * size);
    EXPECT(issue(c, in, out, rank, n, comm, stream) == HCCL_SUCCESS, "%s enqueue", kindName(c.kind));
    EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "%s synchronize", kindName(c.kind));
    HcclResult async = HCCL_E_INTERNAL;
    HcclGetCommAsyncError(comm, &async);
    EXPECT(async == HCCL_SUCCESS, "%s type %d op %d: async error %d", kindName(c.kind), c.type, c.op, async);
    const bool inBuffer = c.inPlace || c.kind == Kind::Broadcast;
    const auto got = hostCopy(inBuffer ? in : out, outputElems(c, n) * size);
    const auto want = referenceResult(c, rank, n, ref, myDevice);
    const bool meaningful = c.kind != Kind::Reduce || rank == c.root;  // Reduce: only the root's output
    EXPECT(!meaningful || got == want, "%s type %d op %d count %llu root %u in-place %d differs from the shm path",
           kindName(c.kind), c.type, c.op, static_cast<unsigned long long>(c.count), c.root, c.inPlace);
    aclrtFree(in);
    aclrtFree(out);
}

std::vector<Case> cases(uint32_t n) {
    std::vector<Case> all;
    const HcclDataType reducible[] = {HCCL_DATA_TYPE_INT8,   HCCL_DATA_TYPE_INT16,  HCCL_DATA_TYPE_INT32,
                                      HCCL_DATA_TYPE_INT64,  HCCL_DATA_TYPE_UINT8,  HCCL_DATA_TYPE_UINT16,
                                      HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_UINT64, HCCL_DATA_TYPE_FP16,
                                      HCCL_DATA_TYPE_FP32,   HCCL_DATA_TYPE_FP64,   HCCL_DATA_TYPE_BFP16};
    const HcclReduceOp ops[] = {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX, HCCL_REDUCE_MIN};
    for (HcclDataType t : reducible) {
        for (HcclReduceOp op : ops) {
            all.push_back({Kind::AllReduce, t, op, 1000, 0, false});
            all.push_back({Kind::ReduceScatter, t, op, 100, 0, false});
            all.push_back({Kind::Reduce, t, op, 500, (static_cast<uint32_t>(t) + op) % n, false});
        }
    }
    all.push_back({Kind::AllReduce, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, 1000, 0, true});
    all.push_back({Kind::AllReduce, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, (6u << 20) / 4 + 5, 0, false});  // > 4 MiB
    all.push_back({Kind::ReduceScatter, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_SUM, 100, 0, true});
    all.push_back({Kind::Reduce, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_MAX, 300, n - 1, true});
    for (HcclDataType t : {HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT128, HCCL_DATA_TYPE_FP8E4M3}) {
        all.push_back({Kind::Broadcast, t, HCCL_REDUCE_SUM, 777, n - 1, false});
        all.push_back({Kind::AllGather, t, HCCL_REDUCE_SUM, 333, 0, false});
        all.push_back({Kind::Scatter, t, HCCL_REDUCE_SUM, 50, 1 % n, false});
        all.push_back({Kind::AlltoAll, t, HCCL_REDUCE_SUM, 64, 0, false});
        all.push_back({Kind::SendRecv, t, HCCL_REDUCE_SUM, 1000, 0, false});
    }
    all.push_back({Kind::Broadcast, HCCL_DATA_TYPE_FP64, HCCL_REDUCE_SUM, (5u << 20) / 8, 0, false});
    all.push_back({Kind::Barrier, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 0, 0, false});
    return all;
}

// Even and odd world ranks each form a communicator from their own root info, used at the same time as
// the world communicator on another stream.
void subGroups(uint32_t world, uint32_t n, HcclComm worldComm, aclrtStream stream) {
    HcclRootInfo infos[2];
    for (int g = 0; g < 2; ++g) {
        if (world == static_cast<uint32_t>(g)) EXPECT(HcclGetRootInfo(&infos[g]) == HCCL_SUCCESS, "group root info");
        MPI_Bcast(&infos[g], sizeof(HcclRootInfo), MPI_BYTE, g, MPI_COMM_WORLD);
    }
    const uint32_t group = world % 2, size = n / 2 + (group == 0 ? n % 2 : 0);
    HcclComm comm = nullptr;
    EXPECT(HcclCommInitRootInfo(size, &infos[group], world / 2, &comm) == HCCL_SUCCESS, "group communicator");
    uint32_t got = 0;
    HcclGetRankSize(comm, &got);
    EXPECT(got == size, "group size %u", got);
    aclrtStream other = nullptr;
    aclrtCreateStream(&other);
    const uint64_t count = 4096;
    std::vector<int32_t> mine(count), all(count);
    for (uint64_t i = 0; i < count; ++i) mine[i] = static_cast<int32_t>(world * 100 + i);
    std::vector<unsigned char> bytes(count * 4);
    std::memcpy(bytes.data(), mine.data(), bytes.size());
    void *a = deviceCopy(bytes, bytes.size()), *b = deviceCopy(bytes, bytes.size());
    EXPECT(HcclAllReduce(a, a, count, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, stream) == HCCL_SUCCESS, "group");
    EXPECT(HcclAllReduce(b, b, count, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, worldComm, other) == HCCL_SUCCESS,
           "world");
    aclrtSynchronizeStream(stream);
    aclrtSynchronizeStream(other);
    const auto ga = hostCopy(a, bytes.size()), gb = hostCopy(b, bytes.size());
    bool okA = true, okB = true;
    for (uint64_t i = 0; i < count; ++i) {
        int32_t sum = 0;
        for (uint32_t r = group; r < n; r += 2) sum += static_cast<int32_t>(r * 100 + i);
        int32_t va, vb;
        std::memcpy(&va, ga.data() + i * 4, 4);
        std::memcpy(&vb, gb.data() + i * 4, 4);
        okA = okA && va == sum;
        okB = okB && vb == static_cast<int32_t>((n - 1) * 100 + i);
    }
    EXPECT(okA, "sub-group all-reduce");
    EXPECT(okB, "world all-reduce beside it");
    aclrtFree(a);
    aclrtFree(b);
    aclrtDestroyStream(other);
    EXPECT(HcclCommDestroy(comm) == HCCL_SUCCESS, "group destroy");
}

// HcclCommInitClusterInfo on MPI: rank 0 writes a rank table of all ranks (device = world rank modulo
// the device count, servers of 4 devices), every rank forms the communicator from it.
void rankTable(uint32_t world, uint32_t n, uint32_t devices, aclrtStream stream) {
    char path[256] = {};
    if (world == 0) {
        std::snprintf(path, sizeof path, "/tmp/vnpu_mpi_rank_table_%d.json", static_cast<int>(getpid()));
        FILE *f = std::fopen(path, "w");
        std::fprintf(f,
                     "{\"version\": \"1.0\", \"status\": \"completed\", \"server_count\": \"%u\", \"server_list\": [",
                     (n + 3) / 4);
        for (uint32_t r = 0; r < n; ++r) {
            if (r % 4 == 0) std::fprintf(f, "%s{\"server_id\": \"10.0.0.%u\", \"device\": [", r ? "]}, " : "", r / 4);
            std::fprintf(f, "%s{\"device_id\": \"%u\", \"device_ip\": \"192.168.0.%u\", \"rank_id\": \"%u\"}",
                         r % 4 ? ", " : "", r % devices, r, r);
        }
        std::fprintf(f, "]}]}\n");
        std::fclose(f);
    }
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    HcclComm comm = nullptr;
    EXPECT(HcclCommInitClusterInfo(path, world, &comm) == HCCL_SUCCESS, "rank table communicator");
    const uint64_t count = 1000;
    std::vector<unsigned char> bytes(count * 4);
    const int32_t mine = static_cast<int32_t>(world + 1);
    for (uint64_t i = 0; i < count; ++i) std::memcpy(bytes.data() + i * 4, &mine, 4);
    void *buf = deviceCopy(bytes, bytes.size());
    EXPECT(HcclAllReduce(buf, buf, count, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, stream) == HCCL_SUCCESS,
           "rank table all-reduce");
    aclrtSynchronizeStream(stream);
    const auto got = hostCopy(buf, bytes.size());
    int32_t first = 0;
    std::memcpy(&first, got.data(), 4);
    EXPECT(first == static_cast<int32_t>(n * (n + 1) / 2), "rank table all-reduce gave %d", first);
    aclrtFree(buf);
    EXPECT(HcclCommDestroy(comm) == HCCL_SUCCESS, "rank table destroy");
    MPI_Barrier(MPI_COMM_WORLD);
    if (world == 0) std::remove(path);
}

}  // namespace

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int world = 0, worldSize = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
    g_world = world;
    const uint32_t n = static_cast<uint32_t>(worldSize);

    aclInit(nullptr);
    uint32_t devices = 0;
    aclrtGetDeviceCount(&devices);
    const int32_t device = static_cast<int32_t>(static_cast<uint32_t>(world) % devices);
    aclrtSetDevice(device);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);

    HcclRootInfo info;
    if (world == 0) EXPECT(HcclGetRootInfo(&info) == HCCL_SUCCESS, "root info");
    MPI_Bcast(&info, sizeof info, MPI_BYTE, 0, MPI_COMM_WORLD);
    HcclComm comm = nullptr;
    EXPECT(HcclCommInitRootInfo(n, &info, static_cast<uint32_t>(world), &comm) == HCCL_SUCCESS, "world communicator");
    // The transport asked for (argv[1]: mpi or shm) is the one in use: the MPI one is a library of its own.
    const bool wantMpi = argc < 2 || std::strcmp(argv[1], "shm") != 0;
    const bool mpiLoaded = dlopen("libvnpu_hccl_mpi.so", RTLD_NOW | RTLD_NOLOAD) != nullptr;
    EXPECT(mpiLoaded == wantMpi, "the MPI transport is %s", mpiLoaded ? "loaded" : "not loaded");
    uint32_t rank = 99, size = 0;
    HcclGetRankId(comm, &rank);
    HcclGetRankSize(comm, &size);
    EXPECT(rank == static_cast<uint32_t>(world) && size == n, "rank %u size %u", rank, size);

    Reference ref = makeReference(n, device);
    for (const Case &c : cases(n)) runCase(c, rank, n, comm, stream, ref, device);
    if (n >= 2) subGroups(static_cast<uint32_t>(world), n, comm, stream);
    rankTable(static_cast<uint32_t>(world), n, devices, stream);

    for (HcclComm c : ref.comms) HcclCommDestroy(c);
    EXPECT(HcclCommDestroy(comm) == HCCL_SUCCESS, "destroy");
    aclrtDestroyStream(stream);
    std::printf("rank %d of %d: %d checks, %d failed\n", world, worldSize, g_checks, g_failures);
    int failures = g_failures, total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
