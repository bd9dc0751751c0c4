// A vnpu workload for the mspti-trace tests and benchmark: per rank, set-up copies, then
// iterations of aclnnAdd kernels (and an all-reduce when WORLD_SIZE > 1) inside mstx ranges.
//
//   trace_workload [--warmup W] [--iters N] [--kernels K] [--hold] [--loop] [--own-client]
//   trace_workload --mix|--train [--iters N] [--layers L] [--width D]
//
// Ranks come from vnpu.run's environment (RANK, WORLD_SIZE, LOCAL_RANK, VNPU_HCCL_ROOT_INFO).
// --hold: after the work, print "READY <pid>" and wait for stdin to close. --loop: after the work,
// print "READY" and go on iterating until killed. --phase2: after "READY", wait for a line on
// stdin and run the iterations again. --own-client: register an msPTI client of
// its own and print how many kernel records it got. --mix: a training-step-like mix instead (the
// benchmark's kernel-heavy workload): per step L layers of matmul [64 x D] x [D x D], bias add,
// ReLU and scale (tens of us to ms each on the CPU), an all-reduce of the gradients (a one-rank
// communicator when WORLD_SIZE is 1), host-to-device and device-to-host copies, inside mstx ranges.
// --launches N: the joins' known answer (test_trace_joins.py): 2 aclnnAdd launched and waited for,
// then, inside the host range "launched", N aclnnMatmul launched and not waited for (they run
// after the range ends), each in a range "on_device" with the stream (a host and a device half),
// then 2 aclnnAdd launched after the range, and aclrtSynchronizeDevice.
// --launches N --collectives M: also M all-reduces (a one-rank communicator) launched inside the
// range after the matmuls, and two collectives launched outside it: a broadcast before the range
// that runs inside it (held by a gate on the stream until the range has started, then waited
// for) and a reduce after the range. Everything launched inside the range is held by a second gate until the range has ended,
// so it all runs after the range.
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_relu.h"
#include "hccl/hccl.h"
#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"

namespace {

#define CHECK(call) \
    do { \
        long rc_ = static_cast<long>(call); \
        if (rc_ != 0) { \
            std::fprintf(stderr, "%s failed: %ld\n", #call, rc_); \
            std::exit(1); \
        } \
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

aclTensor *make_2d(void *dev, int64_t rows, int64_t cols) {
    const int64_t shape[] = {rows, cols};
    const int64_t strides[] = {cols, 1};
    return aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, dev);
}

void *device_buffer(size_t bytes, const std::vector<float> &init) {
    void *p = nullptr;
    CHECK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(p, bytes, init.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    return p;
}

// The training-step-like mix (--mix): returns the kernels launched.
long run_mix(int steps, int layers, int64_t width, HcclComm comm, aclrtStream stream) {
    constexpr int64_t kBatch = 64;
    const size_t act_bytes = static_cast<size_t>(kBatch * width) * sizeof(float);
    const size_t w_bytes = static_cast<size_t>(width * width) * sizeof(float);
    std::vector<float> host_act(static_cast<size_t>(kBatch * width), 0.01f);
    std::vector<float> host_w(static_cast<size_t>(width * width), 0.001f);
    void *x = device_buffer(act_bytes, host_act), *y = device_buffer(act_bytes, host_act);
    void *bias = device_buffer(act_bytes, host_act), *w = device_buffer(w_bytes, host_w);
    aclTensor *tx = make_2d(x, kBatch, width), *ty = make_2d(y, kBatch, width);
    aclTensor *tb = make_2d(bias, kBatch, width), *tw = make_2d(w, width, width);
    float one = 1.0f, half = 0.5f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    aclTensor *scale = nullptr;
    void *scale_dev = device_buffer(act_bytes, std::vector<float>(static_cast<size_t>(kBatch * width), half));
    scale = make_2d(scale_dev, kBatch, width);
    long kernels = 0;
    for (int step = 0; step < steps; ++step) {
        mstxRangeId id = mstxRangeStartA("train_step", nullptr);
        CHECK(aclrtMemcpyAsync(x, act_bytes, host_act.data(), act_bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
        for (int l = 0; l < layers; ++l) {
            uint64_t ws = 0;
            aclOpExecutor *ex = nullptr;
            CHECK(aclnnMatmulGetWorkspaceSize(tx, tw, ty, 0, &ws, &ex));
            CHECK(aclnnMatmul(nullptr, 0, ex, stream));
            CHECK(aclnnAddGetWorkspaceSize(ty, tb, alpha, tx, &ws, &ex));
            CHECK(aclnnAdd(nullptr, 0, ex, stream));
            CHECK(aclnnReluGetWorkspaceSize(tx, ty, &ws, &ex));
            CHECK(aclnnRelu(nullptr, 0, ex, stream));
            CHECK(aclnnMulGetWorkspaceSize(ty, scale, tx, &ws, &ex));
            CHECK(aclnnMul(nullptr, 0, ex, stream));
            kernels += 4;
        }
        if (comm != nullptr)
            CHECK(HcclAllReduce(w, w, width * width, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
        CHECK(aclrtMemcpyAsync(host_act.data(), act_bytes, x, act_bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
        mstxMarkA("step_done", nullptr);
        CHECK(aclrtSynchronizeStream(stream));
        mstxRangeEnd(id);
    }
    for (aclTensor *t : {tx, ty, tb, tw, scale}) aclDestroyTensor(t);
    aclDestroyScalar(alpha);
    for (void *p : {x, y, bias, w, scale_dev}) CHECK(aclrtFree(p));
    return kernels;
}

// The training loop (--train): per step, mstx ranges "step" > "data" (a host-to-device copy of the
// batch, waited for), "compute" (matmul and add per layer), "sync" (the all-reduce of the
// gradients, waited for). The analysis tests slow one rank with VNPU_FAULT_* and check that
// `mspti-trace analyze` names that rank, phase or link.
long run_train(int steps, int layers, int64_t width, HcclComm comm, aclrtStream stream) {
    constexpr int64_t kBatch = 64;
    const size_t act_bytes = static_cast<size_t>(kBatch * width) * sizeof(float);
    const size_t w_bytes = static_cast<size_t>(width * width) * sizeof(float);
    std::vector<float> host_act(static_cast<size_t>(kBatch * width), 0.01f);
    std::vector<float> host_w(static_cast<size_t>(width * width), 0.001f);
    void *x = device_buffer(act_bytes, host_act), *y = device_buffer(act_bytes, host_act);
    void *w = device_buffer(w_bytes, host_w);
    aclTensor *tx = make_2d(x, kBatch, width), *ty = make_2d(y, kBatch, width), *tw = make_2d(w, width, width);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    long kernels = 0;
    for (int step = 0; step < steps; ++step) {
        mstxRangeId sid = mstxRangeStartA("step", nullptr);
        mstxRangeId id = mstxRangeStartA("data", nullptr);
        CHECK(aclrtMemcpyAsync(x, act_bytes, host_act.data(), act_bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
        CHECK(aclrtSynchronizeStream(stream));
        mstxRangeEnd(id);
        id = mstxRangeStartA("compute", nullptr);
        for (int l = 0; l < layers; ++l) {
            uint64_t ws = 0;
            aclOpExecutor *ex = nullptr;
            CHECK(aclnnMatmulGetWorkspaceSize(tx, tw, ty, 0, &ws, &ex));
            CHECK(aclnnMatmul(nullptr, 0, ex, stream));
            CHECK(aclnnAddGetWorkspaceSize(ty, tx, alpha, tx, &ws, &ex));
            CHECK(aclnnAdd(nullptr, 0, ex, stream));
            kernels += 2;
        }
        mstxRangeEnd(id);
        id = mstxRangeStartA("sync", nullptr);
        if (comm != nullptr)
            CHECK(HcclAllReduce(w, w, width * width, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
        CHECK(aclrtSynchronizeStream(stream));
        mstxRangeEnd(id);
        mstxRangeEnd(sid);
    }
    for (aclTensor *t : {tx, ty, tw}) aclDestroyTensor(t);
    aclDestroyScalar(alpha);
    for (void *p : {x, y, w}) CHECK(aclrtFree(p));
    return kernels;
}

// A host function in stream order that holds the stream until open() (aclrtLaunchHostFunc).
class Gate {
public:
    void launch(aclrtStream stream) { CHECK(aclrtLaunchHostFunc(stream, &Gate::wait, this)); }
    void open() {
        std::lock_guard<std::mutex> lock(mutex_);
        open_ = true;
        cv_.notify_all();
    }

private:
    static void wait(void *self) {
        Gate &g = *static_cast<Gate *>(self);
        std::unique_lock<std::mutex> lock(g.mutex_);
        g.cv_.wait(lock, [&g] { return g.open_; });
    }
    std::mutex mutex_;
    std::condition_variable cv_;
    bool open_ = false;
};

// --launches N [--collectives M]: returns the kernels launched.
long run_launches(int n, int collectives, aclrtStream stream) {
    constexpr int64_t kBatch = 64, kWidth = 256;
    const size_t act_bytes = static_cast<size_t>(kBatch * kWidth) * sizeof(float);
    const size_t w_bytes = static_cast<size_t>(kWidth * kWidth) * sizeof(float);
    std::vector<float> host_act(static_cast<size_t>(kBatch * kWidth), 0.01f);
    std::vector<float> host_w(static_cast<size_t>(kWidth * kWidth), 0.001f);
    void *x = device_buffer(act_bytes, host_act), *y = device_buffer(act_bytes, host_act);
    void *w = device_buffer(w_bytes, host_w);
    aclTensor *tx = make_2d(x, kBatch, kWidth), *ty = make_2d(y, kBatch, kWidth), *tw = make_2d(w, kWidth, kWidth);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    auto add = [&] {
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        CHECK(aclnnAddGetWorkspaceSize(tx, tx, alpha, ty, &ws, &ex));
        CHECK(aclnnAdd(nullptr, 0, ex, stream));
    };
    HcclComm comm = nullptr;
    Gate before_range, in_range;
    auto all_reduce = [&] { CHECK(HcclAllReduce(w, w, kWidth, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream)); };
    if (collectives > 0) {
        int32_t dev = 0;
        CHECK(aclrtGetDevice(&dev));
        CHECK(HcclCommInitAll(1, &dev, &comm));
    }
    add();
    add();
    CHECK(aclrtSynchronizeStream(stream));
    if (collectives > 0) {
        before_range.launch(stream);
        // Launched outside the range, runs inside it.
        CHECK(HcclBroadcast(w, kWidth, HCCL_DATA_TYPE_FP32, 0, comm, stream));
    }
    mstxRangeId outer = mstxRangeStartA("launched", nullptr);
    if (collectives > 0) {
        before_range.open();
        CHECK(aclrtSynchronizeStream(stream));
        in_range.launch(stream);
    }
    for (int i = 0; i < n; ++i) {
        mstxRangeId id = mstxRangeStartA("on_device", stream);
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        CHECK(aclnnMatmulGetWorkspaceSize(tx, tw, ty, 0, &ws, &ex));
        CHECK(aclnnMatmul(nullptr, 0, ex, stream));
        mstxRangeEnd(id);
    }
    for (int i = 0; i < collectives; ++i) all_reduce();  // launched inside, run after the range
    mstxRangeEnd(outer);
    if (collectives > 0) in_range.open();
    add();
    add();
    if (collectives > 0)  // launched and run after the range
        CHECK(HcclReduce(w, w, kWidth, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 0, comm, stream));
    CHECK(aclrtSynchronizeDevice());
    if (comm != nullptr) CHECK(HcclCommDestroy(comm));
    for (aclTensor *t : {tx, ty, tw}) aclDestroyTensor(t);
    aclDestroyScalar(alpha);
    for (void *p : {x, y, w}) CHECK(aclrtFree(p));
    return n + 4;
}

}  // namespace

int main(int argc, char **argv) {
    int warmup = 1, iters = 3, kernels = 4;
    bool hold = false, loop = false, own = false, phase2 = false, mix = false, train = false;
    int launches = -1, collectives = 0;
    int layers = 8;
    int64_t width = 256;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--warmup" && i + 1 < argc)
            warmup = std::atoi(argv[++i]);
        else if (a == "--iters" && i + 1 < argc)
            iters = std::atoi(argv[++i]);
        else if (a == "--kernels" && i + 1 < argc)
            kernels = std::atoi(argv[++i]);
        else if (a == "--hold")
            hold = true;
        else if (a == "--loop")
            loop = true;
        else if (a == "--own-client")
            own = true;
        else if (a == "--phase2")
            phase2 = true;
        else if (a == "--mix")
            mix = true;
        else if (a == "--train")
            train = true;
        else if (a == "--launches" && i + 1 < argc)
            launches = std::atoi(argv[++i]);
        else if (a == "--collectives" && i + 1 < argc)
            collectives = std::atoi(argv[++i]);
        else if (a == "--layers" && i + 1 < argc)
            layers = std::atoi(argv[++i]);
        else if (a == "--width" && i + 1 < argc)
            width = std::atoll(argv[++i]);
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

    if (launches >= 0) {
        long k = run_launches(launches, collectives, stream);
        std::printf("workload: rank %d launches kernels %ld collectives %d\n", rank, k,
                    collectives > 0 ? collectives + 2 : 0);
        CHECK(aclrtDestroyStream(stream));
        CHECK(aclrtResetDevice(local));
        aclFinalize();
        return 0;
    }
    if (mix || train) {
        HcclComm one = nullptr;
        if (comm == nullptr) {
            int32_t dev = local;
            CHECK(HcclCommInitAll(1, &dev, &one));
        }
        long k = (mix ? run_mix : run_train)(iters, layers, width, comm != nullptr ? comm : one, stream);
        std::printf("workload: rank %d %s kernels %ld collectives %d steps %d\n", rank, mix ? "mix" : "train", k, iters,
                    iters);
        if (one != nullptr) CHECK(HcclCommDestroy(one));
        if (comm != nullptr) CHECK(HcclCommDestroy(comm));
        CHECK(aclrtDestroyStream(stream));
        CHECK(aclrtResetDevice(local));
        aclFinalize();
        return 0;
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
            // Paced (a load generator, not a wait): the tests that kill it read the file as it
            // grows, and at full speed it grows by tens of MB a second.
            for (;;) {
                iteration("step");
                usleep(1000);
            }
        }
        char c;
        while (read(0, &c, 1) > 0 && !(phase2 && c == '\n')) {}
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
