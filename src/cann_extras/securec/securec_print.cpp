// sprintf_s, vsprintf_s, snprintf_s, vsnprintf_s with libboundscheck's contract, on vsnprintf.
#include "securec.h"

#include <cstdio>

namespace {

bool dest_valid(const char *strDest, size_t destMax) {
    return strDest != nullptr && destMax > 0 && destMax <= SECUREC_STRING_MAX_LEN;
}

// On a parameter error the destination is cleared when it can be.
int param_error(char *strDest, size_t destMax) {
    if (dest_valid(strDest, destMax)) {
        strDest[0] = '\0';
    }
    return -1;
}

}  // namespace

extern "C" {

int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList) {
    if (format == nullptr || !dest_valid(strDest, destMax)) {
        return param_error(strDest, destMax);
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    const int n = std::vsnprintf(strDest, destMax, format, argList);
#pragma GCC diagnostic pop
    if (n < 0 || static_cast<size_t>(n) >= destMax) {
        strDest[0] = '\0';  // too long (or an encoding error): an error, not a truncation
        return -1;
    }
    return n;
}

int sprintf_s(char *strDest, size_t destMax, const char *format, ...) {
    va_list args;
    va_start(args, format);
    const int n = vsprintf_s(strDest, destMax, format, args);
    va_end(args);
    return n;
}

int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format, va_list argList) {
    if (format == nullptr || !dest_valid(strDest, destMax) ||
        (count > SECUREC_STRING_MAX_LEN - 1 && count != static_cast<size_t>(-1))) {
        return param_error(strDest, destMax);
    }
    if (destMax > count) {
        // Room for count characters: truncate to them and say so with -1, keeping the text.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        const int n = std::vsnprintf(strDest, count + 1, format, argList);
#pragma GCC diagnostic pop
        if (n < 0) {
            strDest[0] = '\0';
            return -1;
        }
        return static_cast<size_t>(n) > count ? -1 : n;
    }
    return vsprintf_s(strDest, destMax, format, argList);
}

int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...) {
    va_list args;
    va_start(args, format);
    const int n = vsnprintf_s(strDest, destMax, count, format, args);
    va_end(args);
    return n;
}

}  // extern "C"
