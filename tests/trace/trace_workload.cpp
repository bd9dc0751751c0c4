// A vnpu workload for the mspti-trace tests and benchmark: per rank, set-up copies, then
// iterations of aclnnAdd kernels (and an all-reduce when WORLD_SIZE > 1) inside mstx ranges.
//
//   trace_workload [--warmup W] [--iters N] [--kernels K] [--hold] [--loop] [--own-client]
//
// Ranks come from vnpu.run's environment (RANK, WORLD_SIZE, LOCAL_RANK, VNPU_HCCL_ROOT_INFO).
// --hold: after the work, print "READY <pid>" and wait for stdin to close. --loop: after the work,
// print "READY" and go on iterating until killed. --phase2: after "READY", wait for a line on
// stdin and run the iterations again. --own-client: register an msPTI client of
// its own and print how many kernel records it got.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "hccl/hccl.h"
#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"

namespace {

#define CHECK(call)                                                              \
    do {                                                                         \
        long rc_ = static_cast<long>(call);                                      \
        if (rc_ != 0) {                                                          \
            std::fprintf(stderr, "%s failed: %ld\n", #call, rc_);                \
            std::exit(1);                                                        \
        }                                                                        \
    } while (0)

int env_int(const char *name, int fallback) {
    const char *v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

std::atomic<uint64_t> g_own_kernels{0};

void own_request(uint8_t **buffer, size_t *size, size_t *maxNumRecords) {
    *size = 1 << 20;
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, *size));
    *maxNumRecords = 0;
}

void own_complete(uint8_t *buffer, size_t, size_t validSize) {
    msptiActivity *rec = nullptr;
    while (msptiActivityGetNextRecord(buffer, validSize, &rec) == MSPTI_SUCCESS && rec != nullptr)
        if (rec->kind == MSPTI_ACTIVITY_KIND_KERNEL) g_own_kernels.fetch_add(1);
    std::free(buffer);
}

struct Tensors {
    void *a = nullptr, *b = nullptr, *out = nullptr;
    aclTensor *ta = nullptr, *tb = nullptr, *tout = nullptr;
    aclScalar *alpha = nullptr;
};

constexpr int64_t kElems = 256;

aclTensor *make_tensor(void *dev) {
    const int64_t shape[] = {kElems};
    const int64_t strides[] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, dev);
}

void add_kernel(Tensors &t, aclrtStream stream) {
    uint64_t ws = 0;
    aclOpExecutor *executor = nullptr;
    CHECK(aclnnAddGetWorkspaceSize(t.ta, t.tb, t.alpha, t.tout, &ws, &executor));
    CHECK(aclnnAdd(nullptr, 0, executor, stream));
}

}  // namespace

int main(int argc, char **argv) {
    int warmup = 1, iters = 3, kernels = 4;
    bool hold = false, loop = false, own = false, phase2 = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--warmup" && i + 1 < argc) warmup = std::atoi(argv[++i]);
        else if (a == "--iters" && i + 1 < argc) iters = std::atoi(argv[++i]);
        else if (a == "--kernels" && i + 1 < argc) kernels = std::atoi(argv[++i]);
        else if (a == "--hold") hold = true;
        else if (a == "--loop") loop = true;
        else if (a == "--own-client") own = true;
        else if (a == "--phase2") phase2 = true;
        else {
            std::fprintf(stderr, "unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    int rank = env_int("RANK", 0), world = env_int("WORLD_SIZE", 1), local = env_int("LOCAL_RANK", rank);
    msptiSubscriberHandle sub = nullptr;
    if (own) {
        CHECK(msptiSubscribe(&sub, nullptr, nullptr));
        CHECK(msptiActivityRegisterCallbacks(own_request, own_complete));
        CHECK(msptiActivityEnable(MSPTI_ACTIVITY_KIND_KERNEL));
    }
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(local));
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream));
    HcclComm comm = nullptr;
    if (world > 1) {
        const char *hex = std::getenv("VNPU_HCCL_ROOT_INFO");
        if (hex == nullptr) {
            std::fprintf(stderr, "WORLD_SIZE > 1 needs VNPU_HCCL_ROOT_INFO (run under vnpu.run)\n");
            return 2;
        }
        HcclRootInfo info{};
        for (size_t i = 0; hex[2 * i] != '\0' && hex[2 * i + 1] != '\0' && i < sizeof info.internal; ++i) {
            char byte[3] = {hex[2 * i], hex[2 * i + 1], 0};
            info.internal[i] = static_cast<char>(std::strtoul(byte, nullptr, 16));
        }
        CHECK(HcclCommInitRootInfo(static_cast<uint32_t>(world), &info, static_cast<uint32_t>(rank), &comm));
    }

    const size_t bytes = kElems * sizeof(float);
    std::vector<float> host(kElems, 1.0f);
    Tensors t;
    CHECK(aclrtMalloc(&t.a, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&t.b, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&t.out, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(t.a, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(t.b, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemset(t.out, bytes, 0, bytes));
    t.ta = make_tensor(t.a);
    t.tb = make_tensor(t.b);
    t.tout = make_tensor(t.out);
    float alpha = 1.0f;
    t.alpha = aclCreateScalar(&alpha, ACL_FLOAT);

    long done_kernels = 0, done_collectives = 0;
    auto iteration = [&](const char *range) {
        mstxRangeId id = mstxRangeStartA(range, nullptr);
        for (int k = 0; k < kernels; ++k) add_kernel(t, stream);
        done_kernels += kernels;
        if (comm != nullptr) {
            CHECK(HcclAllReduce(t.out, t.out, kElems, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
            ++done_collectives;
        }
        mstxMarkA("iteration", nullptr);
        CHECK(aclrtSynchronizeStream(stream));
        mstxRangeEnd(id);
    };
    for (int i = 0; i < warmup; ++i) iteration("warmup");
    for (int i = 0; i < iters; ++i) iteration("step");
    CHECK(aclrtMemcpy(host.data(), bytes, t.out, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    std::printf("workload: rank %d kernels %ld collectives %ld ranges %d marks %d\n", rank, done_kernels,
                done_collectives, warmup + iters, warmup + iters);
    std::fflush(stdout);
    if (hold || loop || phase2) {
        std::printf("READY %d\n", static_cast<int>(getpid()));
        std::fflush(stdout);
        if (loop) {
            for (;;) iteration("step");
        }
        char c;
        while (read(0, &c, 1) > 0 && !(phase2 && c == '\n')) {
        }
        if (phase2) {
            for (int i = 0; i < iters; ++i) iteration("step");
            std::printf("phase 2: kernels %d\n", iters * kernels);
            std::fflush(stdout);
        }
    }
    aclDestroyTensor(t.ta);
    aclDestroyTensor(t.tb);
    aclDestroyTensor(t.tout);
    aclDestroyScalar(t.alpha);
    CHECK(aclrtFree(t.a));
    CHECK(aclrtFree(t.b));
    CHECK(aclrtFree(t.out));
    if (comm != nullptr) CHECK(HcclCommDestroy(comm));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(local));
    aclFinalize();
    if (own) {
        CHECK(msptiActivityFlushAll(1));
        std::printf("own client: %llu kernel records\n", static_cast<unsigned long long>(g_own_kernels.load()));
        CHECK(msptiUnsubscribe(sub));
    }
    return 0;
}
