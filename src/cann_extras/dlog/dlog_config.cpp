// Levels per module from ASCEND_GLOBAL_LOG_LEVEL / ASCEND_MODULE_LOG_LEVEL, the event switch, and
// where lines go. The table is atomics, so CheckLogLevel is a load once the environment is read.
#include "dlog_config.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <pwd.h>
#include <unistd.h>

#include "toolchain/slog.h"

namespace dlog {
namespace {

constexpr const char *kModuleNames[] = {
    "SLOG",     "IDEDD",     "IDEDH",      "HCCL",       "FMK",        "HIAIENGINE",  "DVPP",
    "RUNTIME",  "CCE",       "HDC",        "DRV",        "MDCFUSION",  "MDCLOCATION", "MDCPERCEPTION",
    "MDCFSM",   "MDCCOMMON", "MDCMONITOR", "MDCBSWP",    "MDCDEFAULT", "MDCSC",       "MDCPNC",
    "MLL",      "DEVMM",     "KERNEL",     "LIBMEDIA",   "CCECPU",     "ASCENDDK",    "ROS",
    "HCCP",     "ROCE",      "TEFUSION",   "PROFILING",  "DP",         "APP",         "TS",
    "TSDUMP",   "AICPU",     "LP",         "TDT",        "FE",         "MD",          "MB",
    "ME",       "IMU",       "IMP",        "GE",         "MDCFUSA",    "CAMERA",      "ASCENDCL",
    "TEEOS",    "ISP",       "SIS",        "HSM",        "DSS",        "PROCMGR",     "BBOX",
    "AIVECTOR", "TBE",       "FV",         "MDCMAP",     "TUNE",       "HSS",         "FFTS",
    "OP",       "UDF",       "HICAID",     "TSYNC",      "AUDIO",      "TPRT",        "ASCENDCKERNEL",
    "ASYS",     "ATRACE",    "RTC",        "SYSMONITOR", "AML",
};
constexpr int kModules = INVLID_MOUDLE_ID;
static_assert(sizeof(kModuleNames) / sizeof(kModuleNames[0]) == kModules, "one name per module id");

std::atomic<int> g_levels[kModules];
std::atomic<bool> g_events{true};
std::atomic<bool> g_ready{false};
std::once_flag g_once;
Output g_output;

int module_id(const char *name, size_t len) {
    if (len == 5 && std::strncmp(name, "MSPTI", 5) == 0) {
        return PROFILING;
    }
    for (int i = 0; i < kModules; ++i) {
        if (std::strlen(kModuleNames[i]) == len && std::strncmp(kModuleNames[i], name, len) == 0) {
            return i;
        }
    }
    return -1;
}

// A level 0..4 from the environment, or fallback when unset or malformed.
int env_level(const char *text, int fallback) {
    if (text == nullptr || text[0] < '0' || text[0] > '4' || text[1] != '\0') {
        return fallback;
    }
    return text[0] - '0';
}

unsigned long long env_number(const char *name, unsigned long long fallback, unsigned long long minimum) {
    const char *text = std::getenv(name);
    if (text == nullptr || *text == '\0') {
        return fallback;
    }
    char *end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    return (*end != '\0' || v < minimum) ? fallback : v;
}

// "NAME=level:NAME=level"; unknown names and bad levels are skipped.
void apply_module_levels(const char *spec) {
    while (spec != nullptr && *spec != '\0') {
        const char *end = std::strchr(spec, ':');
        const size_t len = end ? static_cast<size_t>(end - spec) : std::strlen(spec);
        const char *eq = static_cast<const char *>(std::memchr(spec, '=', len));
        if (eq != nullptr && eq + 2 == spec + len && eq[1] >= '0' && eq[1] <= '4') {
            const int id = module_id(spec, static_cast<size_t>(eq - spec));
            if (id >= 0) {
                g_levels[id].store(eq[1] - '0', std::memory_order_relaxed);
            }
        }
        spec = end ? end + 1 : nullptr;
    }
}

std::string home_dir() {
    if (const char *home = std::getenv("HOME"); home != nullptr && *home != '\0') {
        return home;
    }
    struct passwd pw {};
    struct passwd *found = nullptr;
    char buf[4096];
    if (getpwuid_r(getuid(), &pw, buf, sizeof(buf), &found) == 0 && found != nullptr) {
        return found->pw_dir;
    }
    return "/tmp";
}

void read_environment() {
    const int global = env_level(std::getenv("ASCEND_GLOBAL_LOG_LEVEL"), DLOG_ERROR);
    for (auto &level : g_levels) {
        level.store(global, std::memory_order_relaxed);
    }
    apply_module_levels(std::getenv("ASCEND_MODULE_LOG_LEVEL"));
    if (const char *ev = std::getenv("ASCEND_GLOBAL_EVENT_ENABLE"); ev != nullptr && std::strcmp(ev, "0") == 0) {
        g_events.store(false, std::memory_order_relaxed);
    }
    const char *print = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    g_output.to_stdout = print != nullptr && std::strcmp(print, "1") == 0;
    const char *path = std::getenv("ASCEND_PROCESS_LOG_PATH");
    g_output.dir = (path != nullptr && *path != '\0') ? std::string(path) : home_dir() + "/ascend/log";
    g_output.dir += "/debug/plog";
    g_output.file_bytes = env_number("VNPU_DLOG_FILE_BYTES", 20ULL << 20, 4096);
    g_output.file_count = static_cast<unsigned>(env_number("VNPU_DLOG_FILE_COUNT", 10, 1));
    g_ready.store(true, std::memory_order_release);
}

}  // namespace

void init() {
    if (!g_ready.load(std::memory_order_acquire)) {
        std::call_once(g_once, read_environment);
    }
}

const char *module_name(int moduleId) {
    return moduleId >= 0 && moduleId < kModules ? kModuleNames[moduleId] : nullptr;
}

const Output &output() {
    init();
    return g_output;
}

int level_of(int moduleId) {
    init();
    return moduleId >= 0 && moduleId < kModules ? g_levels[moduleId].load(std::memory_order_relaxed) : -1;
}

bool events_enabled() {
    init();
    return g_events.load(std::memory_order_relaxed);
}

int set_level(int moduleId, int level, int enableEvent) {
    init();
    if (level < DLOG_DEBUG || level > DLOG_NULL || (enableEvent != 0 && enableEvent != 1) || moduleId < -1 ||
        moduleId >= kModules) {
        return -1;
    }
    for (int i = 0; i < kModules; ++i) {
        if (moduleId == -1 || moduleId == i) {
            g_levels[i].store(level, std::memory_order_relaxed);
        }
    }
    g_events.store(enableEvent == 1, std::memory_order_relaxed);
    return 0;
}

bool enabled(int moduleId, int level) {
    const int current = level_of(moduleId);
    if (current < 0) {
        return false;
    }
    level &= 0xffff;  // callers may or in CANN's output masks (RUN_LOG_MASK, ...)
    switch (level) {
    case DLOG_EVENT: return events_enabled();
    case DLOG_TRACE:
    case DLOG_OPLOG: return current <= DLOG_INFO;
    case DLOG_DEBUG:
    case DLOG_INFO:
    case DLOG_WARN:
    case DLOG_ERROR: return current != DLOG_NULL && level >= current;
    default: return false;
    }
}

}  // namespace dlog
