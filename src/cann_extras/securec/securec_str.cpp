// strcpy_s, strncpy_s, strcat_s, strncat_s with libboundscheck's contract. "Cleared" for a string
// destination means strDest[0] = '\0'.
#include "securec.h"

#include <cstdint>
#include <cstring>

namespace {

bool overlaps(const char *a, size_t aLen, const char *b, size_t bLen) {
    const auto x = reinterpret_cast<uintptr_t>(a);
    const auto y = reinterpret_cast<uintptr_t>(b);
    return (x <= y && x + aLen > y) || (y < x && y + bLen > x);
}

// Range and NULL checks every string function starts with; EOK when it may go ahead.
errno_t string_checks(char *strDest, size_t destMax, const char *strSrc) {
    if (destMax == 0 || destMax > SECUREC_STRING_MAX_LEN) {
        return ERANGE;
    }
    if (strDest == nullptr) {
        return EINVAL;
    }
    if (strSrc == nullptr) {
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    return EOK;
}

// Copies srcLen characters and a '\0' to strDest + at (destination capacity destMax, string at
// strDest of length at), after the size and overlap checks.
errno_t place(char *strDest, size_t destMax, size_t at, const char *strSrc, size_t srcLen) {
    if (at + srcLen + 1 > destMax) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    if (overlaps(strDest, at + srcLen + 1, strSrc, srcLen + 1)) {
        strDest[0] = '\0';
        return EOVERLAP_AND_RESET;
    }
    std::memcpy(strDest + at, strSrc, srcLen);
    strDest[at + srcLen] = '\0';
    return EOK;
}

// strcat_s / strncat_s: the destination must hold a string within destMax.
errno_t append(char *strDest, size_t destMax, const char *strSrc, size_t srcLen) {
    const size_t destLen = strnlen(strDest, destMax);
    if (destLen == destMax) {
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    return place(strDest, destMax, destLen, strSrc, srcLen);
}

}  // namespace

extern "C" {

errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc) {
    const errno_t rc = string_checks(strDest, destMax, strSrc);
    if (rc != EOK) {
        return rc;
    }
    if (strDest == strSrc) {
        return strnlen(strSrc, destMax) < destMax ? EOK : (strDest[0] = '\0', ERANGE_AND_RESET);
    }
    // strnlen bounds the scan: a source longer than the destination is an error either way.
    return place(strDest, destMax, 0, strSrc, strnlen(strSrc, destMax));
}

errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count) {
    const errno_t rc = string_checks(strDest, destMax, strSrc);
    if (rc != EOK) {
        return rc;
    }
    if (count > SECUREC_STRING_MAX_LEN) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    if (count == 0) {
        strDest[0] = '\0';
        return EOK;
    }
    const size_t srcLen = strnlen(strSrc, count < destMax ? count : destMax);
    if (strDest == strSrc) {
        if (srcLen < destMax) {
            strDest[srcLen] = '\0';
            return EOK;
        }
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    return place(strDest, destMax, 0, strSrc, srcLen);
}

errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc) {
    const errno_t rc = string_checks(strDest, destMax, strSrc);
    if (rc != EOK) {
        return rc;
    }
    return append(strDest, destMax, strSrc, strnlen(strSrc, destMax));
}

errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count) {
    const errno_t rc = string_checks(strDest, destMax, strSrc);
    if (rc != EOK) {
        return rc;
    }
    if (count > SECUREC_STRING_MAX_LEN) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    return append(strDest, destMax, strSrc, strnlen(strSrc, count < destMax ? count : destMax));
}

}  // extern "C"
