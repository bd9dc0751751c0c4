// A trace file written one whole window at a time (pftrace, JSON): a window goes on disk whole
// or not at all, so the file always ends on a window boundary; and some space is held back
// past the end, so that a file whose disk filled up can still get its last words (the stats
// and closing brackets) in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace mspti_trace {

class TraceFile {
public:
    static constexpr size_t kHeldBytes = 64 * 1024;

    TraceFile() = default;
    TraceFile(const TraceFile &) = delete;
    TraceFile &operator=(const TraceFile &) = delete;
    ~TraceFile() { close(); }

    // Creates (truncates) the file; false with a message in `error`.
    bool open(const std::string &path, std::string &error);
    // Appends a whole window; false (errno in error(), the file as before) when it cannot.
    bool append(const void *data, size_t n);
    // The last words after a failed window: written into the space held back when they fit.
    bool append_held(const void *data, size_t n);
    void close();
    bool is_open() const { return fd_ >= 0; }
    int error() const { return error_; }
    const std::string &path() const { return path_; }

private:
    int write_at(const void *data, size_t n, uint64_t offset);

    int fd_ = -1;
    std::string path_;
    uint64_t size_ = 0;  // bytes of whole windows
    uint64_t held_end_ = 0;  // space allocated up to here (beyond size_: held back)
    bool can_hold_ = true;  // false: the file system has no fallocate
    int error_ = 0;
};

}  // namespace mspti_trace
