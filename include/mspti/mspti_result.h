/**
 * @file mspti_result.h
 * @brief Result codes returned by every msPTI function.
 *
 * Values are identical to Ascend msPTI's, so programs compiled against
 * msPTI's headers run unchanged against this library.
 */
#ifndef MSPTI_RESULT_H
#define MSPTI_RESULT_H

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Result of an msPTI call. */
typedef enum {
    MSPTI_SUCCESS = 0,                                /**< The call succeeded. */
    MSPTI_ERROR_INVALID_PARAMETER = 1,                /**< An argument was NULL, out of range or unknown. */
    MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 2, /**< A callback subscriber is already registered. */
    MSPTI_ERROR_MAX_LIMIT_REACHED = 3,                /**< No more records in the buffer (normal end of iteration). */
    MSPTI_ERROR_DEVICE_OFFLINE = 4,                   /**< The device is not available. */
    MSPTI_ERROR_QUEUE_EMPTY = 5,                      /**< No external correlation id was pushed for that kind. */
    MSPTI_ERROR_WITHOUT_LD_PRELOAD = 6,               /**< The feature needs libmspti.so interposing the runtime (LD_PRELOAD). */
    MSPTI_ERROR_INNER = 999,                          /**< Internal error, or a record of unknown kind. */
    MSPTI_ERROR_FORCE_INT = 0x7fffffff                /**< Forces a 32-bit enum. */
} msptiResult;

#ifdef __cplusplus
}
#endif

#endif /* MSPTI_RESULT_H */
