// Interposed HCCL operations (docs/compatibility.md, "Interposed functions", "HCCL records and
// bandwidth"): with HCCL enabled each op (but the barrier) is bracketed by internal device markers that become one HCCL record with its bandwidth; the
// Callback API's HCCL domain fires ENTER/EXIT around the real call. Order as msPTI: start
// marker, ENTER, real call, EXIT, end marker.
#include <algorithm>

#include "core/activity_engine.h"
#include "core/string_table.h"
#include "device/hccl_bandwidth.h"
#include "device/hccl_ops.h"
#include "interpose/acl_abi.h"
#include "interpose/api_scope.h"
#include "interpose/real_functions.h"

using namespace mspti::interpose;
using mspti::device::hccl_type_size;

namespace {

bool hccl_on() { return mspti::ActivityEngine::instance().enabled(MSPTI_ACTIVITY_KIND_HCCL); }

uint64_t rank_size(HcclComm comm) {
    auto fn = real::HcclGetRankSize.get();
    uint32_t size = 0;
    if (fn == nullptr || fn(comm, &size) != kHcclSuccess) return 0;
    return size;
}

const char *comm_name(HcclComm comm) {
    auto fn = real::HcclGetCommName.get();
    char name[128] = {};
    if (fn == nullptr || fn(comm, name) != kHcclSuccess) return "";
    name[sizeof(name) - 1] = '\0';
    return mspti::intern(name);
}

uint64_t elements_bytes(uint64_t count, HcclDataType type) { return count * hccl_type_size(type); }

// Runs one op. `bytes` is evaluated only when HCCL is enabled (it may query the communicator).
template <typename Fn, typename Bytes, typename... Args>
HcclResult run(RealSymbol<Fn> &real, msptiCallbackId cbid, const char *name, HcclComm comm, aclrtStream stream,
               Bytes bytes, Args... args) {
    Fn fn = real.get();
    if (fn == nullptr) return kHcclNotSupport;
    uint64_t mark = 0;
    if (cbid != MSPTI_CBID_HCCL_BARRIER && hccl_on())
        mark = mspti::device::hccl_op_begin(name, comm_name(comm), bytes(), stream);
    HcclResult result;
    {
        ApiScope scope(MSPTI_CB_DOMAIN_HCCL, cbid, name, 0);
        result = fn(args...);
        scope.exit(&result);
    }
    if (mark != 0) mspti::device::hccl_op_end(mark, stream, result != kHcclSuccess);
    return result;
}

uint64_t sum_counts(const void *counts, uint64_t n, HcclDataType type) {
    if (counts == nullptr) return 0;
    const auto *c = static_cast<const uint64_t *>(counts);
    uint64_t total = 0;
    for (uint64_t i = 0; i < n; ++i) total += c[i];
    return total * hccl_type_size(type);
}

}  // namespace

MSPTI_INTERPOSE HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                         HcclReduceOp op, HcclComm comm, aclrtStream stream) {
    return run(
        real::HcclAllReduce, MSPTI_CBID_HCCL_ALLREDUCE, "HcclAllReduce", comm, stream,
        [&] { return elements_bytes(count, dataType); }, sendBuf, recvBuf, count, dataType, op, comm, stream);
}

MSPTI_INTERPOSE HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                         aclrtStream stream) {
    return run(
        real::HcclBroadcast, MSPTI_CBID_HCCL_BROADCAST, "HcclBroadcast", comm, stream,
        [&] { return elements_bytes(count, dataType); }, buf, count, dataType, root, comm, stream);
}

MSPTI_INTERPOSE HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                         HcclComm comm, aclrtStream stream) {
    return run(
        real::HcclAllGather, MSPTI_CBID_HCCL_ALLGATHER, "HcclAllGather", comm, stream,
        [&] { return elements_bytes(sendCount, dataType) * rank_size(comm); }, sendBuf, recvBuf, sendCount, dataType,
        comm, stream);
}

MSPTI_INTERPOSE HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                             HcclReduceOp op, HcclComm comm, aclrtStream stream) {
    return run(
        real::HcclReduceScatter, MSPTI_CBID_HCCL_REDUCE_SCATTER, "HcclReduceScatter", comm, stream,
        [&] { return elements_bytes(recvCount, dataType) * rank_size(comm); }, sendBuf, recvBuf, recvCount, dataType,
        op, comm, stream);
}

MSPTI_INTERPOSE HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                      HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream) {
    return run(
        real::HcclReduce, MSPTI_CBID_HCCL_REDUCE, "HcclReduce", comm, stream,
        [&] { return elements_bytes(count, dataType); }, sendBuf, recvBuf, count, dataType, op, root, comm, stream);
}

// msPTI never queries the rank size for Scatter, so its bandwidth is always 0 (kept).
MSPTI_INTERPOSE HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                       uint32_t root, HcclComm comm, aclrtStream stream) {
    return run(
        real::HcclScatter, MSPTI_CBID_HCCL_SCATTER, "HcclScatter", comm, stream, [] { return uint64_t{0}; }, sendBuf,
        recvBuf, recvCount, dataType, root, comm, stream);
}

MSPTI_INTERPOSE HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                        const void *recvBuf, uint64_t recvCount, HcclDataType recvType, HcclComm comm,
                                        aclrtStream stream) {
    return run(
        real::HcclAlltoAll, MSPTI_CBID_HCCL_ALL_TO_ALL, "HcclAlltoAll", comm, stream,
        [&] { return elements_bytes(sendCount, sendType) * rank_size(comm); }, sendBuf, sendCount, sendType, recvBuf,
        recvCount, recvType, comm, stream);
}

MSPTI_INTERPOSE HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                         HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                         const void *rdispls, HcclDataType recvType, HcclComm comm,
                                         aclrtStream stream) {
    return run(
        real::HcclAlltoAllV, MSPTI_CBID_HCCL_ALL_TO_ALLV, "HcclAlltoAllV", comm, stream,
        [&]() -> uint64_t {
            if (sendCounts == nullptr || recvCounts == nullptr) return 0;
            if (hccl_type_size(sendType) == 0 || hccl_type_size(recvType) == 0) return 0;
            uint64_t n = rank_size(comm);
            return std::max(sum_counts(sendCounts, n, sendType), sum_counts(recvCounts, n, recvType));
        },
        sendBuf, sendCounts, sdispls, sendType, recvBuf, recvCounts, rdispls, recvType, comm, stream);
}

MSPTI_INTERPOSE HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
    return run(
        real::HcclBarrier, MSPTI_CBID_HCCL_BARRIER, "HcclBarrier", comm, stream, [] { return uint64_t{0}; }, comm,
        stream);
}

MSPTI_INTERPOSE HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                                    HcclComm comm, aclrtStream stream) {
    return run(
        real::HcclSend, MSPTI_CBID_HCCL_SEND, "HcclSend", comm, stream, [&] { return elements_bytes(count, dataType); },
        sendBuf, count, dataType, destRank, comm, stream);
}

MSPTI_INTERPOSE HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                                    HcclComm comm, aclrtStream stream) {
    return run(
        real::HcclRecv, MSPTI_CBID_HCCL_RECV, "HcclRecv", comm, stream, [&] { return elements_bytes(count, dataType); },
        recvBuf, count, dataType, srcRank, comm, stream);
}

MSPTI_INTERPOSE HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                             aclrtStream stream) {
    return run(
        real::HcclBatchSendRecv, MSPTI_CBID_HCCL_SENDRECV, "HcclBatchSendRecv", comm, stream,
        [&]() -> uint64_t {
            if (sendRecvInfo == nullptr) return 0;
            uint64_t total = 0;
            for (uint32_t i = 0; i < itemNum; ++i) {
                uint64_t size = hccl_type_size(sendRecvInfo[i].dataType);
                if (size == 0) return 0;  // any unknown type: no value
                total += sendRecvInfo[i].count * size;
            }
            return total;
        },
        sendRecvInfo, itemNum, comm, stream);
}
