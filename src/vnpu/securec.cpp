// memset_s / memcpy_s with the libboundscheck contract, for the samples that link libc_sec.
#include "securec.h"

#include <cstdint>
#include <cstring>

#include "export.h"

namespace {
constexpr size_t kSecureMemMaxLen = 0x7fffffffUL;  // libboundscheck's SECUREC_MEM_MAX_LEN
}

extern "C" {

VNPU_EXPORT errno_t memset_s(void *dest, size_t destMax, int c, size_t count) {
    if (dest == nullptr || destMax == 0 || destMax > kSecureMemMaxLen) {
        return destMax > kSecureMemMaxLen || destMax == 0 ? ERANGE : EINVAL;
    }
    if (count > destMax) {
        std::memset(dest, c, destMax);  // fill what fits, then report
        return ERANGE_AND_RESET;
    }
    std::memset(dest, c, count);
    return EOK;
}

VNPU_EXPORT errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count) {
    if (dest == nullptr || destMax == 0 || destMax > kSecureMemMaxLen) {
        return destMax > kSecureMemMaxLen || destMax == 0 ? ERANGE : EINVAL;
    }
    if (src == nullptr) {
        std::memset(dest, 0, destMax);
        return EINVAL_AND_RESET;
    }
    if (count > destMax) {
        std::memset(dest, 0, destMax);
        return ERANGE_AND_RESET;
    }
    const auto d = reinterpret_cast<uintptr_t>(dest);
    const auto s = reinterpret_cast<uintptr_t>(src);
    if (count > 0 && ((d < s && d + count > s) || (s < d && s + count > d))) {
        std::memset(dest, 0, destMax);
        return EOVERLAP_AND_RESET;
    }
    if (count > 0 && dest != src) {
        std::memcpy(dest, src, count);
    }
    return EOK;
}

} // extern "C"
