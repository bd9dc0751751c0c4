/**
 * @file aclnn_util.h
 * @brief ACLNN_API: the visibility of operator entry points.
 */
#ifndef VNPU_ACLNNOP_ACLNN_UTIL_H
#define VNPU_ACLNNOP_ACLNN_UTIL_H

#define ACLNN_API __attribute__((visibility("default")))

#endif /* VNPU_ACLNNOP_ACLNN_UTIL_H */
