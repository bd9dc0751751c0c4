// HCCL records (after msPTI's sample mspti_hccl_activity): one communicator over 8 devices made
// with HcclCommInitAll, one thread per device, an 8-float SUM all-reduce on each.
#include <cinttypes>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "common/helper_mspti.h"
#include "common/util_acl.h"
#include "hccl/hccl.h"
#include "hccl/hccl_types.h"

#define HCCL_CHECK(call) \
    do { \
        HcclResult ret_ = (call); \
        if (ret_ != HCCL_SUCCESS) { \
            std::printf("%s call failed, error code: %d\n", #call, static_cast<int>(ret_)); \
            return ret_; \
        } \
    } while (0)

namespace {

constexpr uint32_t kDevices = 8;
constexpr uint64_t kCount = 8;

int RunRank(int32_t device, HcclComm comm) {
    ACL_CALL(aclrtSetDevice(device));
    aclrtStream stream = nullptr;
    ACL_CALL(aclrtCreateStream(&stream));
    const size_t bytes = kCount * sizeof(float);
    void *host = nullptr, *send = nullptr, *recv = nullptr;
    ACL_CALL(aclrtMallocHost(&host, bytes));
    for (uint64_t i = 0; i < kCount; ++i) static_cast<float *>(host)[i] = static_cast<float>(i);
    ACL_CALL(aclrtMalloc(&send, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_CALL(aclrtMalloc(&recv, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_CALL(aclrtMemcpy(send, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    HCCL_CHECK(HcclAllReduce(send, recv, kCount, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
    ACL_CALL(aclrtSynchronizeStream(stream));
    ACL_CALL(aclrtMemcpy(host, bytes, recv, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (uint64_t i = 0; i < kCount; ++i)
        std::printf("rankId: %d, i: %" PRIu64 ", value: %.0f\n", device, i, static_cast<float *>(host)[i]);
    ACL_CALL(aclrtFreeHost(host));
    ACL_CALL(aclrtFree(send));
    ACL_CALL(aclrtFree(recv));
    ACL_CALL(aclrtDestroyStream(stream));
    ACL_CALL(aclrtResetDevice(device));
    return 0;
}

}  // namespace

int main() {
    sample::InitMspti();
    MSPTI_CALL(msptiActivityEnable(MSPTI_ACTIVITY_KIND_HCCL));
    ACL_CALL(aclInit(nullptr));
    int32_t devices[kDevices];
    for (uint32_t i = 0; i < kDevices; ++i) {
        devices[i] = static_cast<int32_t>(i);
        ACL_CALL(aclrtSetDevice(devices[i]));
    }
    HcclComm comms[kDevices];
    HCCL_CHECK(HcclCommInitAll(kDevices, devices, comms));
    std::vector<std::thread> threads;
    std::vector<int> results(kDevices, 0);
    for (uint32_t i = 0; i < kDevices; ++i)
        threads.emplace_back([i, &devices, &comms, &results] { results[i] = RunRank(devices[i], comms[i]); });
    for (auto &t : threads) t.join();
    for (uint32_t i = 0; i < kDevices; ++i) HCCL_CHECK(HcclCommDestroy(comms[i]));
    aclFinalize();
    sample::DeInitMspti();
    for (int r : results)
        if (r != 0) return 1;
    return 0;
}
