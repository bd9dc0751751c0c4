// libmspti preloaded over the virtual NPU: kernels of aclnn operators, memory records, markers
// on streams and (when the vnpu has HCCL) all-reduces across 8 devices in one process and across
// 4 processes joined through root info.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"
#include "record_collector.h"
#ifdef VNPU_HAS_HCCL
#include "hccl/hccl.h"
#endif

extern char **environ;

using mspti_test::Collector;

namespace {

class Vnpu : public ::testing::Test {
protected:
    void SetUp() override {
        Collector::instance().install();
        ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
        ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
        Collector::instance().clear();
    }
    void TearDown() override {
        for (int k = MSPTI_ACTIVITY_KIND_MARKER; k < MSPTI_ACTIVITY_KIND_COUNT; ++k)
            msptiActivityDisable(static_cast<msptiActivityKind>(k));
        aclrtDestroyStream(stream_);
        aclrtResetDevice(0);
    }
    template <typename T>
    std::vector<T> take(msptiActivityKind kind) {
        return Collector::instance().take<T>(kind);
    }
    aclrtStream stream_ = nullptr;
};

uint32_t stream_id(aclrtStream stream) {
    int32_t id = -1;
    EXPECT_EQ(aclrtStreamGetId(stream, &id), ACL_SUCCESS);
    return static_cast<uint32_t>(id);
}

struct Vectors {
    void *a = nullptr, *b = nullptr, *c = nullptr;
    aclTensor *ta = nullptr, *tb = nullptr, *tc = nullptr;
    aclScalar *alpha = nullptr;
    float alphaValue = 2.0f;
    explicit Vectors(int64_t n) {
        const int64_t shape[] = {n}, strides[] = {1};
        for (void **p : {&a, &b, &c}) EXPECT_EQ(aclrtMalloc(p, n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), 0);
        ta = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, a);
        tb = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, b);
        tc = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, c);
        alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
    }
    ~Vectors() {
        aclDestroyTensor(ta);
        aclDestroyTensor(tb);
        aclDestroyTensor(tc);
        aclDestroyScalar(alpha);
        for (void *p : {a, b, c}) aclrtFree(p);
    }
    aclnnStatus add(aclrtStream stream) {
        uint64_t workspace = 0;
        aclOpExecutor *executor = nullptr;
        aclnnStatus s = aclnnAddGetWorkspaceSize(ta, tb, alpha, tc, &workspace, &executor);
        return s != 0 ? s : aclnnAdd(nullptr, 0, executor, stream);
    }
};

TEST_F(Vnpu, EveryAclnnKernelGivesOneKernelRecordJoinedToItsApi) {
    Vectors v(64);
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_KERNEL), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_API), MSPTI_SUCCESS);
    constexpr int kKernels = 100;
    for (int i = 0; i < kKernels; ++i) ASSERT_EQ(v.add(stream_), 0);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    auto kernels = take<msptiActivityKernel>(MSPTI_ACTIVITY_KIND_KERNEL);
    auto apis = take<msptiActivityApi>(MSPTI_ACTIVITY_KIND_API);
    ASSERT_EQ(kernels.size(), static_cast<size_t>(kKernels));
    ASSERT_EQ(apis.size(), static_cast<size_t>(kKernels));
    for (int i = 0; i < kKernels; ++i) {
        const auto &k = kernels[i];
        EXPECT_LT(k.start, k.end);
        EXPECT_EQ(k.ds.deviceId, 0u);
        EXPECT_EQ(k.ds.streamId, stream_id(stream_));
        EXPECT_EQ(std::strncmp(k.type, "KERNEL", 6), 0) << k.type;
        EXPECT_EQ(apis[i].correlationId, k.correlationId);
        EXPECT_STREQ(apis[i].name, "aclnnAdd_AxpyAiCore_Axpy");
        if (i > 0) {
            EXPECT_LE(kernels[i - 1].end, k.start);  // stream order
            EXPECT_EQ(k.correlationId, kernels[i - 1].correlationId + 2);
        }
    }
}

TEST_F(Vnpu, MemoryRecordsCarryTheDeviceAndSizes) {
    ASSERT_EQ(aclrtSetDevice(3), ACL_SUCCESS);
    for (auto kind : {MSPTI_ACTIVITY_KIND_MEMORY, MSPTI_ACTIVITY_KIND_MEMCPY, MSPTI_ACTIVITY_KIND_MEMSET})
        ASSERT_EQ(msptiActivityEnable(kind), MSPTI_SUCCESS);
    void *dev = nullptr;
    std::vector<char> host(4096, 1);
    ASSERT_EQ(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(dev, 4096, host.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemset(dev, 4096, 3, 1024), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(host.data(), 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(host[0], 3);
    ASSERT_EQ(aclrtFree(dev), ACL_SUCCESS);
    auto mem = take<msptiActivityMemory>(MSPTI_ACTIVITY_KIND_MEMORY);
    auto cpy = take<msptiActivityMemcpy>(MSPTI_ACTIVITY_KIND_MEMCPY);
    auto set = take<msptiActivityMemset>(MSPTI_ACTIVITY_KIND_MEMSET);
    ASSERT_EQ(mem.size(), 2u);
    ASSERT_EQ(cpy.size(), 2u);
    ASSERT_EQ(set.size(), 1u);
    EXPECT_EQ(mem[0].bytes, 4096u);
    EXPECT_EQ(mem[1].bytes, 4096u);
    EXPECT_EQ(mem[1].memoryOperationType, MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE);
    EXPECT_EQ(mem[0].deviceId, 3u);
    EXPECT_EQ(cpy[0].copyKind, MSPTI_ACTIVITY_MEMCPY_KIND_HTOD);
    EXPECT_EQ(cpy[1].copyKind, MSPTI_ACTIVITY_MEMCPY_KIND_DTOH);
    EXPECT_EQ(set[0].bytes, 1024u);
    EXPECT_EQ(set[0].value, 3u);
    EXPECT_EQ(cpy[0].correlationId, mem[0].correlationId + 1);
    ASSERT_EQ(aclrtResetDevice(3), ACL_SUCCESS);
}

TEST_F(Vnpu, RangeOnAStreamGivesFourMarkers) {
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
    mstxDomainHandle_t domain = mstxDomainCreateA("vnpu_test");
    ASSERT_NE(domain, nullptr);
    mstxRangeId id = mstxDomainRangeStartA(domain, "work", stream_);
    ASSERT_NE(id, 0u);
    Vectors v(16);
    ASSERT_EQ(v.add(stream_), 0);
    mstxDomainRangeEnd(domain, id);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    auto markers = take<msptiActivityMarker>(MSPTI_ACTIVITY_KIND_MARKER);
    ASSERT_EQ(markers.size(), 4u);
    int host = 0, device = 0;
    for (const auto &m : markers) {
        EXPECT_EQ(m.id, id);
        if (m.sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_HOST) {
            ++host;
        } else {
            ++device;
            EXPECT_EQ(m.objectId.ds.deviceId, 0u);
            EXPECT_EQ(m.objectId.ds.streamId, stream_id(stream_));
            EXPECT_STREQ(m.name, "");
            EXPECT_STREQ(m.domain, "");
        }
    }
    EXPECT_EQ(host, 2);
    EXPECT_EQ(device, 2);
}

#ifdef VNPU_HAS_HCCL
// One rank: all-reduce of {0..7} (SUM), checks the sums and returns its HCCL records.
void all_reduce_rank(int32_t device, HcclComm comm, uint32_t ranks) {
    ASSERT_EQ(aclrtSetDevice(device), ACL_SUCCESS);
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    std::vector<float> host(8);
    for (int i = 0; i < 8; ++i) host[i] = static_cast<float>(i);
    void *send = nullptr, *recv = nullptr;
    ASSERT_EQ(aclrtMalloc(&send, 32, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMalloc(&recv, 32, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(send, 32, host.data(), 32, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    ASSERT_EQ(HcclAllReduce(send, recv, 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream), HCCL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(host.data(), 32, recv, 32, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(host[i], static_cast<float>(i * ranks));
    aclrtFree(send);
    aclrtFree(recv);
    aclrtDestroyStream(stream);
    aclrtResetDevice(device);
}

void expect_hccl_records(const std::vector<msptiActivityHccl> &records, size_t n) {
    ASSERT_EQ(records.size(), n);
    for (const auto &r : records) {
        EXPECT_STREQ(r.name, "HcclAllReduce");
        EXPECT_LT(r.start, r.end);
        EXPECT_GT(r.bandWidth, 0.0);
        EXPECT_DOUBLE_EQ(r.bandWidth, 32.0 / static_cast<double>(r.end - r.start));
        EXPECT_NE(r.commName[0], '\0');
    }
}

TEST_F(Vnpu, EightDeviceAllReduceGivesEightHcclRecords) {
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_HCCL), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
    int32_t devices[8];
    HcclComm comms[8];
    for (int i = 0; i < 8; ++i) devices[i] = i;
    ASSERT_EQ(HcclCommInitAll(8, devices, comms), HCCL_SUCCESS);
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&, i] {
            all_reduce_rank(i, comms[i], 8);
            // The other ranks may wait in the all-reduce for this one: end every rank at once.
            if (::testing::Test::HasFatalFailure()) {
                std::fprintf(stderr, "rank %d failed: ending every rank\n", i);
                std::_Exit(1);
            }
        });
    }
    for (auto &t : threads) t.join();
    for (HcclComm c : comms) HcclCommDestroy(c);
    auto records = take<msptiActivityHccl>(MSPTI_ACTIVITY_KIND_HCCL);
    expect_hccl_records(records, 8);
    std::vector<bool> seen(8, false);
    for (const auto &r : records) {
        ASSERT_LT(r.ds.deviceId, 8u);
        seen[r.ds.deviceId] = true;
        EXPECT_STREQ(r.commName, records[0].commName);
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 8);
    EXPECT_TRUE(take<msptiActivityMarker>(MSPTI_ACTIVITY_KIND_MARKER).empty());  // internal markers stay internal
}

// The child side of the 4-process test: argv = <self> --rank R --root <hex of HcclRootInfo>.
int child_main(uint32_t rank, const std::string &hex) {
    HcclRootInfo root{};
    for (size_t i = 0; i < sizeof(root.internal) && 2 * i + 1 < hex.size(); ++i)
        root.internal[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
    Collector::instance().install();
    if (msptiActivityEnable(MSPTI_ACTIVITY_KIND_HCCL) != MSPTI_SUCCESS) return 10;
    if (aclrtSetDevice(static_cast<int32_t>(rank)) != ACL_SUCCESS) return 11;
    HcclComm comm = nullptr;
    if (HcclCommInitRootInfo(4, &root, rank, &comm) != HCCL_SUCCESS) return 12;
    all_reduce_rank(static_cast<int32_t>(rank), comm, 4);
    HcclCommDestroy(comm);
    auto records = Collector::instance().take<msptiActivityHccl>(MSPTI_ACTIVITY_KIND_HCCL);
    expect_hccl_records(records, 1);
    if (::testing::Test::HasFailure()) return 13;
    std::printf("rank %u: %zu HCCL record(s), bandwidth %f\n", rank, records.size(), records[0].bandWidth);
    return 0;
}

TEST(VnpuProcesses, FourProcessAllReduceThroughRootInfoGivesRecordsInEach) {
    HcclRootInfo root{};
    ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    std::string hex;
    char byte[3];
    for (char c : root.internal) {
        std::snprintf(byte, sizeof byte, "%02x", static_cast<unsigned char>(c));
        hex += byte;
    }
    std::vector<pid_t> children;
    for (int rank = 0; rank < 4; ++rank) {
        std::string r = std::to_string(rank);
        char self[] = "/proc/self/exe";
        char rank_flag[] = "--rank";
        char root_flag[] = "--root";
        char *argv[] = {self, rank_flag, r.data(), root_flag, hex.data(), nullptr};
        pid_t pid = 0;
        ASSERT_EQ(posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, environ), 0);
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child exit status " << status;
    }
}
#endif

}  // namespace

int main(int argc, char **argv) {
#ifdef VNPU_HAS_HCCL
    if (argc == 5 && std::strcmp(argv[1], "--rank") == 0)
        return child_main(static_cast<uint32_t>(std::stoul(argv[2])), argv[4]);
#endif
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
