#include "common/diagnostics.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <unistd.h>

namespace mspti {
namespace {

thread_local char t_last_error[512];

LogLevel read_level() {
    const char *value = std::getenv("MSPTI_LOG_LEVEL");
    if (value == nullptr) return LogLevel::Off;
    if (strcasecmp(value, "error") == 0) return LogLevel::Error;
    if (strcasecmp(value, "warning") == 0 || strcasecmp(value, "warn") == 0) return LogLevel::Warning;
    if (strcasecmp(value, "info") == 0) return LogLevel::Info;
    return LogLevel::Off;
}

LogLevel level() {
    static const LogLevel cached = read_level();
    return cached;
}

const char *level_name(LogLevel l) {
    switch (l) {
    case LogLevel::Error: return "ERROR";
    case LogLevel::Warning: return "WARNING";
    default: return "INFO";
    }
}

void emit(LogLevel l, const char *text) {
    if (static_cast<int>(l) > static_cast<int>(level())) return;
    std::fprintf(stderr, "[MSPTI] [%s] [%d] %s\n", level_name(l), static_cast<int>(getpid()), text);
}

}  // namespace

void record_error(const char *format, va_list args) {
    std::vsnprintf(t_last_error, sizeof(t_last_error), format, args);
    emit(LogLevel::Error, t_last_error);
}

void log(LogLevel l, const char *format, ...) {
    if (static_cast<int>(l) > static_cast<int>(level())) return;
    char text[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    emit(l, text);
}

const char *last_error() { return t_last_error; }

const char *result_name(int code) {
    switch (code) {
    case MSPTI_SUCCESS: return "MSPTI_SUCCESS";
    case MSPTI_ERROR_INVALID_PARAMETER: return "MSPTI_ERROR_INVALID_PARAMETER";
    case MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: return "MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
    case MSPTI_ERROR_MAX_LIMIT_REACHED: return "MSPTI_ERROR_MAX_LIMIT_REACHED";
    case MSPTI_ERROR_DEVICE_OFFLINE: return "MSPTI_ERROR_DEVICE_OFFLINE";
    case MSPTI_ERROR_QUEUE_EMPTY: return "MSPTI_ERROR_QUEUE_EMPTY";
    case MSPTI_ERROR_WITHOUT_LD_PRELOAD: return "MSPTI_ERROR_WITHOUT_LD_PRELOAD";
    case MSPTI_ERROR_INNER: return "MSPTI_ERROR_INNER";
    default: return "MSPTI_ERROR_UNKNOWN";
    }
}

}  // namespace mspti
