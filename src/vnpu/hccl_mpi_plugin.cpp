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
constexpr int kJoinTags = 0x3000;  // sequences: HcclGetRootInfo's, world root infos', rank tables' (0x1000 each)
constexpr int kP2pTag = 7;
constexpr uint64_t kChunkElems = 1ULL << 28;  // well below INT_MAX, in elements

ReduceFn g_reduce = nullptr;

uint64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// MPI user functions carry no context: one per (type, op), all going to vnpu's reduction.
template <HcclDataType Type, HcclReduceOp Op>
void half_op(void *in, void *inout, int *len, MPI_Datatype *) {
    g_reduce(inout, in, static_cast<uint64_t>(*len), Type, Op);
}

struct HalfOps {
    MPI_Op fp16[4];
    MPI_Op bf16[4];
};

HalfOps make_half_ops() {
    HalfOps ops{};
    MPI_Op_create(&half_op<HCCL_DATA_TYPE_FP16, HCCL_REDUCE_SUM>, 1, &ops.fp16[HCCL_REDUCE_SUM]);
    MPI_Op_create(&half_op<HCCL_DATA_TYPE_FP16, HCCL_REDUCE_PROD>, 1, &ops.fp16[HCCL_REDUCE_PROD]);
    MPI_Op_create(&half_op<HCCL_DATA_TYPE_FP16, HCCL_REDUCE_MAX>, 1, &ops.fp16[HCCL_REDUCE_MAX]);
    MPI_Op_create(&half_op<HCCL_DATA_TYPE_FP16, HCCL_REDUCE_MIN>, 1, &ops.fp16[HCCL_REDUCE_MIN]);
    MPI_Op_create(&half_op<HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_SUM>, 1, &ops.bf16[HCCL_REDUCE_SUM]);
    MPI_Op_create(&half_op<HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_PROD>, 1, &ops.bf16[HCCL_REDUCE_PROD]);
    MPI_Op_create(&half_op<HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_MAX>, 1, &ops.bf16[HCCL_REDUCE_MAX]);
    MPI_Op_create(&half_op<HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_MIN>, 1, &ops.bf16[HCCL_REDUCE_MIN]);
    return ops;
}

HalfOps g_halfOps;
MPI_Datatype g_int128 = MPI_DATATYPE_NULL;

/// The MPI type of one element; element counts stay those of HCCL.
MPI_Datatype mpi_type(HcclDataType type) {
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
    default: return MPI_UINT8_T;  // the 8-bit float formats: moved, never reduced
    }
}

MPI_Op mpi_op(HcclDataType type, HcclReduceOp op) {
    if (type == HCCL_DATA_TYPE_FP16) return g_halfOps.fp16[op];
    if (type == HCCL_DATA_TYPE_BFP16) return g_halfOps.bf16[op];
    switch (op) {
    case HCCL_REDUCE_SUM: return MPI_SUM;
    case HCCL_REDUCE_PROD: return MPI_PROD;
    case HCCL_REDUCE_MAX: return MPI_MAX;
    default: return MPI_MIN;
    }
}

int type_bytes(HcclDataType type) {
    int bytes = 0;
    MPI_Type_size(mpi_type(type), &bytes);
    return bytes;
}

// HCCL_EXEC_TIMEOUT (seconds, default 1836 as in CANN): how long one collective waits for its peers.
uint64_t exec_timeout_ns() {
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
    explicit Comm(MPI_Comm comm) : comm_(comm), timeoutNs_(exec_timeout_ns()) {
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

    HcclResult all_reduce(const void *send, void *recv, uint64_t count, HcclDataType type, HcclReduceOp op) override {
        const MPI_Datatype t = mpi_type(type);
        const int size = type_bytes(type);
        for (uint64_t at = 0; at < count; at += kChunkElems) {
            const int n = static_cast<int>(std::min(kChunkElems, count - at));
            const void *s = send == recv ? MPI_IN_PLACE : static_cast<const char *>(send) + at * size;
            MPI_Request r;
            const HcclResult rc =
                run(MPI_Iallreduce(s, static_cast<char *>(recv) + at * size, n, t, mpi_op(type, op), comm_, &r), r);
            if (rc != HCCL_SUCCESS) return rc;
        }
        return HCCL_SUCCESS;
    }

    HcclResult broadcast(void *buf, uint64_t count, HcclDataType type, uint32_t root) override {
        const int size = type_bytes(type);
        for (uint64_t at = 0; at < count; at += kChunkElems) {
            const int n = static_cast<int>(std::min(kChunkElems, count - at));
            MPI_Request r;
            const HcclResult rc = run(MPI_Ibcast(static_cast<char *>(buf) + at * size, n, mpi_type(type),
                                                 static_cast<int>(root), comm_, &r),
                                      r);
            if (rc != HCCL_SUCCESS) return rc;
        }
        return HCCL_SUCCESS;
    }

    HcclResult all_gather(const void *send, void *recv, uint64_t send_count, HcclDataType type) override {
        if (send_count > kChunkElems) return HCCL_E_NOT_SUPPORT;
        const int n = static_cast<int>(send_count);
        const MPI_Datatype t = mpi_type(type);
        const bool in_place =
            send == static_cast<char *>(recv) + static_cast<uint64_t>(rank_) * send_count * type_bytes(type);
        MPI_Request r;
        return run(MPI_Iallgather(in_place ? MPI_IN_PLACE : send, n, t, recv, n, t, comm_, &r), r);
    }

    HcclResult reduce_scatter(const void *send, void *recv, uint64_t recv_count, HcclDataType type,
                              HcclReduceOp op) override {
        if (recv_count > kChunkElems) return HCCL_E_NOT_SUPPORT;
        MPI_Request r;
        return run(MPI_Ireduce_scatter_block(send == recv ? MPI_IN_PLACE : send, recv, static_cast<int>(recv_count),
                                             mpi_type(type), mpi_op(type, op), comm_, &r),
                   r);
    }

    HcclResult reduce(const void *send, void *recv, uint64_t count, HcclDataType type, HcclReduceOp op,
                      uint32_t root) override {
        const MPI_Datatype t = mpi_type(type);
        const int size = type_bytes(type);
        const bool is_root = static_cast<uint32_t>(rank_) == root;
        for (uint64_t at = 0; at < count; at += kChunkElems) {
            const int n = static_cast<int>(std::min(kChunkElems, count - at));
            const void *s = is_root && send == recv ? MPI_IN_PLACE : static_cast<const char *>(send) + at * size;
            void *out = is_root ? static_cast<char *>(recv) + at * size : nullptr;
            MPI_Request r;
            const HcclResult rc =
                run(MPI_Ireduce(s, out, n, t, mpi_op(type, op), static_cast<int>(root), comm_, &r), r);
            if (rc != HCCL_SUCCESS) return rc;
        }
        return HCCL_SUCCESS;
    }

    HcclResult scatter(const void *send, void *recv, uint64_t recv_count, HcclDataType type, uint32_t root) override {
        if (recv_count > kChunkElems) return HCCL_E_NOT_SUPPORT;
        const int n = static_cast<int>(recv_count);
        const MPI_Datatype t = mpi_type(type);
        const bool is_root = static_cast<uint32_t>(rank_) == root;
        const bool in_place = is_root && recv == static_cast<const char *>(send) +
                                                     static_cast<uint64_t>(root) * recv_count * type_bytes(type);
        MPI_Request r;
        return run(MPI_Iscatter(send, n, t, in_place ? MPI_IN_PLACE : recv, n, t, static_cast<int>(root), comm_, &r),
                   r);
    }

    HcclResult all_to_all(const void *send, void *recv, uint64_t count, HcclDataType type) override {
        if (count > kChunkElems) return HCCL_E_NOT_SUPPORT;
        const int n = static_cast<int>(count);
        const MPI_Datatype t = mpi_type(type);
        MPI_Request r;
        return run(MPI_Ialltoall(send, n, t, recv, n, t, comm_, &r), r);
    }

    HcclResult send(const void *buf, uint64_t bytes, uint32_t peer) override {
        for (uint64_t at = 0; at < bytes || at == 0; at += kChunkElems) {
            const int n = static_cast<int>(std::min(kChunkElems, bytes - at));
            MPI_Request r;
            const HcclResult rc = run(MPI_Isend(static_cast<const char *>(buf) + at, n, MPI_BYTE,
                                                static_cast<int>(peer), kP2pTag, comm_, &r),
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
            HcclResult rc =
                run(MPI_Irecv(static_cast<char *>(buf) + at, n, MPI_BYTE, static_cast<int>(peer), kP2pTag, comm_, &r),
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
    // Waits for the request just started (issue_rc: its start's result) until HCCL_EXEC_TIMEOUT.
    HcclResult run(int issue_rc, MPI_Request &request, MPI_Status *status = MPI_STATUS_IGNORE) {
        if (issue_rc != MPI_SUCCESS) return HCCL_E_INTERNAL;
        const uint64_t deadline = now_ns() + timeoutNs_;
        for (uint32_t spin = 0;; ++spin) {
            if (broken_.load(std::memory_order_relaxed)) return HCCL_E_TIMEOUT;
            int done = 0;
            if (MPI_Test(&request, &done, status) != MPI_SUCCESS) return HCCL_E_INTERNAL;
            if (done) return HCCL_SUCCESS;
            if ((spin & 255) == 0 && now_ns() > deadline) {
                broken_.store(true);
                g_anyBroken.store(true);
                std::lock_guard<std::mutex> lock(mutex_);
                abandoned_.push_back(request);
                std::fprintf(stderr,
                             "vnpu hccl: an MPI operation of rank %d found no peers within HCCL_EXEC_TIMEOUT "
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
HcclResult wait_until(MPI_Request &request, uint64_t deadline_ns) {
    for (;;) {
        int done = 0;
        if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return HCCL_E_INTERNAL;
        if (done) return HCCL_SUCCESS;
        if (now_ns() > deadline_ns) {
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
    explicit Transport(int world_rank) : worldRank_(world_rank) {}

    uint32_t world_rank() const override { return static_cast<uint32_t>(worldRank_); }

    HcclResult open(uint32_t root_world_rank, uint32_t sequence, uint32_t n_ranks, uint32_t rank, uint64_t timeout_ns,
                    std::unique_ptr<MpiComm> &out) override {
        int world_size = 0;
        MPI_Comm_size(MPI_COMM_WORLD, &world_size);
        if (n_ranks > static_cast<uint32_t>(world_size) || root_world_rank >= static_cast<uint32_t>(world_size)) {
            std::fprintf(stderr, "vnpu hccl: %u ranks asked for, but MPI_COMM_WORLD has %d\n", n_ranks, world_size);
            return HCCL_E_PARA;
        }
        const int tag = kJoinTagBase + static_cast<int>(sequence % kJoinTags);
        const uint64_t deadline = now_ns() + timeout_ns;
        std::vector<int> members(n_ranks, -1);
        if (static_cast<uint32_t>(worldRank_) == root_world_rank) {
            // The root collects (rank, world rank) from every other member, then hands out the list.
            members[rank] = worldRank_;
            for (uint32_t i = 1; i < n_ranks; ++i) {
                int pair[2] = {-1, -1};
                MPI_Request request;
                MPI_Irecv(pair, 2, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &request);
                const HcclResult rc = wait_until(request, deadline);
                if (rc != HCCL_SUCCESS) return rc;
                if (pair[0] < 0 || static_cast<uint32_t>(pair[0]) >= n_ranks || members[pair[0]] != -1) {
                    std::fprintf(stderr, "vnpu hccl: rank %d joined twice or is out of range\n", pair[0]);
                    return HCCL_E_PARA;
                }
                members[pair[0]] = pair[1];
            }
            for (uint32_t r = 0; r < n_ranks; ++r) {
                if (r != rank && MPI_Send(members.data(), static_cast<int>(n_ranks), MPI_INT, members[r], tag,
                                          MPI_COMM_WORLD) != MPI_SUCCESS) {
                    return HCCL_E_INTERNAL;
                }
            }
        } else {
            int pair[2] = {static_cast<int>(rank), worldRank_};
            if (MPI_Send(pair, 2, MPI_INT, static_cast<int>(root_world_rank), tag, MPI_COMM_WORLD) != MPI_SUCCESS) {
                return HCCL_E_INTERNAL;
            }
            MPI_Request request;
            MPI_Irecv(members.data(), static_cast<int>(n_ranks), MPI_INT, static_cast<int>(root_world_rank), tag,
                      MPI_COMM_WORLD, &request);
            const HcclResult rc = wait_until(request, deadline);
            if (rc != HCCL_SUCCESS) return rc;
        }
        MPI_Group world;
        MPI_Group group;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, static_cast<int>(n_ranks), members.data(), &group);
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

void finalize_at_exit() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (g_weInitialised && !finalized && !g_anyBroken.load()) {
        MPI_Finalize();
    }
}

}  // namespace
}  // namespace vnpu::hccl

using namespace vnpu::hccl;

extern "C" __attribute__((visibility("default"))) void *vnpuHcclMpiCreate(ReduceFn reduce, char *error,
                                                                          unsigned long error_bytes) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    int provided = 0;
    if (!initialised) {
        if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
            std::snprintf(error, error_bytes, "MPI_Init_thread failed");
            return nullptr;
        }
        g_weInitialised = true;
        std::atexit(finalize_at_exit);
    } else {
        MPI_Query_thread(&provided);
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        // Collectives run on stream worker threads, several at a time.
        std::snprintf(error, error_bytes, "MPI provides thread level %d; MPI_THREAD_MULTIPLE is needed%s", provided,
                      initialised ? " (the program initialised MPI itself: use MPI_Init_thread)" : "");
        return nullptr;
    }
    g_reduce = reduce;
    g_halfOps = make_half_ops();
    MPI_Type_contiguous(16, MPI_BYTE, &g_int128);
    MPI_Type_commit(&g_int128);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return new Transport(rank);
}
