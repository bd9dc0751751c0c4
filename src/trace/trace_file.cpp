#include "trace_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "write_fault.h"

namespace mspti_trace {

bool TraceFile::open(const std::string &path, std::string &error) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        error = "cannot create " + path + ": " + std::strerror(errno);
        return false;
    }
    path_ = path;
    // The space for the last words is held from the start: a disk that is full before the
    // first window fits still gets a whole file (its header, the stats and the end).
    if (::fallocate(fd_, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(kHeldBytes)) == 0)
        held_end_ = kHeldBytes;
    else if (errno == EOPNOTSUPP || errno == ENOSYS)
        can_hold_ = false;
    return true;
}

int TraceFile::write_at(const void *data, size_t n, uint64_t offset) {
    const char *p = static_cast<const char *>(data);
    while (n > 0) {
        ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        p += w;
        n -= static_cast<size_t>(w);
        offset += static_cast<uint64_t>(w);
    }
    return 0;
}

bool TraceFile::append(const void *data, size_t n) {
    if (fd_ < 0) return false;
    if (n == 0) return true;
    int err = write_fault(n, false);
    bool partial = false;
    if (err == EIO) {  // injected: a failing disk takes part of the write first
        (void)write_at(data, n / 2, size_);
        partial = true;
    }
    // The window and the space held back are allocated first: a window that does not fit fails
    // before any of it is written, and the held space stays.
    if (err == 0 && can_hold_) {
        if (::fallocate(fd_, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(size_), static_cast<off_t>(n + kHeldBytes)) == 0)
            held_end_ = std::max(held_end_, size_ + n + kHeldBytes);
        else if (errno == EOPNOTSUPP || errno == ENOSYS)
            can_hold_ = false;
        else
            err = errno;
    }
    if (err == 0) {
        err = write_at(data, n, size_);
        partial = err != 0;
    }
    if (err != 0) {
        if (partial) (void)::ftruncate(fd_, static_cast<off_t>(size_));  // back to the last whole window
        error_ = err;
        return false;
    }
    size_ += n;
    return true;
}

bool TraceFile::append_held(const void *data, size_t n) {
    if (fd_ < 0) return false;
    bool held = can_hold_ && size_ + n <= held_end_;
    int err = write_fault(n, held);
    if (err == 0) err = write_at(data, n, size_);
    if (err != 0) {
        (void)::ftruncate(fd_, static_cast<off_t>(size_));
        error_ = err;
        return false;
    }
    size_ += n;
    return true;
}

void TraceFile::close() {
    if (fd_ < 0) return;
    ::close(fd_);
    fd_ = -1;
}

}  // namespace mspti_trace
