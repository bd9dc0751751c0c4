// libvnpu_hccl_mpi.so: the virtual HCCL's communicators on Open MPI. Each collective is one nonblocking MPI
// call waited for with a deadline (chunked below INT_MAX elements where MPI's int counts need it); 16-bit
// float reductions use user-defined MPI operations that reduce in fp32 through vnpu's own reduction.
#include <mpi.h>

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "hccl_mpi.h"

namespace vnpu::hccl {
namespace {

// Set once a communicator broke (a peer never came, or died): MPI_Finalize at exit would wait for
// that peer, so the process then leaves without it.
std::atomic<bool> g_anyBroken{false};

constexpr int kJoinTagBase = 0x4000;  // + sequence % kJoinTags: the member lists of one root info
constexpr int kJoinTags = 0x3000;     // sequences: HcclGetRootInfo's, world root infos', rank tables' (0x1000 each)
constexpr int kP2pTag = 7;
constexpr uint64_t kChunkElems = 1ULL << 28;  // well below INT_MAX, in elements

ReduceFn g_reduce = nullptr;

uint64_t nowNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// MPI user functions carry no context: one per (type, op), all going to vnpu's reduction.
template <HcclDataType Type, HcclReduceOp Op>
void halfOp(void *in, void *inout, int *len, MPI_Datatype *) {
    g_reduce(inout, in, static_cast<uint64_t>(*len), Type, Op);
}

struct HalfOps {
    MPI_Op fp16[4];
    MPI_Op bf16[4];
};

HalfOps makeHalfOps() {
    HalfOps ops{};
    MPI_Op_create(&halfOp<HCCL_DATA_TYPE_FP16, HCCL_REDUCE_SUM>, 1, &ops.fp16[HCCL_REDUCE_SUM]);
    MPI_Op_create(&halfOp<HCCL_DATA_TYPE_FP16, HCCL_REDUCE_PROD>, 1, &ops.fp16[HCCL_REDUCE_PROD]);
    MPI_Op_create(&halfOp<HCCL_DATA_TYPE_FP16, HCCL_REDUCE_MAX>, 1, &ops.fp16[HCCL_REDUCE_MAX]);
    MPI_Op_create(&halfOp<HCCL_DATA_TYPE_FP16, HCCL_REDUCE_MIN>, 1, &ops.fp16[HCCL_REDUCE_MIN]);
    MPI_Op_create(&halfOp<HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_SUM>, 1, &ops.bf16[HCCL_REDUCE_SUM]);
    MPI_Op_create(&halfOp<HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_PROD>, 1, &ops.bf16[HCCL_REDUCE_PROD]);
    MPI_Op_create(&halfOp<HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_MAX>, 1, &ops.bf16[HCCL_REDUCE_MAX]);
    MPI_Op_create(&halfOp<HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_MIN>, 1, &ops.bf16[HCCL_REDUCE_MIN]);
    return ops;
}

HalfOps g_halfOps;
MPI_Datatype g_int128 = MPI_DATATYPE_NULL;

/// The MPI type of one element; element counts stay those of HCCL.
MPI_Datatype mpiType(HcclDataType type) {
    switch (type) {
    case HCCL_DATA_TYPE_INT8: return MPI_INT8_T;
    case HCCL_DATA_TYPE_INT16: return MPI_INT16_T;
    case HCCL_DATA_TYPE_INT32: return MPI_INT32_T;
    case HCCL_DATA_TYPE_INT64: return MPI_INT64_T;
    case HCCL_DATA_TYPE_UINT8: return MPI_UINT8_T;
    case HCCL_DATA_TYPE_UINT16: return MPI_UINT16_T;
    case HCCL_DATA_TYPE_UINT32: return MPI_UINT32_T;
    case HCCL_DATA_TYPE_UINT64: return MPI_UINT64_T;
    case HCCL_DATA_TYPE_FP32: return MPI_FLOAT;
    case HCCL_DATA_TYPE_FP64: return MPI_DOUBLE;
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16: return MPI_UINT16_T;  // reduced by the user operations
    case HCCL_DATA_TYPE_INT128: return g_int128;
    default: return MPI_UINT8_T;                     // the 8-bit float formats: moved, never reduced
    }
}

MPI_Op mpiOp(HcclDataType type, HcclReduceOp op) {
    if (type == HCCL_DATA_TYPE_FP16) return g_halfOps.fp16[op];
    if (type == HCCL_DATA_TYPE_BFP16) return g_halfOps.bf16[op];
    switch (op) {
    case HCCL_REDUCE_SUM: return MPI_SUM;
    case HCCL_REDUCE_PROD: return MPI_PROD;
    case HCCL_REDUCE_MAX: return MPI_MAX;
    default: return MPI_MIN;
    }
}

int typeBytes(HcclDataType type) {
    int bytes = 0;
    MPI_Type_size(mpiType(type), &bytes);
    return bytes;
}

// HCCL_EXEC_TIMEOUT (seconds, default 1836 as in CANN): how long one collective waits for its peers.
uint64_t execTimeoutNs() {
    const char *text = std::getenv("HCCL_EXEC_TIMEOUT");
    const long long seconds = text != nullptr ? std::atoll(text) : 0;
    return static_cast<uint64_t>(seconds > 0 ? seconds : 1836) * 1000000000ULL;
}

// Every operation is a nonblocking MPI call waited for with a deadline, so that a peer that never comes
// makes it fail with HCCL_E_TIMEOUT instead of hanging. The communicator is broken afterwards (its MPI
// state is out of step): later operations fail at once. MPI forbids freeing a pending collective's
// request, so it is kept.
class Comm final : public MpiComm {
public:
    explicit Comm(MPI_Comm comm) : comm_(comm), timeoutNs_(execTimeoutNs()) {
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);  // an error is a result code, not an abort
    }
    ~Comm() override {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized && !broken_.load()) {
            MPI_Comm_free(&comm_);
        }
    }

    HcclResult allReduce(const void *send, void *recv, uint64_t count, HcclDataType type, HcclReduceOp op) override {
        const MPI_Datatype t = mpiType(type);
        const int size = typeBytes(type);
        for (uint64_t at = 0; at < count; at += kChunkElems) {
            const int n = static_cast<int>(std::min(kChunkElems, count - at));
            const void *s = send == recv ? MPI_IN_PLACE : static_cast<const char *>(send) + at * size;
            MPI_Request r;
            const HcclResult rc =
                run(MPI_Iallreduce(s, static_cast<char *>(recv) + at * size, n, t, mpiOp(type, op), comm_, &r), r);
            if (rc != HCCL_SUCCESS) return rc;
        }
        return HCCL_SUCCESS;
    }

    HcclResult broadcast(void *buf, uint64_t count, HcclDataType type, uint32_t root) override {
        const int size = typeBytes(type);
        for (uint64_t at = 0; at < count; at += kChunkElems) {
            const int n = static_cast<int>(std::min(kChunkElems, count - at));
            MPI_Request r;
            const HcclResult rc = run(
                MPI_Ibcast(static_cast<char *>(buf) + at * size, n, mpiType(type), static_cast<int>(root), comm_, &r), r);
            if (rc != HCCL_SUCCESS) return rc;
        }
        return HCCL_SUCCESS;
    }

    HcclResult allGather(const void *send, void *recv, uint64_t sendCount, HcclDataType type) override {
        if (sendCount > kChunkElems) return HCCL_E_NOT_SUPPORT;
        const int n = static_cast<int>(sendCount);
        const MPI_Datatype t = mpiType(type);
        const bool inPlace = send == static_cast<char *>(recv) + static_cast<uint64_t>(rank_) * sendCount * typeBytes(type);
        MPI_Request r;
        return run(MPI_Iallgather(inPlace ? MPI_IN_PLACE : send, n, t, recv, n, t, comm_, &r), r);
    }

    HcclResult reduceScatter(const void *send, void *recv, uint64_t recvCount, HcclDataType type,
                             HcclReduceOp op) override {
        if (recvCount > kChunkElems) return HCCL_E_NOT_SUPPORT;
        MPI_Request r;
        return run(MPI_Ireduce_scatter_block(send == recv ? MPI_IN_PLACE : send, recv, static_cast<int>(recvCount),
                                             mpiType(type), mpiOp(type, op), comm_, &r),
                   r);
    }

    HcclResult reduce(const void *send, void *recv, uint64_t count, HcclDataType type, HcclReduceOp op,
                      uint32_t root) override {
        const MPI_Datatype t = mpiType(type);
        const int size = typeBytes(type);
        const bool isRoot = static_cast<uint32_t>(rank_) == root;
        for (uint64_t at = 0; at < count; at += kChunkElems) {
            const int n = static_cast<int>(std::min(kChunkElems, count - at));
            const void *s = isRoot && send == recv ? MPI_IN_PLACE : static_cast<const char *>(send) + at * size;
            void *out = isRoot ? static_cast<char *>(recv) + at * size : nullptr;
            MPI_Request r;
            const HcclResult rc = run(MPI_Ireduce(s, out, n, t, mpiOp(type, op), static_cast<int>(root), comm_, &r), r);
            if (rc != HCCL_SUCCESS) return rc;
        }
        return HCCL_SUCCESS;
    }

    HcclResult scatter(const void *send, void *recv, uint64_t recvCount, HcclDataType type, uint32_t root) override {
        if (recvCount > kChunkElems) return HCCL_E_NOT_SUPPORT;
        const int n = static_cast<int>(recvCount);
        const MPI_Datatype t = mpiType(type);
        const bool isRoot = static_cast<uint32_t>(rank_) == root;
        const bool inPlace =
            isRoot && recv == static_cast<const char *>(send) + static_cast<uint64_t>(root) * recvCount * typeBytes(type);
        MPI_Request r;
        return run(MPI_Iscatter(send, n, t, inPlace ? MPI_IN_PLACE : recv, n, t, static_cast<int>(root), comm_, &r), r);
    }

    HcclResult alltoAll(const void *send, void *recv, uint64_t count, HcclDataType type) override {
        if (count > kChunkElems) return HCCL_E_NOT_SUPPORT;
        const int n = static_cast<int>(count);
        const MPI_Datatype t = mpiType(type);
        MPI_Request r;
        return run(MPI_Ialltoall(send, n, t, recv, n, t, comm_, &r), r);
    }

    HcclResult send(const void *buf, uint64_t bytes, uint32_t peer) override {
        for (uint64_t at = 0; at < bytes || at == 0; at += kChunkElems) {
            const int n = static_cast<int>(std::min(kChunkElems, bytes - at));
            MPI_Request r;
            const HcclResult rc = run(MPI_Isend(static_cast<const char *>(buf) + at, n, MPI_BYTE, static_cast<int>(peer),
                                                kP2pTag, comm_, &r),
                                      r);
            if (rc != HCCL_SUCCESS || bytes == 0) return rc;
        }
        return HCCL_SUCCESS;
    }

    HcclResult recv(void *buf, uint64_t bytes, uint32_t peer) override {
        for (uint64_t at = 0; at < bytes || at == 0; at += kChunkElems) {
            const int n = static_cast<int>(std::min(kChunkElems, bytes - at));
            MPI_Request r;
            MPI_Status status;
            HcclResult rc = run(MPI_Irecv(static_cast<char *>(buf) + at, n, MPI_BYTE, static_cast<int>(peer), kP2pTag,
                                          comm_, &r),
                                r, &status);
            int got = 0;
            if (rc == HCCL_SUCCESS) MPI_Get_count(&status, MPI_BYTE, &got);
            if (rc == HCCL_SUCCESS && got != n) rc = HCCL_E_PARA;  // the sender sent another size
            if (rc != HCCL_SUCCESS || bytes == 0) return rc;
        }
        return HCCL_SUCCESS;
    }

    HcclResult barrier() override {
        MPI_Request r;
        return run(MPI_Ibarrier(comm_, &r), r);
    }

private:
    // Waits for the request just started (issueRc: its start's result) until HCCL_EXEC_TIMEOUT.
    HcclResult run(int issueRc, MPI_Request &request, MPI_Status *status = MPI_STATUS_IGNORE) {
        if (issueRc != MPI_SUCCESS) return HCCL_E_INTERNAL;
        const uint64_t deadline = nowNs() + timeoutNs_;
        for (uint32_t spin = 0;; ++spin) {
            if (broken_.load(std::memory_order_relaxed)) return HCCL_E_TIMEOUT;
            int done = 0;
            if (MPI_Test(&request, &done, status) != MPI_SUCCESS) return HCCL_E_INTERNAL;
            if (done) return HCCL_SUCCESS;
            if ((spin & 255) == 0 && nowNs() > deadline) {
                broken_.store(true);
                g_anyBroken.store(true);
                std::lock_guard<std::mutex> lock(mutex_);
                abandoned_.push_back(request);
                std::fprintf(stderr, "vnpu hccl: an MPI operation of rank %d found no peers within HCCL_EXEC_TIMEOUT "
                                     "(%llu s); the communicator is unusable\n",
                             rank_, static_cast<unsigned long long>(timeoutNs_ / 1000000000ULL));
                return HCCL_E_TIMEOUT;
            }
            sched_yield();  // other ranks may share this core
        }
    }

    MPI_Comm comm_;
    int rank_ = 0;
    uint64_t timeoutNs_;
    std::atomic<bool> broken_{false};
    std::mutex mutex_;
    std::vector<MPI_Request> abandoned_;
};

// Waits for a request until the deadline, polling (MPI has no timed wait); cancels it on timeout.
HcclResult waitUntil(MPI_Request &request, uint64_t deadlineNs) {
    for (;;) {
        int done = 0;
        if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return HCCL_E_INTERNAL;
        if (done) return HCCL_SUCCESS;
        if (nowNs() > deadlineNs) {
            MPI_Cancel(&request);
            MPI_Request_free(&request);
            return HCCL_E_TIMEOUT;
        }
        const timespec pause{0, 50000};  // a peer that has not arrived yet: poll 20 times per ms
        nanosleep(&pause, nullptr);
    }
}

class Transport final : public MpiTransport {
public:
    explicit Transport(int worldRank) : worldRank_(worldRank) {}

    uint32_t worldRank() const override { return static_cast<uint32_t>(worldRank_); }

    HcclResult open(uint32_t rootWorldRank, uint32_t sequence, uint32_t nRanks, uint32_t rank, uint64_t timeoutNs,
                    std::unique_ptr<MpiComm> &out) override {
        int worldSize = 0;
        MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
        if (nRanks > static_cast<uint32_t>(worldSize) || rootWorldRank >= static_cast<uint32_t>(worldSize)) {
            std::fprintf(stderr, "vnpu hccl: %u ranks asked for, but MPI_COMM_WORLD has %d\n", nRanks, worldSize);
            return HCCL_E_PARA;
        }
        const int tag = kJoinTagBase + static_cast<int>(sequence % kJoinTags);
        const uint64_t deadline = nowNs() + timeoutNs;
        std::vector<int> members(nRanks, -1);
        if (static_cast<uint32_t>(worldRank_) == rootWorldRank) {
            // The root collects (rank, world rank) from every other member, then hands out the list.
            members[rank] = worldRank_;
            for (uint32_t i = 1; i < nRanks; ++i) {
                int pair[2] = {-1, -1};
                MPI_Request request;
                MPI_Irecv(pair, 2, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &request);
                const HcclResult rc = waitUntil(request, deadline);
                if (rc != HCCL_SUCCESS) return rc;
                if (pair[0] < 0 || static_cast<uint32_t>(pair[0]) >= nRanks || members[pair[0]] != -1) {
                    std::fprintf(stderr, "vnpu hccl: rank %d joined twice or is out of range\n", pair[0]);
                    return HCCL_E_PARA;
                }
                members[pair[0]] = pair[1];
            }
            for (uint32_t r = 0; r < nRanks; ++r) {
                if (r != rank && MPI_Send(members.data(), static_cast<int>(nRanks), MPI_INT, members[r], tag,
                                          MPI_COMM_WORLD) != MPI_SUCCESS) {
                    return HCCL_E_INTERNAL;
                }
            }
        } else {
            int pair[2] = {static_cast<int>(rank), worldRank_};
            if (MPI_Send(pair, 2, MPI_INT, static_cast<int>(rootWorldRank), tag, MPI_COMM_WORLD) != MPI_SUCCESS) {
                return HCCL_E_INTERNAL;
            }
            MPI_Request request;
            MPI_Irecv(members.data(), static_cast<int>(nRanks), MPI_INT, static_cast<int>(rootWorldRank), tag,
                      MPI_COMM_WORLD, &request);
            const HcclResult rc = waitUntil(request, deadline);
            if (rc != HCCL_SUCCESS) return rc;
        }
        MPI_Group world;
        MPI_Group group;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, static_cast<int>(nRanks), members.data(), &group);
        MPI_Comm comm = MPI_COMM_NULL;
        const int rc = MPI_Comm_create_group(MPI_COMM_WORLD, group, tag, &comm);
        MPI_Group_free(&group);
        MPI_Group_free(&world);
        if (rc != MPI_SUCCESS || comm == MPI_COMM_NULL) return HCCL_E_INTERNAL;
        out = std::make_unique<Comm>(comm);
        return HCCL_SUCCESS;
    }

private:
    int worldRank_;
};

bool g_weInitialised = false;

void finalizeAtExit() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (g_weInitialised && !finalized && !g_anyBroken.load()) {
        MPI_Finalize();
    }
}

} // namespace
} // namespace vnpu::hccl

using namespace vnpu::hccl;

extern "C" __attribute__((visibility("default"))) void *vnpuHcclMpiCreate(ReduceFn reduce, char *error,
                                                                          unsigned long errorBytes) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    int provided = 0;
    if (!initialised) {
        if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
            std::snprintf(error, errorBytes, "MPI_Init_thread failed");
            return nullptr;
        }
        g_weInitialised = true;
        std::atexit(finalizeAtExit);
    } else {
        MPI_Query_thread(&provided);
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        // Collectives run on stream worker threads, several at a time.
        std::snprintf(error, errorBytes, "MPI provides thread level %d; MPI_THREAD_MULTIPLE is needed%s", provided,
                      initialised ? " (the program initialised MPI itself: use MPI_Init_thread)" : "");
        return nullptr;
    }
    g_reduce = reduce;
    g_halfOps = makeHalfOps();
    MPI_Type_contiguous(16, MPI_BYTE, &g_int128);
    MPI_Type_commit(&g_int128);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return new Transport(rank);
}
