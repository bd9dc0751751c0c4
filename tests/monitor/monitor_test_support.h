// Helpers for the Monitor API tests: collecting callbacks, marker producers, process probes.
#pragma once

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mspti/monitor.h"
#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"

namespace monitor_test {

inline aclrtStream FakeStream() { return reinterpret_cast<aclrtStream>(0x1000); }

inline int64_t Tid() { return static_cast<int64_t>(syscall(SYS_gettid)); }

/** Threads of this process (entries of /proc/self/task). */
inline int ThreadCount() {
    int n = 0;
    if (DIR *d = opendir("/proc/self/task")) {
        while (dirent *e = readdir(d))
            if (e->d_name[0] != '.') ++n;
        closedir(d);
    }
    return n;
}

/** Resident set size in KiB (VmRSS of /proc/self/status). */
inline long RssKiB() {
    FILE *f = std::fopen("/proc/self/status", "r");
    if (f == nullptr) return -1;
    char line[256];
    long kib = -1;
    while (std::fgets(line, sizeof(line), f) != nullptr)
        if (std::strncmp(line, "VmRSS:", 6) == 0) kib = std::strtol(line + 6, nullptr, 10);
    std::fclose(f);
    return kib;
}

/** Collects marks and ranges; every method is safe from any thread. */
class MstxCollector : public mspti::MarkCallback, public mspti::RangeCallback {
public:
    void on_record(const mspti::MarkerData &m) override {
        std::lock_guard<std::mutex> lock(mutex_);
        marks_.push_back(m);
        cv_.notify_all();
    }
    void on_record(const mspti::RangeMarkerData &r) override {
        std::lock_guard<std::mutex> lock(mutex_);
        ranges_.push_back(r);
        cv_.notify_all();
    }
    std::vector<mspti::MarkerData> marks() {
        std::lock_guard<std::mutex> lock(mutex_);
        return marks_;
    }
    std::vector<mspti::RangeMarkerData> ranges() {
        std::lock_guard<std::mutex> lock(mutex_);
        return ranges_;
    }
    /**
     * Waits until at least `n` marks arrived, at most `limit` (a bound against a hang, far above
     * any delivery time, even under sanitizers). @return whether they arrived.
     */
    [[nodiscard]] bool wait_marks(size_t n, std::chrono::seconds limit = std::chrono::seconds(60)) {
        std::unique_lock<std::mutex> lock(mutex_);
        return cv_.wait_for(lock, limit, [&] { return marks_.size() >= n; });
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<mspti::MarkerData> marks_;
    std::vector<mspti::RangeMarkerData> ranges_;
};

/** A thread that marks "stream" until stopped (or `limit` marks). */
class MarkProducer {
public:
    explicit MarkProducer(uint64_t limit = 2000000)
        : thread_([this, limit] {
              while (!stop_.load(std::memory_order_relaxed) && produced_.load(std::memory_order_relaxed) < limit) {
                  mstxMarkA("stream", nullptr);
                  produced_.fetch_add(1, std::memory_order_relaxed);
              }
          }) {}
    ~MarkProducer() { stop(); }
    void stop() {
        stop_.store(true);
        if (thread_.joinable()) thread_.join();
    }
    uint64_t produced() const { return produced_.load(); }

private:
    std::atomic<bool> stop_{false};
    std::atomic<uint64_t> produced_{0};
    std::thread thread_;
};

}  // namespace monitor_test
