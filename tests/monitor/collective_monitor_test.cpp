// HcclMonitor and CommunicationMonitor against the virtual NPU's in-process HCCL (libmspti.so
// interposing the runtime, as under LD_PRELOAD): every collective's name, algorithm, count and
// data type, per rank, through record callbacks and through start_batch.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "acl/acl.h"
#include "hccl/hccl.h"
#include "monitor_test_support.h"

using mspti::MsptiResult;
using DataType = mspti::MsptiCommunicationDataType;

namespace {

constexpr uint32_t kRanks = 2;

void RankMain(uint32_t r, HcclComm comm, const std::function<void(uint32_t, HcclComm, aclrtStream)> &body) {
    ASSERT_EQ(aclrtSetDevice(static_cast<int32_t>(r)), ACL_SUCCESS);
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    body(r, comm, stream);
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(static_cast<int32_t>(r)), ACL_SUCCESS);
}

/// One communicator over devices 0..kRanks-1; body(rank, comm, stream) runs on one thread per device.
/// A failed ASSERT in one rank would leave the other blocked in a collective: the process ends at once.
void RunRanks(const std::function<void(uint32_t, HcclComm, aclrtStream)> &body) {
    int32_t devices[kRanks];
    HcclComm comms[kRanks] = {};
    for (uint32_t i = 0; i < kRanks; ++i) devices[i] = static_cast<int32_t>(i);
    ASSERT_EQ(HcclCommInitAll(kRanks, devices, comms), HCCL_SUCCESS);
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < kRanks; ++r) {
        threads.emplace_back([&, r] {
            RankMain(r, comms[r], body);
            if (::testing::Test::HasFatalFailure()) {
                std::fprintf(stderr, "rank %u failed: ending every rank\n", r);
                std::_Exit(1);
            }
        });
    }
    for (auto &t : threads) t.join();
    for (HcclComm c : comms) EXPECT_EQ(HcclCommDestroy(c), HCCL_SUCCESS);
}

struct DeviceMemory {
    explicit DeviceMemory(size_t bytes) { EXPECT_EQ(aclrtMalloc(&ptr, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS); }
    ~DeviceMemory() { aclrtFree(ptr); }
    void *ptr = nullptr;
};

/// What one collective must report: its HCCL name, its COMMUNICATION name, algorithm, count, type.
struct Expected {
    const char *hccl;
    const char *op;
    const char *alg;
    uint64_t count;
    DataType type;
    uint32_t ranks;  // records per op: every rank, or one for send and one for recv
};

const std::vector<Expected> &Collectives() {
    static const std::vector<Expected> all = {
        {"HcclAllReduce", "hcom_allReduce_", "RING", 16, DataType::MSPTI_ACTIVITY_COMMUNICATION_FP32, kRanks},
        {"HcclBroadcast", "hcom_broadcast_", "RING", 8, DataType::MSPTI_ACTIVITY_COMMUNICATION_INT32, kRanks},
        {"HcclAllGather", "hcom_allGather_", "RING", 4, DataType::MSPTI_ACTIVITY_COMMUNICATION_FP16, kRanks},
        {"HcclReduceScatter", "hcom_reduceScatter_", "RING", 4, DataType::MSPTI_ACTIVITY_COMMUNICATION_INT16, kRanks},
        {"HcclReduce", "hcom_reduce_", "RING", 8, DataType::MSPTI_ACTIVITY_COMMUNICATION_INT64, kRanks},
        {"HcclScatter", "hcom_scatter_", "RING", 4, DataType::MSPTI_ACTIVITY_COMMUNICATION_INT8, kRanks},
        {"HcclAlltoAll", "hcom_alltoall_", "MESH", 2, DataType::MSPTI_ACTIVITY_COMMUNICATION_UINT8, kRanks},
        {"HcclSend", "hcom_send_", "P2P", 6, DataType::MSPTI_ACTIVITY_COMMUNICATION_UINT32, 1},
        {"HcclRecv", "hcom_receive_", "P2P", 6, DataType::MSPTI_ACTIVITY_COMMUNICATION_UINT32, 1},
    };
    return all;
}

/// Runs every collective of Collectives() once (the send from rank 0 to the recv on rank 1).
void RunEveryCollective(uint32_t rank, HcclComm comm, aclrtStream stream) {
    DeviceMemory in(4096), out(4096);
    ASSERT_EQ(aclrtMemset(in.ptr, 4096, 1, 4096), ACL_SUCCESS);
    ASSERT_EQ(HcclAllReduce(in.ptr, out.ptr, 16, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream), HCCL_SUCCESS);
    ASSERT_EQ(HcclBroadcast(in.ptr, 8, HCCL_DATA_TYPE_INT32, 0, comm, stream), HCCL_SUCCESS);
    ASSERT_EQ(HcclAllGather(in.ptr, out.ptr, 4, HCCL_DATA_TYPE_FP16, comm, stream), HCCL_SUCCESS);
    ASSERT_EQ(HcclReduceScatter(in.ptr, out.ptr, 4, HCCL_DATA_TYPE_INT16, HCCL_REDUCE_MAX, comm, stream), HCCL_SUCCESS);
    ASSERT_EQ(HcclReduce(in.ptr, out.ptr, 8, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_SUM, 1, comm, stream), HCCL_SUCCESS);
    ASSERT_EQ(HcclScatter(in.ptr, out.ptr, 4, HCCL_DATA_TYPE_INT8, 0, comm, stream), HCCL_SUCCESS);
    ASSERT_EQ(HcclAlltoAll(in.ptr, 2, HCCL_DATA_TYPE_UINT8, out.ptr, 2, HCCL_DATA_TYPE_UINT8, comm, stream),
              HCCL_SUCCESS);
    if (rank == 0) {
        ASSERT_EQ(HcclSend(in.ptr, 6, HCCL_DATA_TYPE_UINT32, 1, comm, stream), HCCL_SUCCESS);
    } else {
        ASSERT_EQ(HcclRecv(out.ptr, 6, HCCL_DATA_TYPE_UINT32, 0, comm, stream), HCCL_SUCCESS);
    }
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
}

template <class T>
class Collector {
public:
    void add(const T &record) {
        std::lock_guard<std::mutex> lock(mutex_);
        records_.push_back(record);
    }
    std::vector<T> records() {
        std::lock_guard<std::mutex> lock(mutex_);
        return records_;
    }

private:
    std::mutex mutex_;
    std::vector<T> records_;
};

/// Turns a batch of C records into the monitor's record types, as the record callbacks see them.
class BatchCollector : public mspti::BatchCallback {
public:
    void on_batch(const mspti::RecordBatch &batch) override {
        const auto *base = static_cast<const unsigned char *>(batch.data);
        for (size_t i = 0; i < batch.count; ++i) {
            const void *at = base + i * batch.stride;
            if (batch.kind == mspti::MsptiActivityKind::MSPTI_ACTIVITY_KIND_HCCL) {
                EXPECT_EQ(batch.stride, sizeof(msptiActivityHccl));
                const auto *r = static_cast<const msptiActivityHccl *>(at);
                hccl.add({mspti::MsptiActivityKind::MSPTI_ACTIVITY_KIND_HCCL, r->start, r->end, r->ds.deviceId,
                          r->ds.streamId, r->bandWidth, r->name, r->commName});
            } else {
                EXPECT_EQ(batch.kind, mspti::MsptiActivityKind::MSPTI_ACTIVITY_KIND_COMMUNICATION);
                EXPECT_EQ(batch.stride, sizeof(msptiActivityCommunication));
                const auto *r = static_cast<const msptiActivityCommunication *>(at);
                comm.add({mspti::MsptiActivityKind::MSPTI_ACTIVITY_KIND_COMMUNICATION,
                          static_cast<DataType>(r->dataType), r->count, r->ds.deviceId, r->ds.streamId, r->start,
                          r->end, r->algType, r->name, r->commName, r->correlationId});
            }
        }
    }
    Collector<mspti::HcclData> hccl;
    Collector<mspti::CommunicationData> comm;
};

template <class T>
std::vector<T> SortedByNameAndDevice(std::vector<T> v) {
    std::sort(v.begin(), v.end(), [](const T &a, const T &b) {
        return std::tie(a.name, a.device_id, a.start) < std::tie(b.name, b.device_id, b.start);
    });
    return v;
}

}  // namespace

TEST(CollectiveMonitors, EveryCollectiveReportsItsNameAlgorithmCountAndType) {
    Collector<mspti::HcclData> hccl;
    Collector<mspti::CommunicationData> comm;
    mspti::HcclMonitor hm;
    mspti::CommunicationMonitor cm;
    ASSERT_EQ(hm.start([&](const mspti::HcclData &d) { hccl.add(d); }), MsptiResult::MSPTI_SUCCESS)
        << mspti::last_error_message();
    ASSERT_EQ(cm.start([&](const mspti::CommunicationData &d) { comm.add(d); }), MsptiResult::MSPTI_SUCCESS);
    RunRanks(RunEveryCollective);
    ASSERT_EQ(hm.stop(), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(cm.stop(), MsptiResult::MSPTI_SUCCESS);

    const auto hcclRecords = hccl.records();
    const auto commRecords = comm.records();
    size_t expectedRecords = 0;
    for (const Expected &e : Collectives()) {
        expectedRecords += e.ranks;
        std::vector<int64_t> hcclDevices, commDevices;
        for (const auto &h : hcclRecords) {
            if (h.name != e.hccl) continue;
            hcclDevices.push_back(h.device_id);
            EXPECT_EQ(h.kind, mspti::MsptiActivityKind::MSPTI_ACTIVITY_KIND_HCCL);
            // As msPTI: Scatter never queries the rank size, so its bandwidth is always 0 (docs/compatibility.md).
            if (std::string(e.hccl) == "HcclScatter") {
                EXPECT_EQ(h.bandwidth, 0.0) << e.hccl;
            } else {
                EXPECT_GT(h.bandwidth, 0.0) << e.hccl;
            }
            EXPECT_LE(h.start, h.end) << e.hccl;
            EXPECT_FALSE(h.comm_name.empty()) << e.hccl;
        }
        for (const auto &c : commRecords) {
            if (c.name != e.op) continue;
            commDevices.push_back(c.device_id);
            EXPECT_EQ(c.alg_type, e.alg) << e.op;
            EXPECT_EQ(c.count, e.count) << e.op;
            EXPECT_EQ(c.data_type, e.type) << e.op;
            EXPECT_LE(c.start, c.end) << e.op;
            EXPECT_FALSE(c.comm_name.empty()) << e.op;
        }
        std::sort(hcclDevices.begin(), hcclDevices.end());
        std::sort(commDevices.begin(), commDevices.end());
        const std::vector<int64_t> everyRank = {0, 1};
        const std::vector<int64_t> sender = {0}, receiver = {1};
        const auto &want = e.ranks == kRanks ? everyRank : (std::string(e.hccl) == "HcclSend" ? sender : receiver);
        EXPECT_EQ(hcclDevices, want) << e.hccl;
        EXPECT_EQ(commDevices, want) << e.op;
    }
    // Nothing else: no record for an op that was not run, none twice.
    EXPECT_EQ(hcclRecords.size(), expectedRecords);
    EXPECT_EQ(commRecords.size(), expectedRecords);
}

TEST(CollectiveMonitors, BatchesCarryTheSameRecordsAsTheRecordCallbacks) {
    Collector<mspti::HcclData> hccl;
    Collector<mspti::CommunicationData> comm;
    BatchCollector batches;
    mspti::HcclMonitor hm, hb;
    mspti::CommunicationMonitor cm, cb;
    ASSERT_EQ(hb.start_batch(&batches), MsptiResult::MSPTI_SUCCESS) << mspti::last_error_message();
    ASSERT_EQ(cb.start_batch(&batches), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(hm.start([&](const mspti::HcclData &d) { hccl.add(d); }), MsptiResult::MSPTI_SUCCESS);
    ASSERT_EQ(cm.start([&](const mspti::CommunicationData &d) { comm.add(d); }), MsptiResult::MSPTI_SUCCESS);
    RunRanks(RunEveryCollective);
    for (mspti::Monitor *m : {static_cast<mspti::Monitor *>(&hm), static_cast<mspti::Monitor *>(&cm),
                              static_cast<mspti::Monitor *>(&hb), static_cast<mspti::Monitor *>(&cb)})
        ASSERT_EQ(m->stop(), MsptiResult::MSPTI_SUCCESS);
    const auto fromBatch = SortedByNameAndDevice(batches.hccl.records());
    const auto commFromBatch = SortedByNameAndDevice(batches.comm.records());
    EXPECT_EQ(fromBatch.size(), 16u);
    EXPECT_EQ(commFromBatch.size(), 16u);
    EXPECT_EQ(fromBatch, SortedByNameAndDevice(hccl.records()));
    EXPECT_EQ(commFromBatch, SortedByNameAndDevice(comm.records()));
    EXPECT_EQ(hb.stats().delivered, fromBatch.size());
    EXPECT_EQ(cb.stats().delivered, commFromBatch.size());
}

// A flush parses the driver's channels on the flushing thread while the poll thread parses them on
// its own: HCCL records, like the other device records, must still leave in the order the device
// ran them. A rank's ops run one after another on its stream, so its records' starts must rise.
TEST(CollectiveMonitors, HcclRecordsKeepTheirDeviceOrderWhileAnotherThreadFlushes) {
    constexpr int kOps = 300;
    Collector<mspti::HcclData> hccl;
    mspti::HcclMonitor hm;
    ASSERT_EQ(hm.start([&](const mspti::HcclData &d) { hccl.add(d); }), MsptiResult::MSPTI_SUCCESS)
        << mspti::last_error_message();
    std::atomic<bool> done{false};
    std::thread flusher([&] {
        while (!done.load()) mspti::Monitor::flush_all();
    });
    RunRanks([](uint32_t, HcclComm comm, aclrtStream stream) {
        DeviceMemory in(64), out(64);
        for (int i = 0; i < kOps; ++i) {
            ASSERT_EQ(HcclAllReduce(in.ptr, out.ptr, 16, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream),
                      HCCL_SUCCESS);
            if (i % 10 == 0) {
                ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);  // lets the poller in
            }
        }
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);  // before the memory is freed
    });
    done.store(true);
    flusher.join();
    ASSERT_EQ(hm.stop(), MsptiResult::MSPTI_SUCCESS);
    std::map<int64_t, std::vector<uint64_t>> starts;  // per device, in delivery order
    for (const auto &h : hccl.records()) starts[h.device_id].push_back(h.start);
    ASSERT_EQ(starts.size(), kRanks);
    for (const auto &[device, s] : starts) {
        EXPECT_EQ(s.size(), static_cast<size_t>(kOps)) << "device " << device;
        size_t out_of_order = 0;
        for (size_t i = 1; i < s.size(); ++i) out_of_order += s[i] < s[i - 1];
        EXPECT_EQ(out_of_order, 0u) << "device " << device;
    }
}
