/**
 * @file aclnn_base.h
 * @brief aclnn base: the meta API plus aclnnInit/aclnnFinalize.
 */
#ifndef VNPU_ACLNN_ACLNN_BASE_H
#define VNPU_ACLNN_ACLNN_BASE_H

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* VNPU_ACLNN_ACLNN_BASE_H */
