// dlog's C API (libascendalog.so): level checks and log lines
// "[LEVEL] MODULE(pid,process):yyyy-mm-dd-hh:mm:ss.mmm.uuu message".
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <sys/time.h>
#include <unistd.h>

#include "dlog_config.h"
#include "dlog_sink.h"
#include "dlog_time.h"
#include "toolchain/slog.h"

namespace {

const char *level_name(int level) {
    switch (level & 0xffff) {
    case DLOG_DEBUG: return "DEBUG";
    case DLOG_INFO: return "INFO";
    case DLOG_WARN: return "WARNING";
    case DLOG_ERROR: return "ERROR";
    case DLOG_TRACE: return "TRACE";
    case DLOG_OPLOG: return "OPLOG";
    case DLOG_EVENT: return "EVENT";
    default: return "UNKNOWN";
    }
}

void emit(int moduleId, int level, const char *fmt, va_list args) {
    if (fmt == nullptr || !dlog::enabled(moduleId, level)) {
        return;
    }
    timeval tv{};
    ::gettimeofday(&tv, nullptr);
    const dlog::LocalTime t = dlog::local_time(tv);
    char stamp[32];
    std::snprintf(stamp, sizeof(stamp), "%04d-%02d-%02d-%02d:%02d:%02d", t.year, t.month, t.day, t.hour, t.minute,
                  t.second);

    // Prefix, message cut at MSG_LENGTH, "..." when cut, and a newline.
    char line[256 + MSG_LENGTH + 8];
    int n = std::snprintf(line, 256, "[%s] %s(%d,%s):%s.%03ld.%03ld ", level_name(level), dlog::module_name(moduleId),
                          static_cast<int>(::getpid()), program_invocation_short_name, stamp,
                          static_cast<long>(tv.tv_usec / 1000), static_cast<long>(tv.tv_usec % 1000));
    if (n < 0) {
        return;
    }
    size_t len = static_cast<size_t>(n) < 256 ? static_cast<size_t>(n) : 255;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    const int m = std::vsnprintf(line + len, MSG_LENGTH + 1, fmt, args);
#pragma GCC diagnostic pop
    if (m < 0) {
        return;
    }
    if (m > MSG_LENGTH) {
        std::memcpy(line + len + MSG_LENGTH, "...", 3);
        len += MSG_LENGTH + 3;
    } else {
        len += static_cast<size_t>(m);
    }
    if (line[len - 1] != '\n') {
        line[len++] = '\n';
    }
    dlog::write_line(line, len);
}

}  // namespace

#define DLOG_VARIADIC(moduleId, level, fmt) \
    do { \
        va_list args_; \
        va_start(args_, fmt); \
        emit(moduleId, level, fmt, args_); \
        va_end(args_); \
    } while (0)

extern "C" {

void dlog_init(void) { dlog::init(); }

int dlog_getlevel(int moduleId, int *enableEvent) {
    const int level = dlog::level_of(moduleId);
    if (enableEvent != nullptr) {
        *enableEvent = dlog::events_enabled() ? 1 : 0;
    }
    return level;
}

int dlog_setlevel(int moduleId, int level, int enableEvent) { return dlog::set_level(moduleId, level, enableEvent); }

int CheckLogLevel(int moduleId, int logLevel) { return dlog::enabled(moduleId, logLevel) ? 1 : 0; }

void DlogRecord(int moduleId, int level, const char *fmt, ...) { DLOG_VARIADIC(moduleId, level, fmt); }

void DlogVaList(int moduleId, int level, const char *fmt, va_list list) { emit(moduleId, level, fmt, list); }

void DlogFlush(void) { dlog::flush(); }

int CheckLogLevelForC(int moduleId, int logLevel) { return CheckLogLevel(moduleId, logLevel); }

void DlogInnerForC(int moduleId, int level, const char *fmt, ...) { DLOG_VARIADIC(moduleId, level, fmt); }

void DlogRecordForC(int moduleId, int level, const char *fmt, ...) { DLOG_VARIADIC(moduleId, level, fmt); }

int DlogGetlevelForC(int moduleId, int *enableEvent) { return dlog_getlevel(moduleId, enableEvent); }

int DlogSetlevelForC(int moduleId, int level, int enableEvent) { return dlog_setlevel(moduleId, level, enableEvent); }

void DlogFlushForC(void) { dlog::flush(); }

}  // extern "C"
