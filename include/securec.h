/**
 * @file securec.h
 * @brief memset_s / memcpy_s with libboundscheck's contract (the subset CANN samples use).
 */
#ifndef VNPU_SECUREC_H
#define VNPU_SECUREC_H

#include <errno.h>
#include <stdarg.h>

#include "securectype.h"

#ifndef EOK
#define EOK 0
#endif
#ifndef EINVAL_AND_RESET
#define EINVAL_AND_RESET (22 | 128)
#endif
#ifndef ERANGE_AND_RESET
#define ERANGE_AND_RESET (34 | 128)
#endif
#ifndef EOVERLAP_AND_RESET
#define EOVERLAP_AND_RESET (54 | 128)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Sets count bytes of dest (capacity destMax) to c. EOK, or EINVAL / ERANGE(_AND_RESET) on a violation. */
extern __attribute__((visibility("default"))) errno_t memset_s(void *dest, size_t destMax, int c, size_t count);
/** Copies count bytes; on a violation the destination is cleared where possible and an error returned. */
extern __attribute__((visibility("default"))) errno_t memcpy_s(void *dest, size_t destMax, const void *src,
                                                               size_t count);

#ifdef __cplusplus
}
#endif

#endif /* VNPU_SECUREC_H */
