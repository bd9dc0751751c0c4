/**
 * @file aclnn_matmul.h
 * @brief aclnnMatmul: out = self @ mat2 with torch.matmul semantics (1-D to 6-D, batch broadcasting).
 */
#ifndef VNPU_ACLNNOP_ACLNN_MATMUL_H
#define VNPU_ACLNNOP_ACLNN_MATMUL_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                  int8_t cubeMathType, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* VNPU_ACLNNOP_ACLNN_MATMUL_H */
