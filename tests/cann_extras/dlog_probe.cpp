// Runs dlog calls in a fresh process, so that each test sees dlog read its environment once.
// Usage: dlog_probe check | log | api | flood <lines> | long | dlopen | fork <children>
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <atomic>
#include <thread>
#include <vector>

#include "toolchain/slog.h"

namespace {

void check() {
    const int modules[] = {PROFILING, HCCL, FMK};
    const int levels[] = {DLOG_DEBUG, DLOG_INFO, DLOG_WARN, DLOG_ERROR, DLOG_EVENT};
    for (int m : modules) {
        for (int l : levels) {
            std::printf("%d:%d=%d\n", m, l, CheckLogLevelForC(m, l));
        }
    }
}

// One line per level, the way msPTI formats its own (prefix in fmt, newline at the end).
void log() {
    for (int level : {DLOG_DEBUG, DLOG_INFO, DLOG_WARN, DLOG_ERROR, DLOG_EVENT}) {
        if (CheckLogLevelForC(PROFILING, level) == 1) {
            DlogInnerForC(PROFILING, level, "(mspti)[probe.cpp:%d] >>> (tid:%d) hello %d\n", 1, 1, level);
        }
    }
    DlogRecord(HCCL, DLOG_ERROR, "no newline %s", "here");
    dlog_error(FMK, "macro %d", 7);
    DlogFlush();
}

// Each result in its own statement: argument evaluation order is unspecified.
void api() {
    int event = -1;
    int level = dlog_getlevel(PROFILING, &event);
    std::printf("get=%d event=%d\n", level, event);
    std::printf("set_all=%d\n", dlog_setlevel(-1, DLOG_INFO, 0));
    level = dlog_getlevel(HCCL, &event);
    std::printf("get=%d event=%d\n", level, event);
    std::printf("set_one=%d\n", dlog_setlevel(PROFILING, DLOG_DEBUG, 1));
    level = DlogGetlevelForC(PROFILING, &event);
    std::printf("get=%d other=%d event=%d\n", level, dlog_getlevel(HCCL, nullptr), event);
    const int debug = CheckLogLevel(PROFILING, DLOG_DEBUG);
    std::printf("check_debug=%d check_hccl_debug=%d\n", debug, CheckLogLevel(HCCL, DLOG_DEBUG));
    const int bad_level = dlog_setlevel(PROFILING, 5, 1);
    const int bad_event = DlogSetlevelForC(PROFILING, 1, 2);
    const int bad_module = dlog_setlevel(INVLID_MOUDLE_ID, 1, 1);
    std::printf("bad_level=%d bad_event=%d bad_module=%d get_bad=%d\n", bad_level, bad_event, bad_module,
                dlog_getlevel(1000, nullptr));
    std::printf("check_bad_module=%d check_null=%d check_masked=%d\n", CheckLogLevel(-5, DLOG_ERROR),
                CheckLogLevel(PROFILING, DLOG_NULL), CheckLogLevel(PROFILING, DLOG_INFO | 0x01000000));
    const int off = dlog_setlevel(PROFILING, DLOG_NULL, 1);
    std::printf("set_off=%d check_error_off=%d\n", off, CheckLogLevel(PROFILING, DLOG_ERROR));
}

void flood(int lines) {
    for (int i = 0; i < lines; ++i) {
        DlogRecord(PROFILING, DLOG_ERROR, "line %06d %s", i, "0123456789012345678901234567890123456789");
    }
}

void long_message() {
    std::string text(3000, 'x');
    DlogRecord(PROFILING, DLOG_ERROR, "%s", text.c_str());
}

// msPTI's way: the library by name, the two C functions by dlsym.
int by_dlopen() {
    void *lib = dlopen("libascendalog.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        std::printf("dlopen failed: %s\n", dlerror());
        return 1;
    }
    auto check_fn = reinterpret_cast<int (*)(int, int)>(dlsym(lib, "CheckLogLevelForC"));
    auto log_fn = reinterpret_cast<void (*)(int, int, const char *, ...)>(dlsym(lib, "DlogInnerForC"));
    if (check_fn == nullptr || log_fn == nullptr) {
        std::printf("dlsym failed\n");
        return 1;
    }
    if (check_fn(31, DLOG_ERROR) == 1) {
        log_fn(31, DLOG_ERROR, "(mspti)[x.cpp:2] >>> (tid:%d) via dlopen\n", 5);
    }
    return 0;
}

// Two threads log without pause while the main thread forks `children` children one after
// another; each child logs one line and exits. A child is "hung" when it has not exited 60 s
// after the last fork (a generous bound: each logs one line); it is then killed. Prints
// "child <i> <pid>" per child and "hung=<n>".
int fork_while_logging(int children) {
    std::atomic<bool> stop{false};
    std::vector<std::thread> loggers;
    for (int t = 0; t < 2; ++t) {
        loggers.emplace_back([&stop, t] {
            for (long i = 0; !stop.load(std::memory_order_relaxed); ++i)
                DlogRecord(PROFILING, DLOG_ERROR, "logger %d line %ld", t, i);
        });
    }
    std::vector<pid_t> pids;
    for (int c = 0; c < children; ++c) {
        const pid_t pid = fork();
        if (pid == 0) {
            DlogRecord(PROFILING, DLOG_ERROR, "child %d says hello", c);
            DlogFlush();
            _exit(0);
        }
        if (pid < 0) return 1;
        std::printf("child %d %d\n", c, static_cast<int>(pid));
        std::fflush(stdout);  // not left in the buffer the next child inherits (DlogFlush flushes it)
        pids.push_back(pid);
        usleep(2000);  // spreads the forks over the loggers' lines (pacing, not synchronisation)
    }
    stop.store(true);
    for (auto &t : loggers) t.join();
    size_t left = pids.size();
    for (int polls = 0; polls < 60000 && left > 0; ++polls) {  // polling for the exits, bounded
        for (pid_t &pid : pids) {
            int status = 0;
            if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
                pid = 0;
                --left;
            }
        }
        if (left > 0) usleep(1000);
    }
    for (pid_t pid : pids) {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
    }
    std::printf("hung=%zu\n", left);
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "check")
        check();
    else if (mode == "log")
        log();
    else if (mode == "api")
        api();
    else if (mode == "flood" && argc > 2)
        flood(std::atoi(argv[2]));
    else if (mode == "long")
        long_message();
    else if (mode == "fork" && argc > 2)
        return fork_while_logging(std::atoi(argv[2]));
    else if (mode == "dlopen")
        return by_dlopen();
    else
        return 2;
    return 0;
}
