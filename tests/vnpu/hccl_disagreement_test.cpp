// Collectives whose ranks disagree (count, data type, reduction, root) or where a rank never comes fail
// loudly: on every rank that runs them, the next aclrtSynchronizeStream fails (once), aclGetRecentErrMsg
// and vnpuHcclGetCommErrorMessage say which ranks hold which values, and HcclGetCommAsyncError is
// HCCL_E_PARA or HCCL_E_TIMEOUT. In process (HcclCommInitAll), 2 and 4 ranks; rank 1 is the odd one out.
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "acl/error_codes/rt_error_codes.h"
#include "hccl/hccl.h"
#include "test_support.h"
#include "vnpu/vnpu_hccl.h"

using vnpu_test::DeviceBuffer;

namespace {

constexpr size_t kElems = 4096;

using Issue = std::function<HcclResult(uint32_t rank, void *buf, HcclComm comm, aclrtStream stream)>;

/// Runs `issue` on ranks 0..n-1 except `absent`; every rank that ran it must fail with `code` and a
/// message of "<code name>: <api> on rank r of n (communicator <name>): " + `tail`.
void expect_failure(uint32_t n, uint32_t absent, const Issue &issue, HcclResult code, const std::string &api,
                    const std::string &tail) {
    std::vector<int32_t> devices(n);
    for (uint32_t i = 0; i < n; ++i) devices[i] = static_cast<int32_t>(i);
    std::vector<HcclComm> comms(n);
    ASSERT_EQ(HcclCommInitAll(n, devices.data(), comms.data()), HCCL_SUCCESS);
    char name[128] = {};
    ASSERT_EQ(HcclGetCommName(comms[0], name), HCCL_SUCCESS);
    const std::string code_name = code == HCCL_E_PARA ? "HCCL_E_PARA" : "HCCL_E_TIMEOUT";
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < n; ++r) {
        if (r == absent) continue;
        threads.emplace_back([&, r] {
            ASSERT_EQ(aclrtSetDevice(static_cast<int32_t>(r)), ACL_SUCCESS);
            aclrtStream stream = nullptr;
            ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
            {
                DeviceBuffer buf(std::vector<float>(kElems, 1.0f));
                EXPECT_EQ(issue(r, buf.get(), comms[r], stream), HCCL_SUCCESS);  // enqueued: fails on the stream
                const std::string want = code_name + ": " + api + " on rank " + std::to_string(r) + " of " +
                                         std::to_string(n) + " (communicator " + name + "): " + tail;
                EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_INTERNAL_ERROR) << "rank " << r;
                const char *recent = aclGetRecentErrMsg();
                EXPECT_EQ(std::string(recent != nullptr ? recent : "(none)"), want) << "rank " << r;
                EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << "reported once, rank " << r;
                HcclResult async = HCCL_SUCCESS;
                EXPECT_EQ(HcclGetCommAsyncError(comms[r], &async), HCCL_SUCCESS);
                EXPECT_EQ(async, code) << "rank " << r;
                char message[1024] = {};
                EXPECT_EQ(vnpuHcclGetCommErrorMessage(comms[r], message, sizeof message), HCCL_SUCCESS);
                EXPECT_EQ(std::string(message), want) << "rank " << r;
                if (code == HCCL_E_PARA && api == "HcclAllReduce") {
                    EXPECT_EQ(buf.read<float>(), std::vector<float>(kElems, 1.0f)) << "nothing was summed";
                }
            }
            EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
            EXPECT_EQ(aclrtResetDevice(static_cast<int32_t>(r)), ACL_SUCCESS);
        });
    }
    for (auto &t : threads) t.join();
    for (HcclComm c : comms) EXPECT_EQ(HcclCommDestroy(c), HCCL_SUCCESS);
}

/// "rank 1" against the others: "<a> on rank 0, <b> on rank 1" (2 ranks), "<a> on ranks 0, 2, 3, <b> on rank 1" (4).
std::string split(uint32_t n, const std::string &common, const std::string &odd) {
    return n == 2 ? common + " on rank 0, " + odd + " on rank 1" : common + " on ranks 0, 2, 3, " + odd + " on rank 1";
}

constexpr uint32_t kNobody = 99;

class Disagreement : public ::testing::TestWithParam<uint32_t> {};

}  // namespace

TEST_P(Disagreement, CountsDiffer) {
    const uint32_t n = GetParam();
    expect_failure(
        n, kNobody,
        [](uint32_t r, void *buf, HcclComm comm, aclrtStream s) {
            return HcclAllReduce(buf, buf, r == 1 ? 4096 : 1024, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, s);
        },
        HCCL_E_PARA, "HcclAllReduce", "the ranks disagree: count differs: " + split(n, "1024", "4096"));
}

TEST_P(Disagreement, DataTypesDiffer) {
    const uint32_t n = GetParam();
    expect_failure(
        n, kNobody,
        [](uint32_t r, void *buf, HcclComm comm, aclrtStream s) {
            return HcclAllReduce(buf, buf, 1024, r == 1 ? HCCL_DATA_TYPE_FP16 : HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
                                 comm, s);
        },
        HCCL_E_PARA, "HcclAllReduce", "the ranks disagree: data type differs: " + split(n, "fp32", "fp16"));
}

TEST_P(Disagreement, ReductionsDiffer) {
    const uint32_t n = GetParam();
    expect_failure(
        n, kNobody,
        [](uint32_t r, void *buf, HcclComm comm, aclrtStream s) {
            return HcclAllReduce(buf, buf, 1024, HCCL_DATA_TYPE_FP32, r == 1 ? HCCL_REDUCE_MAX : HCCL_REDUCE_SUM, comm,
                                 s);
        },
        HCCL_E_PARA, "HcclAllReduce", "the ranks disagree: reduction differs: " + split(n, "sum", "max"));
}

TEST_P(Disagreement, RootsDiffer) {
    const uint32_t n = GetParam();
    expect_failure(
        n, kNobody,
        [](uint32_t r, void *buf, HcclComm comm, aclrtStream s) {
            return HcclBroadcast(buf, 1024, HCCL_DATA_TYPE_FP32, r == 1 ? 1 : 0, comm, s);
        },
        HCCL_E_PARA, "HcclBroadcast", "the ranks disagree: root differs: " + split(n, "0", "1"));
}

TEST_P(Disagreement, ARankThatNeverComesTimesOutEveryOther) {
    const uint32_t n = GetParam();
    setenv("HCCL_EXEC_TIMEOUT", "1", 1);  // before any thread of this test reads it
    expect_failure(
        n, n - 1,
        [](uint32_t, void *buf, HcclComm comm, aclrtStream s) {
            return HcclAllReduce(buf, buf, 1024, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, s);
        },
        HCCL_E_TIMEOUT, "HcclAllReduce",
        "rank " + std::to_string(n - 1) + " did not reach it within HCCL_EXEC_TIMEOUT (1 s)");
    unsetenv("HCCL_EXEC_TIMEOUT");
}

INSTANTIATE_TEST_SUITE_P(Ranks, Disagreement, ::testing::Values(2u, 4u));
