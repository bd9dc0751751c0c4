// Collectives and point-to-point operations. The host call checks its arguments, reports the enqueue and
// puts one task on the stream; the task runs this rank's part against the arena:
//   1. every rank publishes its OpDescriptor; all must agree (else every rank fails with HCCL_E_PARA);
//   2. in rounds of one slot, every rank copies the next piece of its input into its slot, waits for the
//      others, and consumes the pieces it needs from every peer's slot, in rank order (deterministic).
// On the MPI transport (hccl_mpi.h) the task is the matching MPI call instead; the host part is the same.
#include <algorithm>
#include <cstring>
#include <functional>

#include "acl/acl.h"
#include "export.h"
#include "hccl/hccl.h"
#include "hccl_comm.h"
#include "hccl_reduce.h"
#include "memory_registry.h"
#include "profiler_hooks.h"
#include "runtime.h"

namespace vnpu::hccl {
namespace {

enum class OpKind : uint32_t { AllReduce = 1, Broadcast, AllGather, ReduceScatter, Reduce, Scatter, AlltoAll, Barrier };

struct OpNames {
    const char *api;     // host span, e.g. "HcclAllReduce"
    const char *opName;  // the node name msPTI reports, e.g. "hcom_allReduce_"
    const char *algType;
};

using Consumer = std::function<void(uint32_t peer, uint64_t lo, uint64_t hi, const unsigned char *data)>;

HcclResult runRounds(Communicator &comm, const OpDescriptor &mine, const void *input, const Consumer &consume) {
    Arena &arena = *comm.arena;
    const uint32_t n = comm.rankSize;
    arena.descriptor(comm.rank) = mine;
    HcclResult rc = arena.barrier();
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    OpDescriptor all[kMaxRanks];
    bool agree = true;
    uint64_t maxBytes = 0;
    for (uint32_t p = 0; p < n; ++p) {
        all[p] = arena.descriptor(p);
        const OpDescriptor &d = all[p];
        agree = agree && d.op == all[0].op && d.dataType == all[0].dataType && d.reduceOp == all[0].reduceOp &&
                d.root == all[0].root && d.count == all[0].count;
        maxBytes = std::max(maxBytes, d.inputBytes);
    }
    rc = arena.barrier();  // descriptors read: they may be overwritten by the next operation
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    if (!agree) {
        return HCCL_E_PARA;
    }
    const uint64_t chunk = arena.slotBytes();
    for (uint64_t lo = 0; lo < maxBytes; lo += chunk) {
        const uint64_t hi = std::min(lo + chunk, maxBytes);
        if (lo < mine.inputBytes) {
            std::memcpy(arena.slot(comm.rank), static_cast<const unsigned char *>(input) + lo,
                        std::min(hi, mine.inputBytes) - lo);
        }
        if ((rc = arena.barrier()) != HCCL_SUCCESS) {
            return rc;
        }
        for (uint32_t p = 0; p < n; ++p) {
            const uint64_t peerHi = std::min(hi, all[p].inputBytes);
            if (lo < peerHi) {
                consume(p, lo, peerHi, arena.slot(p));
            }
        }
        if ((rc = arena.barrier()) != HCCL_SUCCESS) {
            return rc;
        }
    }
    return HCCL_SUCCESS;
}

/// Copies (first peer) or reduces (later peers) `bytes` of `data` into `dst`.
void accumulate(unsigned char *dst, const unsigned char *data, uint64_t bytes, uint32_t peer, HcclDataType type,
                HcclReduceOp op) {
    if (peer == 0) {
        std::memcpy(dst, data, bytes);
    } else {
        reduceInto(dst, data, bytes / dataTypeSize(type), type, op);
    }
}

/// The part of peer input range [lo, hi) that falls in block `block` of `blockBytes`; false if none.
bool blockPart(uint64_t lo, uint64_t hi, uint32_t block, uint64_t blockBytes, uint64_t &from, uint64_t &to) {
    from = std::max(lo, block * blockBytes);
    to = std::min(hi, (block + 1) * blockBytes);
    return from < to;
}

HcclResult checkBuffer(const void *p, uint64_t bytes) {
    if (bytes == 0) {
        return HCCL_SUCCESS;
    }
    if (p == nullptr) {
        return HCCL_E_PTR;
    }
    return MemoryRegistry::get().contains(p, bytes, MemoryKind::Device) ? HCCL_SUCCESS : HCCL_E_PARA;
}

HcclResult checkType(HcclDataType type, bool reduces, HcclReduceOp op) {
    if (dataTypeSize(type) == 0) {
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
    if (resolveStream(stream, target) != ACL_SUCCESS || target->deviceId() != comm->deviceId) {
        return HCCL_E_PARA;  // unknown stream, or a stream of another device than this rank's
    }
    const vnpuCollectiveInfo info{static_cast<uint32_t>(target->deviceId()), target->id(), names.opName,
                                  comm->name.c_str(), names.algType, static_cast<uint32_t>(type), count,
                                  comm->rankSize};
    const profiler::ExecutionTag tag = profiler::collectiveEnqueued(info);
    uint64_t seq = target->enqueue([comm, body = std::move(body), tag] {
        const uint64_t start = profiler::nowNs();
        const HcclResult rc = body(*comm);
        profiler::collectiveExecuted(tag, start, profiler::nowNs());
        if (rc != HCCL_SUCCESS) {
            comm->asyncError.store(rc);
        }
    });
    return seq != 0 ? HCCL_SUCCESS : HCCL_E_PARA;
}

OpDescriptor describe(OpKind kind, HcclDataType type, HcclReduceOp op, uint32_t root, uint64_t count,
                      uint64_t inputBytes) {
    return OpDescriptor{static_cast<uint32_t>(kind), static_cast<uint32_t>(type), static_cast<uint32_t>(op), root,
                        count, inputBytes};
}

// The checks HcclSend and HcclRecv share: communicator, type, a peer that is another rank, buffer.
HcclResult checkPointToPoint(HcclComm comm, const void *buf, uint64_t count, HcclDataType dataType, uint32_t peer,
                             std::shared_ptr<Communicator> &c, uint64_t &bytes) {
    HcclResult rc = findCommunicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = checkType(dataType, false, HCCL_REDUCE_SUM);
    if (rc == HCCL_SUCCESS && (peer >= c->rankSize || peer == c->rank)) rc = HCCL_E_PARA;
    bytes = count * dataTypeSize(dataType);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(buf, bytes);
    return rc;
}

} // namespace
} // namespace vnpu::hccl

using namespace vnpu::hccl;
using vnpu::profiler::ApiSpan;

extern "C" {

VNPU_EXPORT HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                     HcclReduceOp op, HcclComm comm, aclrtStream stream) {
    ApiSpan span(VNPU_API_LEVEL_HCCL, "HcclAllReduce");
    std::shared_ptr<Communicator> c;
    HcclResult rc = findCommunicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = checkType(dataType, true, op);
    const uint64_t bytes = count * dataTypeSize(dataType);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(sendBuf, bytes);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(recvBuf, bytes);
    if (rc != HCCL_SUCCESS) return rc;
    const OpDescriptor mine = describe(OpKind::AllReduce, dataType, op, 0, count, bytes);
    auto *out = static_cast<unsigned char *>(recvBuf);
    return enqueue(c, stream, {"HcclAllReduce", "hcom_allReduce_", "RING"}, dataType, count,
                   [=](Communicator &self) {
                       if (self.mpi) return self.mpi->allReduce(sendBuf, recvBuf, count, dataType, op);
                       return runRounds(self, mine, sendBuf, [&](uint32_t p, uint64_t lo, uint64_t hi,
                                                                 const unsigned char *data) {
                           accumulate(out + lo, data, hi - lo, p, dataType, op);
                       });
                   });
}

VNPU_EXPORT HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                     aclrtStream stream) {
    ApiSpan span(VNPU_API_LEVEL_HCCL, "HcclBroadcast");
    std::shared_ptr<Communicator> c;
    HcclResult rc = findCommunicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = checkType(dataType, false, HCCL_REDUCE_SUM);
    if (rc == HCCL_SUCCESS && root >= c->rankSize) rc = HCCL_E_PARA;
    const uint64_t bytes = count * dataTypeSize(dataType);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(buf, bytes);
    if (rc != HCCL_SUCCESS) return rc;
    const bool isRoot = c->rank == root;
    const OpDescriptor mine = describe(OpKind::Broadcast, dataType, HCCL_REDUCE_SUM, root, count, isRoot ? bytes : 0);
    auto *out = static_cast<unsigned char *>(buf);
    return enqueue(c, stream, {"HcclBroadcast", "hcom_broadcast_", "RING"}, dataType, count,
                   [=](Communicator &self) {
                       if (self.mpi) return self.mpi->broadcast(buf, count, dataType, root);
                       return runRounds(self, mine, buf, [&](uint32_t p, uint64_t lo, uint64_t hi,
                                                             const unsigned char *data) {
                           if (!isRoot && p == root) {
                               std::memcpy(out + lo, data, hi - lo);
                           }
                       });
                   });
}

VNPU_EXPORT HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                     HcclComm comm, aclrtStream stream) {
    ApiSpan span(VNPU_API_LEVEL_HCCL, "HcclAllGather");
    std::shared_ptr<Communicator> c;
    HcclResult rc = findCommunicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = checkType(dataType, false, HCCL_REDUCE_SUM);
    const uint64_t block = sendCount * dataTypeSize(dataType);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(sendBuf, block);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(recvBuf, block * c->rankSize);
    if (rc != HCCL_SUCCESS) return rc;
    const OpDescriptor mine = describe(OpKind::AllGather, dataType, HCCL_REDUCE_SUM, 0, sendCount, block);
    auto *out = static_cast<unsigned char *>(recvBuf);
    return enqueue(c, stream, {"HcclAllGather", "hcom_allGather_", "RING"}, dataType, sendCount,
                   [=](Communicator &self) {
                       if (self.mpi) return self.mpi->allGather(sendBuf, recvBuf, sendCount, dataType);
                       return runRounds(self, mine, sendBuf, [&](uint32_t p, uint64_t lo, uint64_t hi,
                                                                 const unsigned char *data) {
                           std::memcpy(out + p * block + lo, data, hi - lo);
                       });
                   });
}

VNPU_EXPORT HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                         HcclReduceOp op, HcclComm comm, aclrtStream stream) {
    ApiSpan span(VNPU_API_LEVEL_HCCL, "HcclReduceScatter");
    std::shared_ptr<Communicator> c;
    HcclResult rc = findCommunicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = checkType(dataType, true, op);
    const uint64_t block = recvCount * dataTypeSize(dataType);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(sendBuf, block * c->rankSize);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(recvBuf, block);
    if (rc != HCCL_SUCCESS) return rc;
    const OpDescriptor mine = describe(OpKind::ReduceScatter, dataType, op, 0, recvCount, block * c->rankSize);
    auto *out = static_cast<unsigned char *>(recvBuf);
    const uint32_t rank = c->rank;
    return enqueue(c, stream, {"HcclReduceScatter", "hcom_reduceScatter_", "RING"}, dataType, recvCount,
                   [=](Communicator &self) {
                       if (self.mpi) return self.mpi->reduceScatter(sendBuf, recvBuf, recvCount, dataType, op);
                       return runRounds(self, mine, sendBuf, [&](uint32_t p, uint64_t lo, uint64_t hi,
                                                                 const unsigned char *data) {
                           uint64_t from = 0;
                           uint64_t to = 0;
                           if (blockPart(lo, hi, rank, block, from, to)) {
                               accumulate(out + (from - rank * block), data + (from - lo), to - from, p, dataType, op);
                           }
                       });
                   });
}

VNPU_EXPORT HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                  HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream) {
    ApiSpan span(VNPU_API_LEVEL_HCCL, "HcclReduce");
    std::shared_ptr<Communicator> c;
    HcclResult rc = findCommunicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = checkType(dataType, true, op);
    if (rc == HCCL_SUCCESS && root >= c->rankSize) rc = HCCL_E_PARA;
    const uint64_t bytes = count * dataTypeSize(dataType);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(sendBuf, bytes);
    if (rc == HCCL_SUCCESS && c->rank == root) rc = checkBuffer(recvBuf, bytes);
    if (rc != HCCL_SUCCESS) return rc;
    const bool isRoot = c->rank == root;
    const OpDescriptor mine = describe(OpKind::Reduce, dataType, op, root, count, bytes);
    auto *out = static_cast<unsigned char *>(recvBuf);
    return enqueue(c, stream, {"HcclReduce", "hcom_reduce_", "RING"}, dataType, count, [=](Communicator &self) {
        if (self.mpi) return self.mpi->reduce(sendBuf, recvBuf, count, dataType, op, root);
        return runRounds(self, mine, sendBuf, [&](uint32_t p, uint64_t lo, uint64_t hi, const unsigned char *data) {
            if (isRoot) {
                accumulate(out + lo, data, hi - lo, p, dataType, op);
            }
        });
    });
}

VNPU_EXPORT HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                   uint32_t root, HcclComm comm, aclrtStream stream) {
    ApiSpan span(VNPU_API_LEVEL_HCCL, "HcclScatter");
    std::shared_ptr<Communicator> c;
    HcclResult rc = findCommunicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = checkType(dataType, false, HCCL_REDUCE_SUM);
    if (rc == HCCL_SUCCESS && root >= c->rankSize) rc = HCCL_E_PARA;
    const uint64_t block = recvCount * dataTypeSize(dataType);
    if (rc == HCCL_SUCCESS && c->rank == root) rc = checkBuffer(sendBuf, block * c->rankSize);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(recvBuf, block);
    if (rc != HCCL_SUCCESS) return rc;
    const uint32_t rank = c->rank;
    const OpDescriptor mine =
        describe(OpKind::Scatter, dataType, HCCL_REDUCE_SUM, root, recvCount, rank == root ? block * c->rankSize : 0);
    auto *out = static_cast<unsigned char *>(recvBuf);
    return enqueue(c, stream, {"HcclScatter", "hcom_scatter_", "RING"}, dataType, recvCount,
                   [=](Communicator &self) {
                       if (self.mpi) return self.mpi->scatter(sendBuf, recvBuf, recvCount, dataType, root);
                       return runRounds(self, mine, sendBuf, [&](uint32_t p, uint64_t lo, uint64_t hi,
                                                                 const unsigned char *data) {
                           uint64_t from = 0;
                           uint64_t to = 0;
                           if (p == root && blockPart(lo, hi, rank, block, from, to)) {
                               std::memcpy(out + (from - rank * block), data + (from - lo), to - from);
                           }
                       });
                   });
}

VNPU_EXPORT HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                    const void *recvBuf, uint64_t recvCount, HcclDataType recvType, HcclComm comm,
                                    aclrtStream stream) {
    ApiSpan span(VNPU_API_LEVEL_HCCL, "HcclAlltoAll");
    std::shared_ptr<Communicator> c;
    HcclResult rc = findCommunicator(comm, c);
    if (rc == HCCL_SUCCESS) rc = checkType(sendType, false, HCCL_REDUCE_SUM);
    if (rc == HCCL_SUCCESS && (sendType != recvType || sendCount != recvCount ||
                               (sendBuf == recvBuf && sendCount > 0))) {
        rc = HCCL_E_PARA;
    }
    const uint64_t block = sendCount * dataTypeSize(sendType);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(sendBuf, block * c->rankSize);
    if (rc == HCCL_SUCCESS) rc = checkBuffer(recvBuf, block * c->rankSize);
    if (rc != HCCL_SUCCESS) return rc;
    const uint32_t rank = c->rank;
    const OpDescriptor mine = describe(OpKind::AlltoAll, sendType, HCCL_REDUCE_SUM, 0, sendCount, block * c->rankSize);
    auto *out = static_cast<unsigned char *>(const_cast<void *>(recvBuf));
    return enqueue(c, stream, {"HcclAlltoAll", "hcom_alltoall_", "MESH"}, sendType, sendCount,
                   [=](Communicator &self) {
                       if (self.mpi) return self.mpi->alltoAll(sendBuf, out, sendCount, sendType);
                       return runRounds(self, mine, sendBuf, [&](uint32_t p, uint64_t lo, uint64_t hi,
                                                                 const unsigned char *data) {
                           uint64_t from = 0;
                           uint64_t to = 0;
                           if (blockPart(lo, hi, rank, block, from, to)) {
                               std::memcpy(out + p * block + (from - rank * block), data + (from - lo), to - from);
                           }
                       });
                   });
}

VNPU_EXPORT HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                     HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                     const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream) {
    (void)sendBuf, (void)sendCounts, (void)sdispls, (void)sendType, (void)recvBuf, (void)recvCounts, (void)rdispls,
        (void)recvType, (void)comm, (void)stream;
    return HCCL_E_NOT_SUPPORT;
}

VNPU_EXPORT HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
    ApiSpan span(VNPU_API_LEVEL_HCCL, "HcclBarrier");
    std::shared_ptr<Communicator> c;
    HcclResult rc = findCommunicator(comm, c);
    if (rc != HCCL_SUCCESS) return rc;
    const OpDescriptor mine = describe(OpKind::Barrier, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 0, 0, 0);
    return enqueue(c, stream, {"HcclBarrier", "hcom_barrier_", "RING"}, HCCL_DATA_TYPE_FP32, 0,
                   [=](Communicator &self) {
                       if (self.mpi) return self.mpi->barrier();
                       return runRounds(self, mine, nullptr,
                                        [](uint32_t, uint64_t, uint64_t, const unsigned char *) {});
                   });
}

VNPU_EXPORT HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                                HcclComm comm, aclrtStream stream) {
    ApiSpan span(VNPU_API_LEVEL_HCCL, "HcclSend");
    std::shared_ptr<Communicator> c;
    uint64_t bytes = 0;
    HcclResult rc = checkPointToPoint(comm, sendBuf, count, dataType, destRank, c, bytes);
    if (rc != HCCL_SUCCESS) return rc;
    return enqueue(c, stream, {"HcclSend", "hcom_send_", "P2P"}, dataType, count, [=](Communicator &self) {
        return self.mpi ? self.mpi->send(sendBuf, bytes, destRank) : self.arena->send(self.rank, destRank, sendBuf, bytes);
    });
}

VNPU_EXPORT HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                                HcclComm comm, aclrtStream stream) {
    ApiSpan span(VNPU_API_LEVEL_HCCL, "HcclRecv");
    std::shared_ptr<Communicator> c;
    uint64_t bytes = 0;
    HcclResult rc = checkPointToPoint(comm, recvBuf, count, dataType, srcRank, c, bytes);
    if (rc != HCCL_SUCCESS) return rc;
    return enqueue(c, stream, {"HcclRecv", "hcom_receive_", "P2P"}, dataType, count, [=](Communicator &self) {
        return self.mpi ? self.mpi->recv(recvBuf, bytes, srcRank) : self.arena->recv(srcRank, self.rank, recvBuf, bytes);
    });
}

VNPU_EXPORT HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                         aclrtStream stream) {
    (void)sendRecvInfo, (void)itemNum, (void)comm, (void)stream;
    return HCCL_E_NOT_SUPPORT;
}

} // extern "C"
