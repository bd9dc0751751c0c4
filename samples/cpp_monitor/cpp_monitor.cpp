// cpp_monitor: the C++ Monitor API with a KernelMonitor and an MstxMonitor running together.
//
// Runs an element-wise Add on the virtual NPU a few times inside mstx ranges, marks each step,
// and prints what the monitors deliver: every kernel record (when libmspti.so interposes the
// runtime, e.g. under LD_PRELOAD=libmspti.so) and every mark and paired range.
// Run: build/bin/cpp_monitor
#include <cinttypes>
#include <cstdio>
#include <mutex>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "mspti/monitor.h"
#include "mstx/ms_tools_ext.h"

namespace {

// Callbacks run on the monitors' delivery thread; printing there is fine for a sample.
class MstxPrinter : public mspti::MarkCallback, public mspti::RangeCallback {
public:
    void on_record(const mspti::MarkerData &m) override {
        std::printf("[mark ] id %" PRIu64 " \"%s\" domain \"%s\" pid %" PRId64 " tid %" PRId64 " at %" PRIu64 "\n",
                    m.id, m.name.c_str(), m.domain.c_str(), m.object_id.process_id, m.object_id.thread_id, m.timestamp);
        ++marks;
    }
    void on_record(const mspti::RangeMarkerData &r) override {
        std::printf("[range] id %" PRIu64 " \"%s\" %s %" PRIu64 " ns\n", r.id, r.name.c_str(),
                    r.source_kind == mspti::MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_HOST ? "host"
                                                                                                     : "device",
                    r.end - r.start);
        ++ranges;
    }
    int marks = 0;
    int ranges = 0;
};

class KernelPrinter : public mspti::KernelCallback {
public:
    void on_record(const mspti::KernelData &k) override {
        std::printf("[kernel] %s (%s) device %" PRId64 " stream %" PRId64 " correlation %" PRIu64 " %" PRIu64 " ns\n",
                    k.name.c_str(), k.type.c_str(), k.device_id, k.stream_id, k.correlation_id, k.end - k.start);
        ++kernels;
    }
    int kernels = 0;
};

bool check(aclError e, const char *what) {
    if (e != ACL_SUCCESS) std::fprintf(stderr, "%s failed: %d\n", what, static_cast<int>(e));
    return e == ACL_SUCCESS;
}

// out = a + b on the device, synchronously.
bool add_on_device(aclrtStream stream) {
    const int64_t n = 1024;
    const int64_t stride = 1;
    std::vector<float> host(n, 1.0f);
    void *a = nullptr, *out = nullptr;
    if (!check(aclrtMalloc(&a, n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")) return false;
    if (!check(aclrtMalloc(&out, n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")) return false;
    check(aclrtMemcpy(a, n * sizeof(float), host.data(), n * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
    aclTensor *ta = aclCreateTensor(&n, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &n, 1, a);
    aclTensor *to = aclCreateTensor(&n, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &n, 1, out);
    float alpha = 1.0f;
    aclScalar *s = aclCreateScalar(&alpha, ACL_FLOAT);
    uint64_t workspace = 0;
    aclOpExecutor *executor = nullptr;
    bool ok = check(aclnnAddGetWorkspaceSize(ta, ta, s, to, &workspace, &executor), "aclnnAddGetWorkspaceSize") &&
              check(aclnnAdd(nullptr, workspace, executor, stream), "aclnnAdd") &&
              check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    aclDestroyScalar(s);
    aclDestroyTensor(ta);
    aclDestroyTensor(to);
    aclrtFree(a);
    aclrtFree(out);
    return ok;
}

}  // namespace

int main() {
    MstxPrinter mstx_printer;
    KernelPrinter kernel_printer;
    mspti::MstxMonitor mstx;
    mspti::KernelMonitor kernels;
    if (mstx.start(&mstx_printer, &mstx_printer) != mspti::MsptiResult::MSPTI_SUCCESS ||
        kernels.start(&kernel_printer) != mspti::MsptiResult::MSPTI_SUCCESS) {
        std::fprintf(stderr, "start failed: %s\n", mspti::last_error_message().c_str());
        return 1;
    }

    if (!check(aclInit(nullptr), "aclInit") || !check(aclrtSetDevice(0), "aclrtSetDevice")) return 1;
    aclrtStream stream = nullptr;
    if (!check(aclrtCreateStream(&stream), "aclrtCreateStream")) return 1;
    const int steps = 3;
    for (int step = 0; step < steps; ++step) {
        mstxMarkA("step", nullptr);
        mstxRangeId id = mstxRangeStartA("add", nullptr);
        if (!add_on_device(stream)) return 1;
        mstxRangeEnd(id);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();

    // stop() returns once everything collected before it was delivered.
    kernels.stop();
    mstx.stop();
    std::printf("MstxMonitor: %d marks, %d ranges; KernelMonitor: %d kernels\n", mstx_printer.marks,
                mstx_printer.ranges, kernel_printer.kernels);
    return 0;
}
