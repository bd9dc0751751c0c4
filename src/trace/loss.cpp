#include "loss.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

namespace mspti_trace {

namespace {

// One datagram to the launcher; bounded wait, nothing when it is not listening.
void notify(const std::string &message) {
    const char *name = std::getenv("MSPTI_TRACE_NOTIFY");
    if (name == nullptr || *name == '\0' || std::strlen(name) + 1 > sizeof(sockaddr_un::sun_path)) return;
    int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    timeval tv{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    size_t n = std::strlen(name);
    std::memcpy(addr.sun_path + 1, name, n);  // abstract: sun_path[0] is NUL
    socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
    (void)::sendto(fd, message.data(), message.size(), 0, reinterpret_cast<sockaddr *>(&addr), len);
    ::close(fd);
}

}  // namespace

void report_write_failure(const std::string &path, const char *why) {
    // Never destroyed: the last window is written from exit handlers, after static destructors.
    static auto *mutex = new std::mutex;
    static auto *said = new std::set<std::string>;
    {
        std::lock_guard<std::mutex> lock(*mutex);
        if (!said->insert(path).second) return;
    }
    std::fprintf(stderr,
                 "mspti-trace: cannot write %s (%s): records are lost while this lasts (each window that "
                 "fails is left out whole and counted as dropped); writing goes on when it can\n",
                 path.c_str(), why);
    notify("failed\t" + path + "\t" + why);
}

void report_not_created(const std::string &path, const std::string &error, unsigned pid) {
    std::fprintf(stderr, "mspti-trace: %s; nothing is written for pid %u\n", error.c_str(), pid);
    notify("failed\t" + path + "\t" + error);
}

void report_writer_abandoned(const std::string &path, int idle_ms) {
    std::fprintf(stderr,
                 "mspti-trace: gave up waiting for the writer of %s at exit (no progress for %d ms): the file may "
                 "lack its last windows, and their records are not counted\n",
                 path.c_str(), idle_ms);
    notify("failed\t" + path + "\twriter given up at exit");
}

void report_loss_total(const std::string &path, uint64_t lost, bool counted) {
    notify("lost\t" + path + "\t" + std::to_string(lost) + "\t" + (counted ? "counted" : "uncounted"));
}

}  // namespace mspti_trace
