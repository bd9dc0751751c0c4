/**
 * @file securectype.h
 * @brief Types of the bounds-checked C functions (libboundscheck / CANN libc_sec subset).
 */
#ifndef VNPU_SECURECTYPE_H
#define VNPU_SECURECTYPE_H

#include <stddef.h>

#ifndef __errno_t_defined
typedef int errno_t;
#define __errno_t_defined
#endif

#endif /* VNPU_SECURECTYPE_H */
