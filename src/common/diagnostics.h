// Error reporting below every layer: libmspti (C ABI), libmspti_monitor (C++ API) and mspti-trace
// each compile their own copy, so each keeps its own last error. Every failing call records a
// message saying what was wrong (the calling thread's last error: msptiExtGetLastError,
// mspti::last_error_message) and logs it when MSPTI_LOG_LEVEL allows. It is not libmspti's: a layer
// above libmspti learns about libmspti only through the public C ABI.
#pragma once

#include <cstdarg>

#include "mspti/mspti_result.h"

namespace mspti {

enum class LogLevel { Off = 0, Error = 1, Warning = 2, Info = 3 };

/// Sets the calling thread's last error from a printf format and logs it at Error level.
void record_error(const char *format, va_list args);

/**
 * Records a printf-formatted message as the calling thread's last error, logs it at Error level,
 * and returns `code`. `Result` is msptiResult (C ABI) or mspti::MsptiResult (Monitor API).
 */
template <typename Result>
__attribute__((format(printf, 2, 3))) Result fail(Result code, const char *format, ...) {
    va_list args;
    va_start(args, format);
    record_error(format, args);
    va_end(args);
    return code;
}

/// Logs a message (not an error of the current call) when the level allows it.
void log(LogLevel level, const char *format, ...) __attribute__((format(printf, 2, 3)));

/// The calling thread's last error message ("" if none).
const char *last_error();

/// The name of a result code ("MSPTI_ERROR_INVALID_PARAMETER"); "MSPTI_ERROR_UNKNOWN" for others.
/// libmspti answers msptiExtResultString with it; the layers above ask the loaded library first
/// (result_text in src/monitor and src/trace) and use this only where it lacks that extension.
const char *result_name(int code);

}  // namespace mspti
