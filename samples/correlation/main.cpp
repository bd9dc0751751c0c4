// Joins API and KERNEL records by correlationId (after msPTI's sample mspti_correlation):
// a custom complete callback keeps both kinds and prints each API->kernel pair once at the end.
#include <cinttypes>
#include <map>
#include <mutex>
#include <string>

#include "common/aclnn_add.h"
#include "common/helper_mspti.h"
#include "common/util_acl.h"
#include "mstx/ms_tools_ext.h"

namespace {

std::mutex g_mutex;
std::map<uint64_t, std::string> g_apis, g_kernels;

void CorrelationBufferComplete(uint8_t *buffer, size_t size, size_t validSize) {
    (void)size;
    msptiActivity *record = nullptr;
    std::lock_guard<std::mutex> lock(g_mutex);
    while (buffer != nullptr && msptiActivityGetNextRecord(buffer, validSize, &record) == MSPTI_SUCCESS) {
        if (record->kind == MSPTI_ACTIVITY_KIND_API) {
            auto *api = reinterpret_cast<msptiActivityApi *>(record);
            g_apis[api->correlationId] = api->name;
        } else if (record->kind == MSPTI_ACTIVITY_KIND_KERNEL) {
            auto *kernel = reinterpret_cast<msptiActivityKernel *>(record);
            g_kernels[kernel->correlationId] = kernel->name;
        }
        sample::print_record(record);
    }
    std::free(buffer);
}

}  // namespace

int main() {
    int32_t deviceId = 0;
    aclrtContext context = nullptr;
    aclrtStream stream = nullptr;
    Init(deviceId, &context, &stream);
    sample::InitMspti(nullptr, nullptr, &CorrelationBufferComplete);
    MSPTI_CALL(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER));
    MSPTI_CALL(msptiActivityEnable(MSPTI_ACTIVITY_KIND_KERNEL));
    MSPTI_CALL(msptiActivityEnable(MSPTI_ACTIVITY_KIND_API));

    sample::AddTensors tensors;
    if (sample::AddSetUp(tensors) != 0) return 1;
    mstxRangeId range = mstxRangeStartA("aclnnAdd", stream);
    if (sample::AddRun(tensors, stream) != 0) return 1;
    mstxRangeEnd(range);
    if (sample::AddTearDown(tensors) != 0) return 1;

    DeInit(deviceId, context, stream);
    sample::DeInitMspti();
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const auto &api : g_apis) {
        auto kernel = g_kernels.find(api.first);
        if (kernel != g_kernels.end())
            std::printf("API and Activity correlation: correlationId %" PRIu64 ", api %s -> kernel %s\n", api.first,
                        api.second.c_str(), kernel->second.c_str());
    }
    return 0;
}
