// Communicator management: HcclCommInitAll (ranks are threads of this process, heap arena),
// HcclGetRootInfo + HcclCommInitRootInfo (ranks are processes, shared-memory arena named by the root info).
#include "hccl_comm.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <set>

#include "acl/acl.h"
#include "export.h"
#include "hccl/hccl.h"
#include "hccl_rank_table.h"
#include "runtime.h"
#include "vnpu/vnpu_hccl.h"

namespace vnpu::hccl {
namespace {

constexpr uint64_t kInProcessSlotBytes = 4ULL << 20;
constexpr uint64_t kInProcessP2pBytes = 256ULL << 10;
constexpr char kRootInfoMagic[8] = {'V', 'N', 'P', 'U', 'R', 'O', 'O', 'T'};

/// What HcclGetRootInfo writes into HcclRootInfo::internal.
struct RootInfoPayload {
    char magic[8];
    char shm_name[64];
    char comm_name[128];
    uint32_t transport;  // kTransportShm or kTransportMpi: chosen by the root, followed by every rank
    uint32_t root_world_rank;  // MPI: the creator's rank in MPI_COMM_WORLD
    uint32_t sequence;  // MPI: the creator's count of root infos, which tells them apart
};
constexpr uint32_t kTransportShm = 0;
constexpr uint32_t kTransportMpi = 1;
static_assert(sizeof(RootInfoPayload) <= HCCL_ROOT_INFO_BYTES);

std::atomic<uint32_t> g_commCounter{0};
std::atomic<uint32_t> g_rootInfoCounter{0};
std::atomic<uint32_t> g_worldInfoCounter{0};
std::atomic<uint32_t> g_rankTableCounter{0};
// MPI root info sequences: those of HcclGetRootInfo below kWorldSequenceBase, those of
// vnpuHcclGetWorldRootInfo from it, so that the two never meet under the same tag.
constexpr uint32_t kWorldSequenceBase = 0x1000;
constexpr uint32_t kRankTableSequenceBase = 0x2000;  // HcclCommInitClusterInfo's, 0x1000 of them
std::atomic<int32_t> g_deterministic{0};

uint64_t realtime_ns() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

std::shared_ptr<Arena> make_heap_arena(uint32_t n_ranks) {
    const size_t bytes = arena_bytes(n_ranks, kInProcessSlotBytes, kInProcessP2pBytes);
    void *memory = ::operator new (bytes, std::align_val_t{64});
    init_arena(memory, n_ranks, kInProcessSlotBytes, kInProcessP2pBytes);
    return std::make_shared<Arena>(memory, [memory] {
        auto *header = static_cast<ArenaHeader *>(memory);
        pthread_cond_destroy(&header->cv);
        pthread_mutex_destroy(&header->mu);
        ::operator delete (memory, std::align_val_t{64});
    });
}

int32_t current_device_or(int32_t fallback) {
    int32_t device = 0;
    return aclrtGetDevice(&device) == ACL_SUCCESS ? device : fallback;
}

// The ranks that share an MPI root info form one MPI communicator.
HcclResult init_on_mpi(const RootInfoPayload &payload, uint32_t n_ranks, uint32_t rank, int32_t device_id,
                       HcclComm *comm) {
    MpiTransport *mpi = mpi_transport();
    if (mpi == nullptr) {
        return HCCL_E_UNAVAIL;
    }
    std::unique_ptr<MpiComm> opened;
    const HcclResult rc =
        mpi->open(payload.root_world_rank, payload.sequence, n_ranks, rank, connect_timeout_ns(), opened);
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    auto created = std::make_shared<Communicator>();
    created->mpi = std::move(opened);
    created->rank = rank;
    created->rank_size = n_ranks;
    created->device_id = device_id;
    created->name = payload.comm_name;
    *comm = communicators().add(std::move(created));
    return HCCL_SUCCESS;
}

}  // namespace

HandleRegistry<Communicator> &communicators() {
    static auto *registry = new HandleRegistry<Communicator>;
    return *registry;
}

HcclResult find_communicator(const void *handle, std::shared_ptr<Communicator> &out) {
    if (handle == nullptr) {
        return HCCL_E_PTR;
    }
    out = communicators().find(handle);
    return out ? HCCL_SUCCESS : HCCL_E_PARA;
}

std::string make_comm_name() {
    const uint32_t n = g_commCounter.fetch_add(1);
    const unsigned long long stamp =
        (realtime_ns() / 1000ULL + static_cast<uint64_t>(getpid()) * 7919ULL + n) % 10000000000000000ULL;
    char name[128];
    std::snprintf(name, sizeof name, "127.0.0.1%%lo_%u_%u_%016llu", 60000U + n % 5000U, n, stamp);
    return name;
}

}  // namespace vnpu::hccl

using namespace vnpu::hccl;

extern "C" {

VNPU_EXPORT HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms) {
    if (devices == nullptr || comms == nullptr) {
        return HCCL_E_PTR;
    }
    if (ndev == 0 || ndev > kMaxRanks) {
        return HCCL_E_PARA;
    }
    std::set<int32_t> seen;
    for (uint32_t i = 0; i < ndev; ++i) {
        if (vnpu::Runtime::get().device(devices[i]) == nullptr || !seen.insert(devices[i]).second) {
            return HCCL_E_PARA;
        }
    }
    auto arena = make_heap_arena(ndev);
    const std::string name = make_comm_name();
    for (uint32_t i = 0; i < ndev; ++i) {
        auto comm = std::make_shared<Communicator>();
        comm->arena = arena;
        comm->rank = i;
        comm->rank_size = ndev;
        comm->device_id = devices[i];
        comm->name = name;
        comms[i] = communicators().add(std::move(comm));
    }
    return HCCL_SUCCESS;
}

VNPU_EXPORT HcclResult HcclGetRootInfo(HcclRootInfo *root_info) {
    if (root_info == nullptr) {
        return HCCL_E_PTR;
    }
    RootInfoPayload payload{};
    std::memcpy(payload.magic, kRootInfoMagic, sizeof payload.magic);
    const uint32_t n = g_commCounter.load();
    std::snprintf(payload.shm_name, sizeof payload.shm_name, "/vnpu_hccl_%d_%u_%llu", static_cast<int>(getpid()), n,
                  static_cast<unsigned long long>(realtime_ns() % 1000000000000ULL));
    const std::string name = make_comm_name();
    std::snprintf(payload.comm_name, sizeof payload.comm_name, "%s", name.c_str());
    if (mpi_selected()) {
        MpiTransport *mpi = mpi_transport();
        if (mpi == nullptr) {
            return HCCL_E_UNAVAIL;
        }
        payload.transport = kTransportMpi;
        payload.root_world_rank = mpi->world_rank();
        payload.sequence = g_rootInfoCounter.fetch_add(1) % kWorldSequenceBase;
    }
    std::memset(root_info->internal, 0, sizeof root_info->internal);
    std::memcpy(root_info->internal, &payload, sizeof payload);
    return HCCL_SUCCESS;
}

/// vnpu's extension for `mpirun -np N program`: the root info of the communicator of all MPI ranks (rank =
/// rank in MPI_COMM_WORLD), computed alike on every rank with no exchange; the n-th call of every rank
/// names the same communicator. HCCL_E_NOT_SUPPORT when the MPI transport is not chosen.
VNPU_EXPORT HcclResult vnpuHcclGetWorldRootInfo(HcclRootInfo *root_info) {
    if (root_info == nullptr) {
        return HCCL_E_PTR;
    }
    if (!mpi_selected()) {
        return HCCL_E_NOT_SUPPORT;
    }
    if (mpi_transport() == nullptr) {
        return HCCL_E_UNAVAIL;
    }
    RootInfoPayload payload{};
    std::memcpy(payload.magic, kRootInfoMagic, sizeof payload.magic);
    const uint32_t n = g_worldInfoCounter.fetch_add(1);
    const char *job = std::getenv("OMPI_MCA_ess_base_jobid");  // the same on every rank of one mpirun
    std::snprintf(payload.comm_name, sizeof payload.comm_name, "127.0.0.1%%lo_%u_world%u_%016llu", 60000U + n % 5000U,
                  n, job != nullptr ? std::strtoull(job, nullptr, 10) % 10000000000000000ULL : 0ULL);
    payload.transport = kTransportMpi;
    payload.root_world_rank = 0;
    payload.sequence = kWorldSequenceBase + n % kWorldSequenceBase;
    std::memset(root_info->internal, 0, sizeof root_info->internal);
    std::memcpy(root_info->internal, &payload, sizeof payload);
    return HCCL_SUCCESS;
}

VNPU_EXPORT HcclResult HcclCommInitRootInfo(uint32_t n_ranks, const HcclRootInfo *root_info, uint32_t rank,
                                            HcclComm *comm) {
    if (root_info == nullptr || comm == nullptr) {
        return HCCL_E_PTR;
    }
    RootInfoPayload payload{};
    std::memcpy(&payload, root_info->internal, sizeof payload);
    if (n_ranks == 0 || n_ranks > kMaxRanks || rank >= n_ranks ||
        std::memcmp(payload.magic, kRootInfoMagic, sizeof payload.magic) != 0) {
        return HCCL_E_PARA;
    }
    payload.shm_name[sizeof payload.shm_name - 1] = '\0';
    payload.comm_name[sizeof payload.comm_name - 1] = '\0';
    if (payload.transport == kTransportMpi) {
        return init_on_mpi(payload, n_ranks, rank,
                           current_device_or(static_cast<int32_t>(rank % vnpu::Runtime::get().device_count())), comm);
    }
    std::shared_ptr<Arena> arena;
    bool creator = false;
    HcclResult rc = open_shared_arena(payload.shm_name, n_ranks, arena, creator);
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    rc = arena->join(rank, connect_timeout_ns());
    // Every rank has mapped the arena once all joined (or it failed): the name is no longer needed.
    unlink_shared_arena(payload.shm_name);
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    auto created = std::make_shared<Communicator>();
    created->arena = std::move(arena);
    created->rank = rank;
    created->rank_size = n_ranks;
    created->device_id = current_device_or(static_cast<int32_t>(rank % vnpu::Runtime::get().device_count()));
    created->name = payload.comm_name;
    *comm = communicators().add(std::move(created));
    return HCCL_SUCCESS;
}

VNPU_EXPORT HcclResult HcclCommInitRootInfoConfig(uint32_t n_ranks, const HcclRootInfo *root_info, uint32_t rank,
                                                  const HcclCommConfig *config, HcclComm *comm) {
    (void)config;  // buffer size and determinism do not change the virtual transport
    return HcclCommInitRootInfo(n_ranks, root_info, rank, comm);
}

// A rank table names its communicator by its content: every rank reads the same file. On MPI, the process
// of rank_id 0 must be MPI world rank 0 (the members meet there); on shared memory, all ranks are on this
// host and the table's hash names the arena.
VNPU_EXPORT HcclResult HcclCommInitClusterInfo(const char *cluster_info, uint32_t rank, HcclComm *comm) {
    if (cluster_info == nullptr || comm == nullptr) {
        return HCCL_E_PTR;
    }
    RankTable table;
    std::string error;
    if (!load_rank_table(cluster_info, table, error)) {
        std::fprintf(stderr, "HcclCommInitClusterInfo: rank table %s: %s\n", cluster_info, error.c_str());
        return HCCL_E_PARA;
    }
    const uint32_t n_ranks = static_cast<uint32_t>(table.ranks.size());
    const int32_t device_id = rank < n_ranks ? table.ranks[rank].device_id : -1;
    if (rank >= n_ranks || n_ranks > kMaxRanks || vnpu::Runtime::get().device(device_id) == nullptr) {
        std::fprintf(stderr, "HcclCommInitClusterInfo: rank table %s: rank %u of %u ranks, device %d: out of range\n",
                     cluster_info, rank, n_ranks, device_id);
        return HCCL_E_PARA;
    }
    const unsigned long long hash = table.content_hash;
    RootInfoPayload payload{};
    std::memcpy(payload.magic, kRootInfoMagic, sizeof payload.magic);
    std::snprintf(payload.comm_name, sizeof payload.comm_name, "127.0.0.1%%lo_%u_rt_%016llx",
                  60000U + static_cast<unsigned>(hash % 5000U), hash);
    std::shared_ptr<Communicator> created;
    if (mpi_selected()) {
        payload.transport = kTransportMpi;
        payload.root_world_rank = 0;
        payload.sequence = kRankTableSequenceBase + g_rankTableCounter.fetch_add(1) % 0x1000;
        return init_on_mpi(payload, n_ranks, rank, device_id, comm);
    }
    std::snprintf(payload.shm_name, sizeof payload.shm_name, "/vnpu_hccl_rt_%016llx", hash);
    std::shared_ptr<Arena> arena;
    bool creator = false;
    HcclResult rc = open_shared_arena(payload.shm_name, n_ranks, arena, creator);
    if (rc == HCCL_SUCCESS) {
        rc = arena->join(rank, connect_timeout_ns());
        unlink_shared_arena(payload.shm_name);
    }
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    created = std::make_shared<Communicator>();
    created->arena = std::move(arena);
    created->rank = rank;
    created->rank_size = n_ranks;
    created->device_id = device_id;
    created->name = payload.comm_name;
    *comm = communicators().add(std::move(created));
    return HCCL_SUCCESS;
}

VNPU_EXPORT HcclResult HcclCommDestroy(HcclComm comm) {
    if (comm == nullptr) {
        return HCCL_E_PTR;
    }
    // Queued collectives hold their own reference, so they still complete.
    return communicators().remove(comm) ? HCCL_SUCCESS : HCCL_E_PARA;
}

VNPU_EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rank_size) {
    std::shared_ptr<Communicator> found;
    HcclResult rc = find_communicator(comm, found);
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    if (rank_size == nullptr) {
        return HCCL_E_PTR;
    }
    *rank_size = found->rank_size;
    return HCCL_SUCCESS;
}

VNPU_EXPORT HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank) {
    std::shared_ptr<Communicator> found;
    HcclResult rc = find_communicator(comm, found);
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    if (rank == nullptr) {
        return HCCL_E_PTR;
    }
    *rank = found->rank;
    return HCCL_SUCCESS;
}

VNPU_EXPORT HcclResult HcclGetCommName(HcclComm comm, char *comm_name) {
    std::shared_ptr<Communicator> found;
    HcclResult rc = find_communicator(comm, found);
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    if (comm_name == nullptr) {
        return HCCL_E_PTR;
    }
    std::snprintf(comm_name, COMM_NAME_MAX_LENGTH, "%s", found->name.c_str());
    return HCCL_SUCCESS;
}

VNPU_EXPORT HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *async_error) {
    std::shared_ptr<Communicator> found;
    HcclResult rc = find_communicator(comm, found);
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    if (async_error == nullptr) {
        return HCCL_E_PTR;
    }
    *async_error = static_cast<HcclResult>(found->async_error.load());
    return HCCL_SUCCESS;
}

VNPU_EXPORT HcclResult vnpuHcclGetCommErrorMessage(HcclComm comm, char *message, uint64_t bytes) {
    std::shared_ptr<Communicator> found;
    HcclResult rc = find_communicator(comm, found);
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    if (message == nullptr || bytes == 0) {
        return HCCL_E_PTR;
    }
    const std::string text = found->error_message();
    const size_t n = std::min<size_t>(text.size(), bytes - 1);
    std::memcpy(message, text.data(), n);
    message[n] = '\0';
    return HCCL_SUCCESS;
}

VNPU_EXPORT const char *HcclGetErrorString(HcclResult code) {
    switch (code) {
    case HCCL_SUCCESS: return "success";
    case HCCL_E_PARA: return "parameter error";
    case HCCL_E_PTR: return "empty pointer";
    case HCCL_E_MEMORY: return "memory error";
    case HCCL_E_INTERNAL: return "internal error";
    case HCCL_E_NOT_SUPPORT: return "not support feature";
    case HCCL_E_NOT_FOUND: return "not found specific resource";
    case HCCL_E_UNAVAIL: return "resource unavailable";
    case HCCL_E_SYSCALL: return "call system interface error";
    case HCCL_E_TIMEOUT: return "timeout";
    case HCCL_E_RUNTIME: return "call runtime api fail";
    default: return "unknown error";
    }
}

VNPU_EXPORT HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue config_value) {
    if (config != HCCL_DETERMINISTIC || config_value.value < 0 || config_value.value > 1) {
        return HCCL_E_PARA;
    }
    g_deterministic.store(config_value.value);  // reductions are always deterministic here
    return HCCL_SUCCESS;
}

VNPU_EXPORT HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *config_value) {
    if (config_value == nullptr) {
        return HCCL_E_PTR;
    }
    if (config != HCCL_DETERMINISTIC) {
        return HCCL_E_PARA;
    }
    config_value->value = g_deterministic.load();
    return HCCL_SUCCESS;
}

}  // extern "C"
