// External correlation (after msPTI's sample mspti_external_correlation): the three phases of
// an aclnnAdd program are tagged CUSTOM0 0 (initialisation), 1 (execution) and 2 (clean-up), and
// the correlation ids each phase consumed are printed per external id.
#include <cinttypes>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/aclnn_add.h"
#include "common/helper_mspti.h"
#include "common/util_acl.h"

namespace {

std::mutex g_mutex;
std::map<uint64_t, std::vector<uint64_t>> g_groups;  // external id -> correlation ids

void ExternalBufferComplete(uint8_t *buffer, size_t size, size_t validSize) {
    (void)size;
    msptiActivity *record = nullptr;
    std::lock_guard<std::mutex> lock(g_mutex);
    while (buffer != nullptr && msptiActivityGetNextRecord(buffer, validSize, &record) == MSPTI_SUCCESS) {
        if (record->kind == MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
            auto *e = reinterpret_cast<msptiActivityExternalCorrelation *>(record);
            g_groups[e->externalId].push_back(e->correlationId);
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
    sample::InitMspti(nullptr, nullptr, &ExternalBufferComplete);
    for (msptiActivityKind kind : {MSPTI_ACTIVITY_KIND_MARKER, MSPTI_ACTIVITY_KIND_KERNEL, MSPTI_ACTIVITY_KIND_API,
                                   MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION})
        MSPTI_CALL(msptiActivityEnable(kind));

    uint64_t id = 0;
    sample::AddTensors tensors;
    MSPTI_CALL(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 0));
    if (sample::AddSetUp(tensors) != 0) return 1;
    MSPTI_CALL(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id));
    MSPTI_CALL(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 1));
    if (sample::AddRun(tensors, stream) != 0) return 1;
    MSPTI_CALL(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id));
    MSPTI_CALL(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 2));
    if (sample::AddTearDown(tensors) != 0) return 1;
    MSPTI_CALL(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id));

    DeInit(deviceId, context, stream);
    sample::DeInitMspti();
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const auto &group : g_groups) {
        std::string ids;
        for (uint64_t c : group.second) ids += " " + std::to_string(c);
        std::printf("externalId: %" PRIu64 ", correlationIds:%s\n", group.first, ids.c_str());
    }
    return 0;
}
