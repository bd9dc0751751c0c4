/**
 * @file securectype.h
 * @brief Types and limits of the bounds-checked C functions (libboundscheck, shipped by CANN as libc_sec.so).
 *
 * Like libboundscheck's header it pulls in <stdio.h>, <string.h> and <stdlib.h>: CANN code calls
 * malloc, free, printf and strlen with only securec.h included.
 */
#ifndef VNPU_SECURECTYPE_H
#define VNPU_SECURECTYPE_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef __errno_t_defined
/** Result of the bounds-checked functions: EOK (0) or an error code. */
typedef int errno_t;
#define __errno_t_defined
#endif

/** Largest destMax the string functions accept (libboundscheck's SECUREC_STRING_MAX_LEN). */
#ifndef SECUREC_STRING_MAX_LEN
#define SECUREC_STRING_MAX_LEN 0x7fffffffUL
#endif
/** Largest destMax the memory functions accept (libboundscheck's SECUREC_MEM_MAX_LEN). */
#ifndef SECUREC_MEM_MAX_LEN
#define SECUREC_MEM_MAX_LEN 0x7fffffffUL
#endif

#ifndef SECUREC_API
#define SECUREC_API extern __attribute__((visibility("default")))
#endif

#endif /* VNPU_SECURECTYPE_H */
