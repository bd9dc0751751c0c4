// Activity API on an aclnn program (after msPTI's sample mspti_activity): kernel, API, memory,
// memcpy and memset records of one aclnnAdd, printed by the buffer-complete callback.
#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "common/aclnn_add.h"
#include "common/helper_mspti.h"
#include "common/util_acl.h"

int main() {
    int32_t deviceId = 0;
    aclrtContext context = nullptr;
    aclrtStream stream = nullptr;
    Init(deviceId, &context, &stream);

    sample::InitMspti();
    for (msptiActivityKind kind :
         {MSPTI_ACTIVITY_KIND_KERNEL, MSPTI_ACTIVITY_KIND_API, MSPTI_ACTIVITY_KIND_MEMCPY, MSPTI_ACTIVITY_KIND_MEMORY,
          MSPTI_ACTIVITY_KIND_MEMSET, MSPTI_ACTIVITY_KIND_RUNTIME_API})
        MSPTI_CALL(msptiActivityEnable(kind));

    sample::AddTensors tensors;
    if (sample::AddSetUp(tensors) != 0) return 1;
    ACL_CALL(aclrtMemset(tensors.out, 8 * sizeof(float), 0, 8 * sizeof(float)));
    if (sample::AddRun(tensors, stream) != 0) return 1;
    if (sample::AddTearDown(tensors) != 0) return 1;

    DeInit(deviceId, context, stream);
    sample::DeInitMspti();
    return 0;
}
