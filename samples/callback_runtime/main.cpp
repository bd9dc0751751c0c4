// Callback API on the RUNTIME domain (after msPTI's sample callback_domain): every interposed
// runtime call of an aclnnAdd program prints "<function> func enter/exit".
#include <cinttypes>

#include "common/aclnn_add.h"
#include "common/helper_mspti.h"
#include "common/util_acl.h"

namespace {

void UserCallback(void *userdata, msptiCallbackDomain domain, msptiCallbackId cbid, const msptiCallbackData *data) {
    (void)domain;
    ++*static_cast<int *>(userdata);
    if (data->callbackSite == MSPTI_API_ENTER) {
        std::printf("%s func enter (cbid %u, correlationId %" PRIu64 ")\n", data->functionName, cbid,
                    data->correlationId);
    } else {
        std::printf("%s func exit (cbid %u, result %d)\n", data->functionName, cbid,
                    *static_cast<const int *>(data->functionReturnValue));
    }
}

}  // namespace

int main() {
    int32_t deviceId = 0;
    aclrtContext context = nullptr;
    aclrtStream stream = nullptr;
    Init(deviceId, &context, &stream);  // before subscribing: not seen

    static int calls = 0;
    sample::InitMspti(&UserCallback, &calls);
    MSPTI_CALL(msptiEnableDomain(1, sample::subscriber(), MSPTI_CB_DOMAIN_RUNTIME));

    sample::AddTensors tensors;
    if (sample::AddSetUp(tensors) != 0) return 1;
    if (sample::AddRun(tensors, stream) != 0) return 1;
    if (sample::AddTearDown(tensors) != 0) return 1;
    DeInit(deviceId, context, stream);
    std::printf("callbacks: %d\n", calls);
    sample::DeInitMspti();
    return 0;
}
