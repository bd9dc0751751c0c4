/**
 * @file slog.h
 * @brief dlog, CANN's logging API (libascendalog.so): levels per module, log lines to stdout or to
 *        size-bounded files.
 *
 * Environment (read once, at the first call):
 * - ASCEND_GLOBAL_LOG_LEVEL: 0 debug, 1 info, 2 warning, 3 error (default), 4 off;
 * - ASCEND_MODULE_LOG_LEVEL: per-module overrides, "NAME=level:NAME=level" (names as in the enum
 *   below; MSPTI is an alias of PROFILING, the module msPTI logs with);
 * - ASCEND_GLOBAL_EVENT_ENABLE: 0 or 1 (default 1), whether DLOG_EVENT messages are logged;
 * - ASCEND_SLOG_PRINT_TO_STDOUT=1: print to stdout instead of writing files;
 * - ASCEND_PROCESS_LOG_PATH: directory of the log files (default ~/ascend/log). Lines go to
 *   <dir>/debug/plog/plog-<pid>_<yyyymmddhhmmssmmm>.log; a file is closed at VNPU_DLOG_FILE_BYTES
 *   (default 20 MiB) and a new one opened, and at most VNPU_DLOG_FILE_COUNT (default 10) files per
 *   process are kept, the oldest removed.
 *
 * A line: "[LEVEL] MODULE(pid,process):yyyy-mm-dd-hh:mm:ss.mmm.uuu message", then a newline unless
 * the message ends with one.
 */
#ifndef VNPU_TOOLCHAIN_SLOG_H
#define VNPU_TOOLCHAIN_SLOG_H

#include <stdarg.h>
#include <stdint.h>

#define DLOG_DEBUG 0x0 /**< debug */
#define DLOG_INFO 0x1  /**< info */
#define DLOG_WARN 0x2  /**< warning */
#define DLOG_ERROR 0x3 /**< error */
#define DLOG_NULL 0x4  /**< off: as a module's level, nothing is logged */
#define DLOG_TRACE 0x5 /**< trace: logged when the module's level is debug or info */
#define DLOG_OPLOG 0x6 /**< operation log: logged when the module's level is debug or info */
#define DLOG_EVENT 0x10 /**< event: logged when events are enabled, whatever the level */

/** Longest message a line carries; longer ones are cut and end in "...". */
#define MSG_LENGTH 1024

/** Module ids (CANN's numbering). */
enum {
    SLOG, IDEDD, IDEDH, HCCL, FMK, HIAIENGINE, DVPP, RUNTIME, CCE, HDC, DRV, MDCFUSION, MDCLOCATION,
    MDCPERCEPTION, MDCFSM, MDCCOMMON, MDCMONITOR, MDCBSWP, MDCDEFAULT, MDCSC, MDCPNC, MLL, DEVMM, KERNEL,
    LIBMEDIA, CCECPU, ASCENDDK, ROS, HCCP, ROCE, TEFUSION,
    PROFILING, /**< 31: profiling, msPTI's module */
    DP, APP, TS, TSDUMP, AICPU, LP, TDT, FE, MD, MB, ME, IMU, IMP, GE, MDCFUSA, CAMERA, ASCENDCL, TEEOS, ISP,
    SIS, HSM, DSS, PROCMGR, BBOX, AIVECTOR, TBE, FV, MDCMAP, TUNE, HSS, FFTS, OP, UDF, HICAID, TSYNC, AUDIO,
    TPRT, ASCENDCKERNEL, ASYS, ATRACE, RTC, SYSMONITOR, AML,
    INVLID_MOUDLE_ID /**< one past the last module id */
};

#define DLOG_EXPORT __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

/** Reads the environment now (otherwise done at the first call). */
DLOG_EXPORT void dlog_init(void);
/** Level of moduleId (0..4); *enableEvent (if not NULL) gets 1 when events are logged. -1: bad module. */
DLOG_EXPORT int dlog_getlevel(int moduleId, int *enableEvent);
/** Sets moduleId's level (-1: every module) and event switch (0 or 1). 0 on success, -1 on bad arguments. */
DLOG_EXPORT int dlog_setlevel(int moduleId, int level, int enableEvent);
/** 1 when a message of logLevel from moduleId would be logged, else 0. */
DLOG_EXPORT int CheckLogLevel(int moduleId, int logLevel);
/** Logs a printf-style message when CheckLogLevel allows it. */
DLOG_EXPORT void DlogRecord(int moduleId, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** va_list form of DlogRecord. */
DLOG_EXPORT void DlogVaList(int moduleId, int level, const char *fmt, va_list list)
    __attribute__((format(printf, 3, 0)));
/** Writes buffered lines out (lines are written as they are logged; this syncs the file). */
DLOG_EXPORT void DlogFlush(void);

/** C-linkage names the tools resolve with dlsym (msPTI: CheckLogLevelForC and DlogInnerForC). */
DLOG_EXPORT int CheckLogLevelForC(int moduleId, int logLevel);
/** Same as DlogRecord; the caller usually checks CheckLogLevelForC first and passes its own prefix. */
DLOG_EXPORT void DlogInnerForC(int moduleId, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** Same as DlogRecord. */
DLOG_EXPORT void DlogRecordForC(int moduleId, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** Same as dlog_getlevel. */
DLOG_EXPORT int DlogGetlevelForC(int moduleId, int *enableEvent);
/** Same as dlog_setlevel. */
DLOG_EXPORT int DlogSetlevelForC(int moduleId, int level, int enableEvent);
/** Same as DlogFlush. */
DLOG_EXPORT void DlogFlushForC(void);

#ifdef __cplusplus
}
#endif

/** Logs an error with the caller's file and line. */
#define dlog_error(moduleId, fmt, ...) DlogRecord(moduleId, DLOG_ERROR, "[%s:%d]" fmt, __FILE__, __LINE__, ##__VA_ARGS__)
/** Logs a warning with the caller's file and line, when the module's level allows it. */
#define dlog_warn(moduleId, fmt, ...)                                                            \
    do {                                                                                         \
        if (CheckLogLevel(moduleId, DLOG_WARN) == 1)                                             \
            DlogRecord(moduleId, DLOG_WARN, "[%s:%d]" fmt, __FILE__, __LINE__, ##__VA_ARGS__);   \
    } while (0)
/** Logs an info message with the caller's file and line, when the module's level allows it. */
#define dlog_info(moduleId, fmt, ...)                                                            \
    do {                                                                                         \
        if (CheckLogLevel(moduleId, DLOG_INFO) == 1)                                             \
            DlogRecord(moduleId, DLOG_INFO, "[%s:%d]" fmt, __FILE__, __LINE__, ##__VA_ARGS__);   \
    } while (0)
/** Logs a debug message with the caller's file and line, when the module's level allows it. */
#define dlog_debug(moduleId, fmt, ...)                                                           \
    do {                                                                                         \
        if (CheckLogLevel(moduleId, DLOG_DEBUG) == 1)                                            \
            DlogRecord(moduleId, DLOG_DEBUG, "[%s:%d]" fmt, __FILE__, __LINE__, ##__VA_ARGS__);  \
    } while (0)
/** Logs an event with the caller's file and line. */
#define dlog_event(moduleId, fmt, ...) DlogRecord(moduleId, DLOG_EVENT, "[%s:%d]" fmt, __FILE__, __LINE__, ##__VA_ARGS__)

#endif /* VNPU_TOOLCHAIN_SLOG_H */
