// In-process HCCL (HcclCommInitAll, one thread per device): every collective and send/recv against a
// reference computed here, and argument checks.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>

#include "acl/error_codes/rt_error_codes.h"
#include "hccl/hccl.h"
#include "hccl/hccl_types.h"
#include "test_support.h"

using vnpu_test::DeviceBuffer;

namespace {

void rankMain(uint32_t r, HcclComm comm, const std::function<void(uint32_t, HcclComm, aclrtStream)> &body) {
    ASSERT_EQ(aclrtSetDevice(static_cast<int32_t>(r)), ACL_SUCCESS);
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    body(r, comm, stream);
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    HcclResult async = HCCL_E_INTERNAL;
    EXPECT_EQ(HcclGetCommAsyncError(comm, &async), HCCL_SUCCESS);
    EXPECT_EQ(async, HCCL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(static_cast<int32_t>(r)), ACL_SUCCESS);
}

/// One communicator over devices 0..n-1; body(rank, comm, stream) runs on one thread per device.
void runRanks(uint32_t n, const std::function<void(uint32_t, HcclComm, aclrtStream)> &body) {
    std::vector<int32_t> devices(n);
    for (uint32_t i = 0; i < n; ++i) devices[i] = static_cast<int32_t>(i);
    std::vector<HcclComm> comms(n);
    ASSERT_EQ(HcclCommInitAll(n, devices.data(), comms.data()), HCCL_SUCCESS);
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < n; ++r) {
        threads.emplace_back([&, r] {
            rankMain(r, comms[r], body);
            // The other ranks may be blocked in a collective this one never reaches: a fatal
            // failure ends the whole test process now (gtest has printed it) instead of at the timeout.
            if (::testing::Test::HasFatalFailure()) {
                std::fprintf(stderr, "rank %u failed: ending every rank\n", r);
                std::_Exit(1);
            }
        });
    }
    for (auto &t : threads) t.join();
    for (HcclComm c : comms) EXPECT_EQ(HcclCommDestroy(c), HCCL_SUCCESS);
}

std::vector<float> rankData(uint32_t rank, size_t count) {
    std::vector<float> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = static_cast<float>(rank * 1000 + i % 97);
    return v;
}

}  // namespace

TEST(HcclInProcess, AllReduceOverEightDevicesSumsLikeTheSample) {
    runRanks(8, [](uint32_t rank, HcclComm comm, aclrtStream stream) {
        std::vector<float> send(8);
        for (int i = 0; i < 8; ++i) send[static_cast<size_t>(i)] = static_cast<float>(i);
        DeviceBuffer in(send);
        DeviceBuffer out(8 * sizeof(float));
        ASSERT_EQ(HcclAllReduce(in.get(), out.get(), 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream),
                  HCCL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
        auto result = out.read<float>();
        for (int i = 0; i < 8; ++i) EXPECT_EQ(result[static_cast<size_t>(i)], 8.0f * i) << "rank " << rank;
    });
}

TEST(HcclInProcess, AllReduceSupportsEveryOpLargeBuffersAndInPlace) {
    const size_t count = (5u << 20) / sizeof(int32_t) + 3;  // more than one 4 MiB round
    runRanks(4, [count](uint32_t rank, HcclComm comm, aclrtStream stream) {
        std::vector<int32_t> send(count);
        for (size_t i = 0; i < count; ++i) send[i] = static_cast<int32_t>((i % 13) + rank);
        for (HcclReduceOp op : {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX, HCCL_REDUCE_MIN}) {
            DeviceBuffer buf(send);  // in place: send == recv
            ASSERT_EQ(HcclAllReduce(buf.get(), buf.get(), count, HCCL_DATA_TYPE_INT32, op, comm, stream), HCCL_SUCCESS);
            ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
            auto result = buf.read<int32_t>();
            for (size_t i = 0; i < count; i += 4099) {
                const int32_t base = static_cast<int32_t>(i % 13);
                int32_t expected = op == HCCL_REDUCE_PROD ? 1 : 0;
                for (int32_t r = 0; r < 4; ++r) {
                    const int32_t v = base + r;
                    switch (op) {
                    case HCCL_REDUCE_SUM: expected += v; break;
                    case HCCL_REDUCE_PROD: expected *= v; break;
                    case HCCL_REDUCE_MAX: expected = r == 0 ? v : std::max(expected, v); break;
                    default: expected = r == 0 ? v : std::min(expected, v); break;
                    }
                }
                ASSERT_EQ(result[i], expected) << "op " << op << " i " << i;
            }
        }
    });
}

TEST(HcclInProcess, AllReduceSumsFp16) {
    runRanks(4, [](uint32_t rank, HcclComm comm, aclrtStream stream) {
        std::vector<uint16_t> send(16);
        for (size_t i = 0; i < 16; ++i)
            send[i] = aclFloatToFloat16(0.5f * static_cast<float>(i) + static_cast<float>(rank));
        DeviceBuffer in(send);
        DeviceBuffer out(16 * 2);
        ASSERT_EQ(HcclAllReduce(in.get(), out.get(), 16, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_SUM, comm, stream),
                  HCCL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
        auto result = out.read<uint16_t>();
        for (size_t i = 0; i < 16; ++i) {
            EXPECT_EQ(aclFloat16ToFloat(result[i]), 2.0f * static_cast<float>(i) + 6.0f) << i;
        }
    });
}

TEST(HcclInProcess, BroadcastCopiesTheRootBuffer) {
    runRanks(4, [](uint32_t rank, HcclComm comm, aclrtStream stream) {
        DeviceBuffer buf(rankData(rank, 1000));
        ASSERT_EQ(HcclBroadcast(buf.get(), 1000, HCCL_DATA_TYPE_FP32, 2, comm, stream), HCCL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
        EXPECT_EQ(buf.read<float>(), rankData(2, 1000));
    });
}

TEST(HcclInProcess, AllGatherConcatenatesInRankOrder) {
    runRanks(4, [](uint32_t rank, HcclComm comm, aclrtStream stream) {
        DeviceBuffer in(rankData(rank, 300));
        DeviceBuffer out(4 * 300 * sizeof(float));
        ASSERT_EQ(HcclAllGather(in.get(), out.get(), 300, HCCL_DATA_TYPE_FP32, comm, stream), HCCL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
        std::vector<float> expected;
        for (uint32_t r = 0; r < 4; ++r) {
            auto part = rankData(r, 300);
            expected.insert(expected.end(), part.begin(), part.end());
        }
        EXPECT_EQ(out.read<float>(), expected);
    });
}

TEST(HcclInProcess, ReduceScatterGivesEachRankItsReducedBlock) {
    runRanks(4, [](uint32_t rank, HcclComm comm, aclrtStream stream) {
        DeviceBuffer in(rankData(rank, 4 * 50));
        DeviceBuffer out(50 * sizeof(float));
        ASSERT_EQ(HcclReduceScatter(in.get(), out.get(), 50, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_MAX, comm, stream),
                  HCCL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
        auto result = out.read<float>();
        auto top = rankData(3, 4 * 50);  // rank 3 holds the largest values everywhere
        for (size_t i = 0; i < 50; ++i) EXPECT_EQ(result[i], top[rank * 50 + i]);
    });
}

TEST(HcclInProcess, ReduceWritesOnlyTheRoot) {
    runRanks(4, [](uint32_t rank, HcclComm comm, aclrtStream stream) {
        DeviceBuffer in(rankData(rank, 64));
        DeviceBuffer out(std::vector<float>(64, -1.0f));
        ASSERT_EQ(HcclReduce(in.get(), out.get(), 64, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 1, comm, stream),
                  HCCL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
        auto result = out.read<float>();
        for (size_t i = 0; i < 64; ++i) {
            float sum = 0;
            for (uint32_t r = 0; r < 4; ++r) sum += rankData(r, 64)[i];
            EXPECT_EQ(result[i], rank == 1 ? sum : -1.0f);
        }
    });
}

TEST(HcclInProcess, AlltoAllExchangesBlocks) {
    runRanks(4, [](uint32_t rank, HcclComm comm, aclrtStream stream) {
        std::vector<int64_t> send(4 * 10);
        for (size_t j = 0; j < send.size(); ++j) send[j] = static_cast<int64_t>(rank * 100 + j);
        DeviceBuffer in(send);
        DeviceBuffer out(send.size() * sizeof(int64_t));
        ASSERT_EQ(HcclAlltoAll(in.get(), 10, HCCL_DATA_TYPE_INT64, out.get(), 10, HCCL_DATA_TYPE_INT64, comm, stream),
                  HCCL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
        auto result = out.read<int64_t>();
        for (uint32_t p = 0; p < 4; ++p) {
            for (uint32_t k = 0; k < 10; ++k)
                EXPECT_EQ(result[p * 10 + k], static_cast<int64_t>(p * 100 + rank * 10 + k));
        }
    });
}

TEST(HcclInProcess, ScatterSendsBlockIToRankI) {
    runRanks(4, [](uint32_t rank, HcclComm comm, aclrtStream stream) {
        DeviceBuffer in(rankData(9, 4 * 20));
        DeviceBuffer out(20 * sizeof(float));
        ASSERT_EQ(HcclScatter(in.get(), out.get(), 20, HCCL_DATA_TYPE_FP32, 0, comm, stream), HCCL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
        auto all = rankData(9, 4 * 20);
        EXPECT_EQ(out.read<float>(), std::vector<float>(all.begin() + rank * 20, all.begin() + (rank + 1) * 20));
    });
}

TEST(HcclInProcess, SendRecvMovesDataAroundARing) {
    const size_t count = 300000;  // several mailbox chunks
    runRanks(4, [count](uint32_t rank, HcclComm comm, aclrtStream stream) {
        DeviceBuffer in(rankData(rank, count));
        DeviceBuffer out(count * sizeof(float));
        const uint32_t next = (rank + 1) % 4;
        const uint32_t prev = (rank + 3) % 4;
        if (rank % 2 == 0) {  // pair the synchronous sends so that no rank waits on itself
            ASSERT_EQ(HcclSend(in.get(), count, HCCL_DATA_TYPE_FP32, next, comm, stream), HCCL_SUCCESS);
            ASSERT_EQ(HcclRecv(out.get(), count, HCCL_DATA_TYPE_FP32, prev, comm, stream), HCCL_SUCCESS);
        } else {
            ASSERT_EQ(HcclRecv(out.get(), count, HCCL_DATA_TYPE_FP32, prev, comm, stream), HCCL_SUCCESS);
            ASSERT_EQ(HcclSend(in.get(), count, HCCL_DATA_TYPE_FP32, next, comm, stream), HCCL_SUCCESS);
        }
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
        EXPECT_EQ(out.read<float>(), rankData(prev, count));
    });
}

TEST(HcclInProcess, BarrierAndCommQueries) {
    runRanks(3, [](uint32_t rank, HcclComm comm, aclrtStream stream) {
        ASSERT_EQ(HcclBarrier(comm, stream), HCCL_SUCCESS);
        uint32_t size = 0;
        uint32_t id = 99;
        ASSERT_EQ(HcclGetRankSize(comm, &size), HCCL_SUCCESS);
        ASSERT_EQ(HcclGetRankId(comm, &id), HCCL_SUCCESS);
        EXPECT_EQ(size, 3u);
        EXPECT_EQ(id, rank);
        char name[128] = {};
        ASSERT_EQ(HcclGetCommName(comm, name), HCCL_SUCCESS);
        EXPECT_NE(std::string(name).find("127.0.0.1%lo_"), std::string::npos);
    });
}

TEST(HcclInProcess, CommNamesAreUniquePerCommunicator) {
    int32_t devices[2] = {0, 1};
    HcclComm first[2];
    HcclComm second[2];
    ASSERT_EQ(HcclCommInitAll(2, devices, first), HCCL_SUCCESS);
    ASSERT_EQ(HcclCommInitAll(2, devices, second), HCCL_SUCCESS);
    char a0[128], a1[128], b0[128];
    ASSERT_EQ(HcclGetCommName(first[0], a0), HCCL_SUCCESS);
    ASSERT_EQ(HcclGetCommName(first[1], a1), HCCL_SUCCESS);
    ASSERT_EQ(HcclGetCommName(second[0], b0), HCCL_SUCCESS);
    EXPECT_STREQ(a0, a1);
    EXPECT_STRNE(a0, b0);
    for (HcclComm c : {first[0], first[1], second[0], second[1]}) EXPECT_EQ(HcclCommDestroy(c), HCCL_SUCCESS);
}

TEST(HcclInProcess, BadArgumentsAreRejectedBeforeEnqueue) {
    int32_t devices[2] = {0, 1};
    HcclComm comms[2];
    int32_t duplicate[2] = {1, 1};
    int32_t invalid[2] = {0, 8};
    EXPECT_EQ(HcclCommInitAll(2, duplicate, comms), HCCL_E_PARA);
    EXPECT_EQ(HcclCommInitAll(2, invalid, comms), HCCL_E_PARA);
    EXPECT_EQ(HcclCommInitAll(0, devices, comms), HCCL_E_PARA);
    EXPECT_EQ(HcclCommInitAll(2, nullptr, comms), HCCL_E_PTR);
    ASSERT_EQ(HcclCommInitAll(2, devices, comms), HCCL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    DeviceBuffer buf(std::vector<float>(8, 1.0f));
    std::vector<float> host(8, 1.0f);
    int bogus = 0;
    EXPECT_EQ(HcclAllReduce(buf.get(), buf.get(), 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, nullptr, nullptr),
              HCCL_E_PTR);
    EXPECT_EQ(HcclAllReduce(buf.get(), buf.get(), 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, &bogus, nullptr),
              HCCL_E_PARA);
    EXPECT_EQ(HcclAllReduce(nullptr, buf.get(), 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[0], nullptr),
              HCCL_E_PTR);
    EXPECT_EQ(HcclAllReduce(host.data(), buf.get(), 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[0], nullptr),
              HCCL_E_PARA);  // not device memory
    EXPECT_EQ(HcclAllReduce(buf.get(), buf.get(), 9, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[0], nullptr),
              HCCL_E_PARA);  // too large for the buffer
    EXPECT_EQ(HcclAllReduce(buf.get(), buf.get(), 8, HCCL_DATA_TYPE_RESERVED, HCCL_REDUCE_SUM, comms[0], nullptr),
              HCCL_E_PARA);
    EXPECT_EQ(HcclAllReduce(buf.get(), buf.get(), 2, HCCL_DATA_TYPE_INT128, HCCL_REDUCE_SUM, comms[0], nullptr),
              HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclAllReduce(buf.get(), buf.get(), 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_RESERVED, comms[0], nullptr),
              HCCL_E_PARA);
    EXPECT_EQ(HcclAllReduce(buf.get(), buf.get(), 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[0], &bogus),
              HCCL_E_PARA);
    EXPECT_EQ(HcclAllReduce(buf.get(), buf.get(), 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[1], nullptr),
              HCCL_E_PARA);  // rank 1 lives on device 1, the default stream is device 0's
    EXPECT_EQ(HcclBroadcast(buf.get(), 8, HCCL_DATA_TYPE_FP32, 2, comms[0], nullptr), HCCL_E_PARA);
    EXPECT_EQ(HcclSend(buf.get(), 8, HCCL_DATA_TYPE_FP32, 0, comms[0], nullptr), HCCL_E_PARA);  // to itself
    EXPECT_EQ(HcclAlltoAll(buf.get(), 2, HCCL_DATA_TYPE_FP32, buf.get(), 2, HCCL_DATA_TYPE_FP32, comms[0], nullptr),
              HCCL_E_PARA);
    uint32_t size = 0;
    EXPECT_EQ(HcclGetRankSize(comms[0], nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclGetRankSize(&bogus, &size), HCCL_E_PARA);
    EXPECT_EQ(buf.read<float>(), std::vector<float>(8, 1.0f));
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(HcclCommDestroy(comms[0]), HCCL_SUCCESS);
    EXPECT_EQ(HcclCommDestroy(comms[0]), HCCL_E_PARA);
    EXPECT_EQ(HcclCommDestroy(comms[1]), HCCL_SUCCESS);
}

TEST(HcclInProcess, MismatchedCountsFailOnEveryRankAsynchronously) {
    int32_t devices[2] = {0, 1};
    HcclComm comms[2];
    ASSERT_EQ(HcclCommInitAll(2, devices, comms), HCCL_SUCCESS);
    std::vector<std::thread> threads;
    std::vector<HcclResult> async(2, HCCL_SUCCESS);
    for (uint32_t r = 0; r < 2; ++r) {
        threads.emplace_back([&, r] {
            ASSERT_EQ(aclrtSetDevice(static_cast<int32_t>(r)), ACL_SUCCESS);
            DeviceBuffer buf(std::vector<float>(8, 1.0f));
            ASSERT_EQ(HcclAllReduce(buf.get(), buf.get(), r == 0 ? 8 : 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
                                    comms[r], nullptr),
                      HCCL_SUCCESS);
            // The failed collective fails the synchronisation (hccl_disagreement_test.cpp checks the message).
            ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_INTERNAL_ERROR);
            EXPECT_EQ(buf.read<float>(), std::vector<float>(8, 1.0f));
            ASSERT_EQ(HcclGetCommAsyncError(comms[r], &async[r]), HCCL_SUCCESS);
            EXPECT_EQ(aclrtResetDevice(static_cast<int32_t>(r)), ACL_SUCCESS);
        });
    }
    for (auto &t : threads) t.join();
    EXPECT_EQ(async[0], HCCL_E_PARA);
    EXPECT_EQ(async[1], HCCL_E_PARA);
    for (HcclComm c : comms) HcclCommDestroy(c);
}
