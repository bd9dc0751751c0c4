/* The CANN headers must compile as C as well as C++. Linked into the tests so the build checks it. */
#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_relu.h"
#include "hccl/hccl.h"
#include "hccl/hccl_types.h"
#include "securec.h"
#include "vnpu/vnpu_stream.h"

int vnpuHeadersCompileAsC(void);

int vnpuHeadersCompileAsC(void) {
    HcclRootInfo info;
    aclrtMemcpyKind kind = ACL_MEMCPY_HOST_TO_DEVICE;
    return (int)sizeof(info) + (int)kind + ACL_SUCCESS + HCCL_SUCCESS + EOK;
}
