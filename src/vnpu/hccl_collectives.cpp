// Collectives and point-to-point operations. The host call checks its arguments, reports the enqueue and
// puts one task on the stream; the task runs this rank's part against the arena:
//   1. every rank publishes its OpDescriptor; all must agree (else every rank fails with HCCL_E_PARA, and a
//      message naming the ranks and their values);
//   2. in rounds of one slot, every rank copies the next piece of its input into its slot, waits for the
//      others, and consumes the pieces it needs from every peer's slot, in rank order (deterministic).
// On the MPI transport (hccl_mpi.h) the ranks first all-gather their OpDescriptors (so a disagreement fails
// there, alike on every rank, instead of reaching MPI), then the task is the matching MPI call.
// A failure sets the communicator's async error and message, and the stream's error: the next
// synchronisation of the stream (or of its device) reports it.
#include <algorithm>
#include <cstring>
#include <functional>

#include "acl/acl.h"
#include "export.h"
#include "fault.h"
#include "hccl/hccl.h"
#include "hccl_agreement.h"
#include "hccl_comm.h"
#include "hccl_reduce.h"
#include "memory_registry.h"
#include "report_spans.h"
#include "runtime.h"

namespace vnpu::hccl {
namespace {

enum class OpKind : uint32_t { AllReduce = 1, Broadcast, AllGather, ReduceScatter, Reduce, Scatter, AlltoAll, Barrier };

struct OpNames {
    const char *api;  // host span, e.g. "HcclAllReduce"
    const char *op_name;  // the node name msPTI reports, e.g. "hcom_allReduce_"
    const char *alg_type;
};

using Consumer = std::function<void(uint32_t peer, uint64_t lo, uint64_t hi, const unsigned char *data)>;

// Why the operation running on this stream worker failed; enqueue's task reports it with the result.
thread_local std::string t_why;

HcclResult fail_with(HcclResult rc, std::string why) {
    t_why = std::move(why);
    return rc;
}

/// "HcclAllReduce on rank 0 of 2 (communicator <name>)".
std::string where(const Communicator &comm, uint32_t op) {
    return std::string(op_api_name(op)) + " on rank " + std::to_string(comm.rank) + " of " +
           std::to_string(comm.rank_size) + " (communicator " + comm.name + ")";
}

std::string timeout_text() { return "HCCL_EXEC_TIMEOUT (" + std::to_string(exec_timeout_ns() / 1000000000ULL) + " s)"; }

/// The message of a shared-memory collective that timed out: the ranks that never published this operation.
HcclResult timed_out(Communicator &comm, const OpDescriptor &mine, HcclResult rc) {
    Arena &arena = *comm.arena;
    uint32_t absent[kMaxRanks];
    uint32_t n_absent = 0;
    for (uint32_t p = 0; p < comm.rank_size; ++p) {
        if (__atomic_load_n(&arena.descriptor(p).seq, __ATOMIC_ACQUIRE) < mine.seq) {
            absent[n_absent++] = p;
        }
    }
    std::string why = std::string(result_name(rc)) + ": " + where(comm, mine.op) + ": ";
    if (n_absent != 0) {
        why += rank_list(absent, n_absent) + " did not reach it within " + timeout_text();
    } else {
        why += "a rank stopped in the middle of it, or timed out in an earlier collective (" + timeout_text() + ")";
    }
    return fail_with(rc, why);
}

HcclResult run_rounds(Communicator &comm, OpDescriptor mine, const void *input, const Consumer &consume) {
    Arena &arena = *comm.arena;
    const uint32_t n = comm.rank_size;
    mine.seq = comm.ops.fetch_add(1) + 1;
    OpDescriptor &published = arena.descriptor(comm.rank);
    published.op = mine.op;
    published.data_type = mine.data_type;
    published.reduce_op = mine.reduce_op;
    published.root = mine.root;
    published.count = mine.count;
    published.input_bytes = mine.input_bytes;
    // A peer that times out reads seq at any time (timed_out): it is stored on its own, last.
    __atomic_store_n(&published.seq, mine.seq, __ATOMIC_RELEASE);
    HcclResult rc = arena.barrier();
    if (rc != HCCL_SUCCESS) {
        return timed_out(comm, mine, rc);
    }
    OpDescriptor all[kMaxRanks];
    uint64_t max_bytes = 0;
    for (uint32_t p = 0; p < n; ++p) {
        const OpDescriptor &d = arena.descriptor(p);
        all[p] = OpDescriptor{
            d.op, d.data_type, d.reduce_op, d.root, d.count, d.input_bytes, __atomic_load_n(&d.seq, __ATOMIC_ACQUIRE)};
        max_bytes = std::max(max_bytes, all[p].input_bytes);
    }
    rc = arena.barrier();  // descriptors read: they may be overwritten by the next operation
    if (rc != HCCL_SUCCESS) {
        return timed_out(comm, mine, rc);
    }
    const std::string differs = disagreement(all, n);
    if (!differs.empty()) {
        return fail_with(HCCL_E_PARA, "HCCL_E_PARA: " + where(comm, mine.op) + ": the ranks disagree: " + differs);
    }
    const uint64_t chunk = arena.slot_bytes();
    for (uint64_t lo = 0; lo < max_bytes; lo += chunk) {
        const uint64_t hi = std::min(lo + chunk, max_bytes);
        if (lo < mine.input_bytes) {
            std::memcpy(arena.slot(comm.rank), static_cast<const unsigned char *>(input) + lo,
                        std::min(hi, mine.input_bytes) - lo);
        }
        if ((rc = arena.barrier()) != HCCL_SUCCESS) {
            return timed_out(comm, mine, rc);
        }
        for (uint32_t p = 0; p < n; ++p) {
            const uint64_t peer_hi = std::min(hi, all[p].input_bytes);
            if (lo < peer_hi) {
                consume(p, lo, peer_hi, arena.slot(p));
            }
        }
        if ((rc = arena.barrier()) != HCCL_SUCCESS) {
            return timed_out(comm, mine, rc);
        }
    }
    return HCCL_SUCCESS;
}

/// MPI transport: the ranks exchange their descriptors first, so that they fail alike on a disagreement
/// (MPI itself would sum mismatched types, or abort the job on mismatched counts).
HcclResult mpi_agree(Communicator &comm, const OpDescriptor &mine) {
    OpDescriptor all[kMaxRanks];
    const HcclResult rc = comm.mpi->all_gather(&mine, all, sizeof(OpDescriptor), HCCL_DATA_TYPE_UINT8);
    if (rc == HCCL_E_TIMEOUT) {
        return fail_with(rc, std::string(result_name(rc)) + ": " + where(comm, mine.op) +
                                 ": a peer did not reach it within " + timeout_text() +
                                 " (or the communicator broke in an earlier timeout)");
    }
    if (rc != HCCL_SUCCESS) {
        return fail_with(rc, std::string(result_name(rc)) + ": " + where(comm, mine.op) +
                                 ": exchanging the operation's description with the other ranks failed");
    }
    const std::string differs = disagreement(all, comm.rank_size);
    if (!differs.empty()) {
        return fail_with(HCCL_E_PARA, "HCCL_E_PARA: " + where(comm, mine.op) + ": the ranks disagree: " + differs);
    }
    return HCCL_SUCCESS;
}

/// MPI transport: `run` (the MPI call) once the ranks agree.
template <class Run>
HcclResult agreed_then(Communicator &comm, const OpDescriptor &mine, Run run) {
    const HcclResult rc = mpi_agree(comm, mine);
    return rc != HCCL_SUCCESS ? rc : run();
}

/// Copies (first peer) or reduces (later peers) `bytes` of `data` into `dst`.
void accumulate(unsigned char *dst, const unsigned char *data, uint64_t bytes, uint32_t peer, HcclDataType type,
                HcclReduceOp op) {
    if (peer == 0) {
        std::memcpy(dst, data, bytes);
    } else {
        reduce_into(dst, data, bytes / data_type_size(type), type, op);
    }
}

/// The part of peer input range [lo, hi) that falls in block `block` of `block_bytes`; false if none.
bool block_part(uint64_t lo, uint64_t hi, uint32_t block, uint64_t block_bytes, uint64_t &from, uint64_t &to) {
    from = std::max(lo, block * block_bytes);
    to = std::min(hi, (block + 1) * block_bytes);
    return from < to;
}

HcclResult check_buffer(const void *p, uint64_t bytes) {
    if (bytes == 0) {
        return HCCL_SUCCESS;
    }
    if (p == nullptr) {
        return HCCL_E_PTR;
    }
    return MemoryRegistry::get().contains(p, bytes, MemoryKind::Device) ? HCCL_SUCCESS : HCCL_E_PARA;
}

HcclResult check_type(HcclDataType type, bool reduces, HcclReduceOp op) {
    if (data_type_size(type) == 0) {
        return HCCL_E_PARA;
    }
    if (reduces) {
        if (op < HCCL_REDUCE_SUM || op > HCCL_REDUCE_MIN) {
            return HCCL_E_PARA;
        }
        if (!reducible(type)) {
            return HCCL_E_NOT_SUPPORT;
        }
    }
    return HCCL_SUCCESS;
}

using Body = std::function<HcclResult(Communicator &)>;

/// Host part shared by every operation: resolves the stream, reports the enqueue, queues the body.
HcclResult enqueue(const std::shared_ptr<Communicator> &comm, aclrtStream stream, const OpNames &names,
                   HcclDataType type, uint64_t count, Body body) {
    std::shared_ptr<Stream> target;
    if (resolve_stream(stream, target) != ACL_SUCCESS || target->device_id() != comm->device_id) {
        return HCCL_E_PARA;  // unknown stream, or a stream of another device than this rank's
    }
    const cann::CollectiveInfo info{static_cast<uint32_t>(target->device_id()),
                                    target->id(),
                                    names.op_name,
                                    comm->name.c_str(),
                                    names.alg_type,
                                    static_cast<uint32_t>(type),
                                    count,
                                    comm->rank_size};
    const cann::Task task = cann::collective_enqueued(info);
    // The task runs on the stream, which its worker keeps alive meanwhile.
    Stream *on = target.get();
    const char *api = names.api;
    uint64_t seq = target->enqueue([comm, body = std::move(body), task, on, api] {
        const uint64_t start = report::now_ns();
        t_why.clear();
        const HcclResult rc = body(*comm);
        fault::after_collective();
        cann::task_executed(task, start, report::now_ns());
        if (rc != HCCL_SUCCESS) {
            std::string why = t_why.empty()
                                  ? std::string(result_name(rc)) + ": " + api + " on rank " +
                                        std::to_string(comm->rank) + " of " + std::to_string(comm->rank_size) +
                                        " (communicator " + comm->name + ") failed"
                                  : std::move(t_why);
            comm->fail(rc, why);
            on->record_error(TaskError{rc, std::move(why)});
        }
    });
    return seq != 0 ? HCCL_SUCCESS : HCCL_E_PARA;
}

OpDescriptor describe(OpKind kind, HcclDataType type, HcclReduceOp op, uint32_t root, uint64_t count,
                      uint64_t input_bytes) {
    return OpDescriptor{static_cast<uint32_t>(kind),
                        static_cast<uint32_t>(type),
                        static_cast<uint32_t>(op),
                        root,
                        count,
                        input_bytes};
}

// The checks HcclSend and HcclRecv share: communicator, type, a peer that is another rank, buffer.
HcclResult check_point_to_point(HcclComm comm, const void *buf, uint64_t count, HcclDataType data_type, uint32_t peer,
                                std::shared_ptr<Communicator> &c, uint64_t &bytes) {
    HcclResult rc = find_communicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = check_type(data_type, false, HCCL_REDUCE_SUM);
    if (rc == HCCL_SUCCESS && (peer >= c->rank_size || peer == c->rank)) rc = HCCL_E_PARA;
    bytes = count * data_type_size(data_type);
    if (rc == HCCL_SUCCESS) rc = check_buffer(buf, bytes);
    return rc;
}

}  // namespace
}  // namespace vnpu::hccl

using namespace vnpu::hccl;
using vnpu::report::ApiSpan;

extern "C" {

VNPU_EXPORT HcclResult HcclAllReduce(void *send_buf, void *recv_buf, uint64_t count, HcclDataType data_type,
                                     HcclReduceOp op, HcclComm comm, aclrtStream stream) {
    ApiSpan span(vnpu::cann::ApiLevel::kHccl, "HcclAllReduce");
    std::shared_ptr<Communicator> c;
    HcclResult rc = find_communicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = check_type(data_type, true, op);
    const uint64_t bytes = count * data_type_size(data_type);
    if (rc == HCCL_SUCCESS) rc = check_buffer(send_buf, bytes);
    if (rc == HCCL_SUCCESS) rc = check_buffer(recv_buf, bytes);
    if (rc != HCCL_SUCCESS) return rc;
    const OpDescriptor mine = describe(OpKind::AllReduce, data_type, op, 0, count, bytes);
    auto *out = static_cast<unsigned char *>(recv_buf);
    return enqueue(c, stream, {"HcclAllReduce", "hcom_allReduce_", "RING"}, data_type, count, [=](Communicator &self) {
        if (self.mpi)
            return agreed_then(self, mine,
                               [&] { return self.mpi->all_reduce(send_buf, recv_buf, count, data_type, op); });
        return run_rounds(self, mine, send_buf, [&](uint32_t p, uint64_t lo, uint64_t hi, const unsigned char *data) {
            accumulate(out + lo, data, hi - lo, p, data_type, op);
        });
    });
}

VNPU_EXPORT HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType data_type, uint32_t root, HcclComm comm,
                                     aclrtStream stream) {
    ApiSpan span(vnpu::cann::ApiLevel::kHccl, "HcclBroadcast");
    std::shared_ptr<Communicator> c;
    HcclResult rc = find_communicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = check_type(data_type, false, HCCL_REDUCE_SUM);
    if (rc == HCCL_SUCCESS && root >= c->rank_size) rc = HCCL_E_PARA;
    const uint64_t bytes = count * data_type_size(data_type);
    if (rc == HCCL_SUCCESS) rc = check_buffer(buf, bytes);
    if (rc != HCCL_SUCCESS) return rc;
    const bool is_root = c->rank == root;
    const OpDescriptor mine = describe(OpKind::Broadcast, data_type, HCCL_REDUCE_SUM, root, count, is_root ? bytes : 0);
    auto *out = static_cast<unsigned char *>(buf);
    return enqueue(c, stream, {"HcclBroadcast", "hcom_broadcast_", "RING"}, data_type, count, [=](Communicator &self) {
        if (self.mpi) return agreed_then(self, mine, [&] { return self.mpi->broadcast(buf, count, data_type, root); });
        return run_rounds(self, mine, buf, [&](uint32_t p, uint64_t lo, uint64_t hi, const unsigned char *data) {
            if (!is_root && p == root) {
                std::memcpy(out + lo, data, hi - lo);
            }
        });
    });
}

VNPU_EXPORT HcclResult HcclAllGather(void *send_buf, void *recv_buf, uint64_t send_count, HcclDataType data_type,
                                     HcclComm comm, aclrtStream stream) {
    ApiSpan span(vnpu::cann::ApiLevel::kHccl, "HcclAllGather");
    std::shared_ptr<Communicator> c;
    HcclResult rc = find_communicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = check_type(data_type, false, HCCL_REDUCE_SUM);
    const uint64_t block = send_count * data_type_size(data_type);
    if (rc == HCCL_SUCCESS) rc = check_buffer(send_buf, block);
    if (rc == HCCL_SUCCESS) rc = check_buffer(recv_buf, block * c->rank_size);
    if (rc != HCCL_SUCCESS) return rc;
    const OpDescriptor mine = describe(OpKind::AllGather, data_type, HCCL_REDUCE_SUM, 0, send_count, block);
    auto *out = static_cast<unsigned char *>(recv_buf);
    return enqueue(c, stream, {"HcclAllGather", "hcom_allGather_", "RING"}, data_type, send_count,
                   [=](Communicator &self) {
                       if (self.mpi)
                           return agreed_then(self, mine, [&] {
                               return self.mpi->all_gather(send_buf, recv_buf, send_count, data_type);
                           });
                       return run_rounds(self, mine, send_buf,
                                         [&](uint32_t p, uint64_t lo, uint64_t hi, const unsigned char *data) {
                                             std::memcpy(out + p * block + lo, data, hi - lo);
                                         });
                   });
}

VNPU_EXPORT HcclResult HcclReduceScatter(void *send_buf, void *recv_buf, uint64_t recv_count, HcclDataType data_type,
                                         HcclReduceOp op, HcclComm comm, aclrtStream stream) {
    ApiSpan span(vnpu::cann::ApiLevel::kHccl, "HcclReduceScatter");
    std::shared_ptr<Communicator> c;
    HcclResult rc = find_communicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = check_type(data_type, true, op);
    const uint64_t block = recv_count * data_type_size(data_type);
    if (rc == HCCL_SUCCESS) rc = check_buffer(send_buf, block * c->rank_size);
    if (rc == HCCL_SUCCESS) rc = check_buffer(recv_buf, block);
    if (rc != HCCL_SUCCESS) return rc;
    const OpDescriptor mine = describe(OpKind::ReduceScatter, data_type, op, 0, recv_count, block * c->rank_size);
    auto *out = static_cast<unsigned char *>(recv_buf);
    const uint32_t rank = c->rank;
    return enqueue(c, stream, {"HcclReduceScatter", "hcom_reduceScatter_", "RING"}, data_type, recv_count,
                   [=](Communicator &self) {
                       if (self.mpi)
                           return agreed_then(self, mine, [&] {
                               return self.mpi->reduce_scatter(send_buf, recv_buf, recv_count, data_type, op);
                           });
                       return run_rounds(self, mine, send_buf,
                                         [&](uint32_t p, uint64_t lo, uint64_t hi, const unsigned char *data) {
                                             uint64_t from = 0;
                                             uint64_t to = 0;
                                             if (block_part(lo, hi, rank, block, from, to)) {
                                                 accumulate(out + (from - rank * block), data + (from - lo), to - from,
                                                            p, data_type, op);
                                             }
                                         });
                   });
}

VNPU_EXPORT HcclResult HcclReduce(void *send_buf, void *recv_buf, uint64_t count, HcclDataType data_type,
                                  HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream) {
    ApiSpan span(vnpu::cann::ApiLevel::kHccl, "HcclReduce");
    std::shared_ptr<Communicator> c;
    HcclResult rc = find_communicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = check_type(data_type, true, op);
    if (rc == HCCL_SUCCESS && root >= c->rank_size) rc = HCCL_E_PARA;
    const uint64_t bytes = count * data_type_size(data_type);
    if (rc == HCCL_SUCCESS) rc = check_buffer(send_buf, bytes);
    if (rc == HCCL_SUCCESS && c->rank == root) rc = check_buffer(recv_buf, bytes);
    if (rc != HCCL_SUCCESS) return rc;
    const bool is_root = c->rank == root;
    const OpDescriptor mine = describe(OpKind::Reduce, data_type, op, root, count, bytes);
    auto *out = static_cast<unsigned char *>(recv_buf);
    return enqueue(c, stream, {"HcclReduce", "hcom_reduce_", "RING"}, data_type, count, [=](Communicator &self) {
        if (self.mpi)
            return agreed_then(self, mine,
                               [&] { return self.mpi->reduce(send_buf, recv_buf, count, data_type, op, root); });
        return run_rounds(self, mine, send_buf, [&](uint32_t p, uint64_t lo, uint64_t hi, const unsigned char *data) {
            if (is_root) {
                accumulate(out + lo, data, hi - lo, p, data_type, op);
            }
        });
    });
}

VNPU_EXPORT HcclResult HcclScatter(void *send_buf, void *recv_buf, uint64_t recv_count, HcclDataType data_type,
                                   uint32_t root, HcclComm comm, aclrtStream stream) {
    ApiSpan span(vnpu::cann::ApiLevel::kHccl, "HcclScatter");
    std::shared_ptr<Communicator> c;
    HcclResult rc = find_communicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = check_type(data_type, false, HCCL_REDUCE_SUM);
    if (rc == HCCL_SUCCESS && root >= c->rank_size) rc = HCCL_E_PARA;
    const uint64_t block = recv_count * data_type_size(data_type);
    if (rc == HCCL_SUCCESS && c->rank == root) rc = check_buffer(send_buf, block * c->rank_size);
    if (rc == HCCL_SUCCESS) rc = check_buffer(recv_buf, block);
    if (rc != HCCL_SUCCESS) return rc;
    const uint32_t rank = c->rank;
    const OpDescriptor mine = describe(OpKind::Scatter, data_type, HCCL_REDUCE_SUM, root, recv_count,
                                       rank == root ? block * c->rank_size : 0);
    auto *out = static_cast<unsigned char *>(recv_buf);
    return enqueue(c, stream, {"HcclScatter", "hcom_scatter_", "RING"}, data_type, recv_count, [=](Communicator &self) {
        if (self.mpi)
            return agreed_then(self, mine,
                               [&] { return self.mpi->scatter(send_buf, recv_buf, recv_count, data_type, root); });
        return run_rounds(self, mine, send_buf, [&](uint32_t p, uint64_t lo, uint64_t hi, const unsigned char *data) {
            uint64_t from = 0;
            uint64_t to = 0;
            if (p == root && block_part(lo, hi, rank, block, from, to)) {
                std::memcpy(out + (from - rank * block), data + (from - lo), to - from);
            }
        });
    });
}

VNPU_EXPORT HcclResult HcclAlltoAll(const void *send_buf, uint64_t send_count, HcclDataType send_type,
                                    const void *recv_buf, uint64_t recv_count, HcclDataType recv_type, HcclComm comm,
                                    aclrtStream stream) {
    ApiSpan span(vnpu::cann::ApiLevel::kHccl, "HcclAlltoAll");
    std::shared_ptr<Communicator> c;
    HcclResult rc = find_communicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = check_type(send_type, false, HCCL_REDUCE_SUM);
    if (rc == HCCL_SUCCESS &&
        (send_type != recv_type || send_count != recv_count || (send_buf == recv_buf && send_count > 0))) {
        rc = HCCL_E_PARA;
    }
    const uint64_t block = send_count * data_type_size(send_type);
    if (rc == HCCL_SUCCESS) rc = check_buffer(send_buf, block * c->rank_size);
    if (rc == HCCL_SUCCESS) rc = check_buffer(recv_buf, block * c->rank_size);
    if (rc != HCCL_SUCCESS) return rc;
    const uint32_t rank = c->rank;
    const OpDescriptor mine =
        describe(OpKind::AlltoAll, send_type, HCCL_REDUCE_SUM, 0, send_count, block * c->rank_size);
    auto *out = static_cast<unsigned char *>(const_cast<void *>(recv_buf));
    return enqueue(c, stream, {"HcclAlltoAll", "hcom_alltoall_", "MESH"}, send_type, send_count,
                   [=](Communicator &self) {
                       if (self.mpi)
                           return agreed_then(self, mine, [&] {
                               return self.mpi->all_to_all(send_buf, out, send_count, send_type);
                           });
                       return run_rounds(self, mine, send_buf,
                                         [&](uint32_t p, uint64_t lo, uint64_t hi, const unsigned char *data) {
                                             uint64_t from = 0;
                                             uint64_t to = 0;
                                             if (block_part(lo, hi, rank, block, from, to)) {
                                                 std::memcpy(out + p * block + (from - rank * block),
                                                             data + (from - lo), to - from);
                                             }
                                         });
                   });
}

VNPU_EXPORT HcclResult HcclAlltoAllV(const void *send_buf, const void *send_counts, const void *sdispls,
                                     HcclDataType send_type, const void *recv_buf, const void *recv_counts,
                                     const void *rdispls, HcclDataType recv_type, HcclComm comm, aclrtStream stream) {
    (void)send_buf, (void)send_counts, (void)sdispls, (void)send_type, (void)recv_buf, (void)recv_counts, (void)rdispls,
        (void)recv_type, (void)comm, (void)stream;
    return HCCL_E_NOT_SUPPORT;
}

VNPU_EXPORT HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
    ApiSpan span(vnpu::cann::ApiLevel::kHccl, "HcclBarrier");
    std::shared_ptr<Communicator> c;
    HcclResult rc = find_communicator(comm, c);
    if (rc != HCCL_SUCCESS) return rc;
    const OpDescriptor mine = describe(OpKind::Barrier, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 0, 0, 0);
    return enqueue(c, stream, {"HcclBarrier", "hcom_barrier_", "RING"}, HCCL_DATA_TYPE_FP32, 0,
                   [=](Communicator &self) {
                       if (self.mpi) return agreed_then(self, mine, [&] { return self.mpi->barrier(); });
                       return run_rounds(self, mine, nullptr,
                                         [](uint32_t, uint64_t, uint64_t, const unsigned char *) {});
                   });
}

VNPU_EXPORT HcclResult HcclSend(void *send_buf, uint64_t count, HcclDataType data_type, uint32_t dest_rank,
                                HcclComm comm, aclrtStream stream) {
    ApiSpan span(vnpu::cann::ApiLevel::kHccl, "HcclSend");
    std::shared_ptr<Communicator> c;
    uint64_t bytes = 0;
    HcclResult rc = check_point_to_point(comm, send_buf, count, data_type, dest_rank, c, bytes);
    if (rc != HCCL_SUCCESS) return rc;
    return enqueue(c, stream, {"HcclSend", "hcom_send_", "P2P"}, data_type, count, [=](Communicator &self) {
        return self.mpi ? self.mpi->send(send_buf, bytes, dest_rank)
                        : self.arena->send(self.rank, dest_rank, send_buf, bytes);
    });
}

VNPU_EXPORT HcclResult HcclRecv(void *recv_buf, uint64_t count, HcclDataType data_type, uint32_t src_rank,
                                HcclComm comm, aclrtStream stream) {
    ApiSpan span(vnpu::cann::ApiLevel::kHccl, "HcclRecv");
    std::shared_ptr<Communicator> c;
    uint64_t bytes = 0;
    HcclResult rc = check_point_to_point(comm, recv_buf, count, data_type, src_rank, c, bytes);
    if (rc != HCCL_SUCCESS) return rc;
    return enqueue(c, stream, {"HcclRecv", "hcom_receive_", "P2P"}, data_type, count, [=](Communicator &self) {
        return self.mpi ? self.mpi->recv(recv_buf, bytes, src_rank)
                        : self.arena->recv(src_rank, self.rank, recv_buf, bytes);
    });
}

VNPU_EXPORT HcclResult HcclBatchSendRecv(HcclSendRecvItem *send_recv_info, uint32_t item_num, HcclComm comm,
                                         aclrtStream stream) {
    (void)send_recv_info, (void)item_num, (void)comm, (void)stream;
    return HCCL_E_NOT_SUPPORT;
}

}  // extern "C"
