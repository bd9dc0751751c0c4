// last_error_message(): one message per thread, set by every failing call.
#include <cstdarg>
#include <cstdio>

#include "monitor/internal.h"

namespace mspti {
namespace {
thread_local std::string t_last_error;
}

std::string last_error_message() { return t_last_error; }

namespace detail {

MsptiResult fail(MsptiResult result, const char *format, ...) {
    char text[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    t_last_error = text;
    return result;
}

const char *result_name(int result) {
    switch (result) {
    case 0: return "MSPTI_SUCCESS";
    case 1: return "MSPTI_ERROR_INVALID_PARAMETER";
    case 2: return "MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
    case 3: return "MSPTI_ERROR_MAX_LIMIT_REACHED";
    case 4: return "MSPTI_ERROR_DEVICE_OFFLINE";
    case 5: return "MSPTI_ERROR_QUEUE_EMPTY";
    case 6: return "MSPTI_ERROR_WITHOUT_LD_PRELOAD";
    case 999: return "MSPTI_ERROR_INNER";
    default: return "unknown msptiResult";
    }
}

}  // namespace detail
}  // namespace mspti
