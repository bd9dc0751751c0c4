// File output of dlog: <dir>/plog-<pid>_<time>.log, a new file when the current one would pass
// file_bytes, at most file_count files per process (the oldest removed). Lines are written with one
// write(2) each, so lines of concurrent processes do not interleave within a line.
#include "dlog_sink.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <pthread.h>
#include <string>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "dlog_config.h"
#include "dlog_time.h"

namespace dlog {
namespace {

struct FileState {
    pid_t pid = 0;
    int fd = -1;
    unsigned long long bytes = 0;
    std::deque<std::string> files;  // this process's files, oldest first
    bool failed = false;  // a file could not be opened: lines go to stderr
};

std::mutex g_mutex;
FileState g_state;

// A child forked while another thread wrote a line would find g_mutex held forever: the fork
// waits for the line to finish, and the child starts unlocked (its first line opens its own file).
// The time-zone lookup is locked after g_mutex, the order a line's file name takes them in.
void fork_prepare() {
    g_mutex.lock();
    lock_for_fork();
}
void fork_release() {
    unlock_after_fork();
    g_mutex.unlock();
}
[[maybe_unused]] const bool g_fork_handlers = (pthread_atfork(&fork_prepare, &fork_release, &fork_release), true);

void make_dirs(const std::string &dir) {
    for (size_t i = 1; i <= dir.size(); ++i) {
        if (i == dir.size() || dir[i] == '/') {
            ::mkdir(dir.substr(0, i).c_str(), 0750);  // EEXIST is fine; open reports real failures
        }
    }
}

std::string new_path(const std::string &dir, pid_t pid) {
    timeval tv{};
    ::gettimeofday(&tv, nullptr);
    const LocalTime t = local_time(tv);
    char name[96];
    std::snprintf(name, sizeof(name), "/plog-%d_%04d%02d%02d%02d%02d%02d%03ld.log", static_cast<int>(pid), t.year,
                  t.month, t.day, t.hour, t.minute, t.second, static_cast<long>(tv.tv_usec / 1000));
    return dir + name;
}

// Opens the next file of this process (caller holds g_mutex); false when it cannot.
bool open_next(const Output &out) {
    if (g_state.fd >= 0) {
        ::close(g_state.fd);
        g_state.fd = -1;
    }
    make_dirs(out.dir);
    std::string path = new_path(out.dir, g_state.pid);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0640);
    for (int n = 1; fd < 0 && errno == EEXIST && n < 1000; ++n) {  // two files within one millisecond
        const std::string alt = path.substr(0, path.size() - 4) + "_" + std::to_string(n) + ".log";
        fd = ::open(alt.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0640);
        if (fd >= 0) {
            path = alt;
        }
    }
    if (fd < 0) {
        std::fprintf(stderr, "dlog: cannot create a log file in %s: %s; logging to stderr\n", out.dir.c_str(),
                     std::strerror(errno));
        g_state.failed = true;
        return false;
    }
    g_state.fd = fd;
    g_state.bytes = 0;
    g_state.files.push_back(path);
    while (g_state.files.size() > out.file_count) {
        ::unlink(g_state.files.front().c_str());
        g_state.files.pop_front();
    }
    return true;
}

void write_all(int fd, const char *data, size_t len) {
    while (len > 0) {
        const ssize_t n = ::write(fd, data, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;
        }
        data += n;
        len -= static_cast<size_t>(n);
    }
}

}  // namespace

void write_line(const char *line, size_t len) {
    const Output &out = output();
    if (out.to_stdout) {
        std::lock_guard<std::mutex> lock(g_mutex);
        std::fflush(stdout);  // the program's own buffered output first, as it was written first
        write_all(STDOUT_FILENO, line, len);
        return;
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    const pid_t pid = ::getpid();
    if (pid != g_state.pid) {  // first line, or a forked child: its own files
        if (g_state.fd >= 0) {
            ::close(g_state.fd);
        }
        g_state = FileState{};
        g_state.pid = pid;
    }
    if (g_state.failed) {
        write_all(STDERR_FILENO, line, len);
        return;
    }
    if ((g_state.fd < 0 || g_state.bytes + len > out.file_bytes) && !open_next(out)) {
        write_all(STDERR_FILENO, line, len);
        return;
    }
    write_all(g_state.fd, line, len);
    g_state.bytes += len;
}

void flush() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_state.fd >= 0 && g_state.pid == ::getpid()) {
        ::fsync(g_state.fd);
    }
    std::fflush(stdout);
}

}  // namespace dlog
