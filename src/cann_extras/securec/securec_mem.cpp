// memset_s, memcpy_s, memmove_s with libboundscheck's contract.
#include "securec.h"

#include <cstdint>
#include <cstring>

namespace {

bool overlaps(const void *a, const void *b, size_t count) {
    const auto x = reinterpret_cast<uintptr_t>(a);
    const auto y = reinterpret_cast<uintptr_t>(b);
    return (x < y && x + count > y) || (y < x && y + count > x);
}

// The checks memcpy_s and memmove_s share; EOK when the copy may go ahead.
errno_t copy_checks(void *dest, size_t destMax, const void *src, size_t count) {
    if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN) {
        return ERANGE;
    }
    if (dest == nullptr) {
        return EINVAL;
    }
    if (src == nullptr) {
        std::memset(dest, 0, destMax);
        return EINVAL_AND_RESET;
    }
    if (count > destMax) {
        std::memset(dest, 0, destMax);
        return ERANGE_AND_RESET;
    }
    return EOK;
}

}  // namespace

extern "C" {

errno_t memset_s(void *dest, size_t destMax, int c, size_t count) {
    if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN) {
        return ERANGE;
    }
    if (dest == nullptr) {
        return EINVAL;
    }
    if (count > destMax) {
        std::memset(dest, c, destMax);  // fill what fits, then report
        return ERANGE_AND_RESET;
    }
    std::memset(dest, c, count);
    return EOK;
}

errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count) {
    const errno_t rc = copy_checks(dest, destMax, src, count);
    if (rc != EOK || count == 0 || dest == src) {
        return rc;
    }
    if (overlaps(dest, src, count)) {
        std::memset(dest, 0, destMax);
        return EOVERLAP_AND_RESET;
    }
    std::memcpy(dest, src, count);
    return EOK;
}

errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count) {
    const errno_t rc = copy_checks(dest, destMax, src, count);
    if (rc != EOK || count == 0 || dest == src) {
        return rc;
    }
    std::memmove(dest, src, count);
    return EOK;
}

}  // extern "C"
