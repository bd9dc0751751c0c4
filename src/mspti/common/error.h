// Error reporting for the C ABI: every failing call records a message saying what was
// wrong (readable with msptiExtGetLastError) and optionally prints it (MSPTI_LOG_LEVEL).
#pragma once

#include "mspti/mspti_result.h"

namespace mspti {

enum class LogLevel { Off = 0, Error = 1, Warning = 2, Info = 3 };

// Records `message` as the calling thread's last error, logs it at Error level, returns `code`.
msptiResult fail(msptiResult code, const char *format, ...) __attribute__((format(printf, 2, 3)));

// Logs a message (not an error of the current call) when the level allows it.
void log(LogLevel level, const char *format, ...) __attribute__((format(printf, 2, 3)));

// The calling thread's last error message ("" if none).
const char *last_error();

const char *result_name(msptiResult code);

}  // namespace mspti
