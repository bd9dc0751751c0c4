/**
 * @file securec.h
 * @brief The commonly used part of libboundscheck (CANN's libc_sec.so): bounds-checked memory,
 *        string, formatted output and formatted input functions, with its contract.
 *
 * Memory and string functions return EOK (0) on success. On a violation they return an error code;
 * the `..._AND_RESET` codes mean the destination was cleared (memory: all destMax bytes zeroed,
 * memset_s: filled with c; strings: the first character set to '\0').
 * - ERANGE: destMax is 0 or above the limit (nothing written);
 * - EINVAL: dest is NULL (nothing written); EINVAL_AND_RESET: src is NULL, or (strcat) dest is not
 *   terminated within destMax;
 * - ERANGE_AND_RESET: the result does not fit;
 * - EOVERLAP_AND_RESET: source and destination overlap (memmove_s allows it).
 *
 * The formatted output functions return the number of characters written (without the '\0') or -1.
 * sscanf_s returns the number of fields assigned, or -1 (EOF) on an error or when the input ends
 * before the first conversion. Its %s, %c and %[ conversions take the buffer's size, an unsigned
 * int, after the buffer pointer.
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

#if defined(__GNUC__)
#define SECUREC_PRINTF_ATTR(f, a) __attribute__((format(printf, f, a)))
#else
#define SECUREC_PRINTF_ATTR(f, a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Sets count bytes of dest (capacity destMax) to c. count > destMax: fills destMax bytes, ERANGE_AND_RESET. */
SECUREC_API errno_t memset_s(void *dest, size_t destMax, int c, size_t count);
/** Copies count bytes of src to dest. NULL src, count > destMax or overlap: dest zeroed, ..._AND_RESET. */
SECUREC_API errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count);
/** Like memcpy_s, but the areas may overlap. */
SECUREC_API errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count);

/** Copies the string strSrc, '\0' included, into strDest (capacity destMax). */
SECUREC_API errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc);
/** Copies at most count characters of strSrc and a '\0'. count 0 gives an empty string. */
SECUREC_API errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
/** Appends strSrc to the string in strDest. */
SECUREC_API errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc);
/** Appends at most count characters of strSrc, then a '\0'. */
SECUREC_API errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count);

/** printf into strDest. Output that does not fit is an error: strDest[0] = '\0', returns -1. */
SECUREC_API int sprintf_s(char *strDest, size_t destMax, const char *format, ...) SECUREC_PRINTF_ATTR(3, 4);
/** va_list form of sprintf_s. */
SECUREC_API int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList)
    SECUREC_PRINTF_ATTR(3, 0);
/**
 * printf of at most count characters. With count < destMax, longer output is truncated to count
 * characters and -1 returned (the truncated string stays). With count >= destMax, output that does
 * not fit in destMax is an error: strDest[0] = '\0', returns -1.
 */
SECUREC_API int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
    SECUREC_PRINTF_ATTR(4, 5);
/** va_list form of snprintf_s. */
SECUREC_API int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format, va_list argList)
    SECUREC_PRINTF_ATTR(4, 0);

/**
 * scanf from a string. %s, %c and %[ take (char *buffer, unsigned size); a field that does not fit
 * is a matching failure: buffer[0] = '\0' and scanning stops. Supported: d i u o x X p f e g a E G
 * F A s c [ n %, the length modifiers hh h l ll j z t L, widths and '*'.
 */
SECUREC_API int sscanf_s(const char *buffer, const char *format, ...);
/** va_list form of sscanf_s. */
SECUREC_API int vsscanf_s(const char *buffer, const char *format, va_list argList);

#ifdef __cplusplus
}
#endif

#endif /* VNPU_SECUREC_H */
