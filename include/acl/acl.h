/**
 * @file acl.h
 * @brief Umbrella header of the ACL runtime, as CANN's acl/acl.h (aclInit/aclFinalize live in acl_rt.h).
 */
#ifndef VNPU_ACL_ACL_H
#define VNPU_ACL_ACL_H

#include "acl_base.h"
#include "acl_rt.h"

#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

#endif /* VNPU_ACL_ACL_H */
