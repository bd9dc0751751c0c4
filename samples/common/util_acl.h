// ACL set-up shared by the samples, in the order of the original msPTI samples (common/util_acl.h):
// device, context, stream first, then aclInit (CANN accepts this order).
#pragma once

#include <cstdio>

#include "acl/acl.h"

#define ACL_CALL(call) \
    do { \
        aclError ret_ = (call); \
        if (ret_ != ACL_SUCCESS) { \
            std::printf("%s call failed, error code: %d\n", #call, static_cast<int>(ret_)); \
            return ret_; \
        } \
    } while (0)

inline int Init(int32_t deviceId, aclrtContext *context, aclrtStream *stream) {
    ACL_CALL(aclrtSetDevice(deviceId));
    ACL_CALL(aclrtCreateContext(context, deviceId));
    ACL_CALL(aclrtSetCurrentContext(*context));
    ACL_CALL(aclrtCreateStream(stream));
    aclInit(nullptr);  // may report "already initialised"; ignored as the originals do
    return 0;
}

inline int DeInit(int32_t deviceId, aclrtContext context, aclrtStream stream) {
    ACL_CALL(aclrtDestroyStream(stream));
    ACL_CALL(aclrtDestroyContext(context));
    ACL_CALL(aclrtResetDevice(deviceId));
    aclFinalize();
    return 0;
}
