// Markers in steady state: loops long enough to fill at least 20 client buffers, so that what a
// client does with its buffers (recycles them, or mallocs a fresh 8 MB one per request and frees
// it once read, as msPTI's samples do) is part of the figure. Each repetition times, one after
// the other: a loop of TSC reads (the baseline), a loop of `mstxMarkA` and a loop of range
// start+end pairs of the same number of records, then the same two as short loops (20,000 calls,
// each followed by an untimed flush: no buffer turns over). It also counts the minor page faults
// taken on the marking thread per buffer filled, which the time only shows blurred.
//
// usage: bench_steady_state recycle|fresh|monitor|monitor-batch [repetitions] [buffers per loop]
// prints one JSON object; exits non-zero if a record was lost.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "mspti/monitor.h"
#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"
#include "steady_loops.h"

namespace {

using namespace steady;

constexpr size_t kBufferBytes = size_t{8} << 20;

// Hands every record to the client and returns once it has them: for the Monitors, once their
// delivery thread has been through them (so that it does not compete with the next loop).
bool g_monitor = false;
void Flush() {
    if (g_monitor)
        mspti::MstxMonitor::flush_all();
    else
        msptiActivityFlushAll(1);
}

std::atomic<uint64_t> g_read{0};  // records the client read
std::atomic<uint64_t> g_buffers{0};  // buffers handed back with records

uint64_t Walk(uint8_t *buffer, size_t valid) {
    uint64_t n = 0, sum = 0;
    msptiActivity *record = nullptr;
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
        if (record->kind == MSPTI_ACTIVITY_KIND_MARKER) sum += reinterpret_cast<msptiActivityMarker *>(record)->id;
        ++n;
    }
    g_read.fetch_add(n, std::memory_order_relaxed);
    if (valid != 0) g_buffers.fetch_add(1, std::memory_order_relaxed);
    return sum;
}

// Keeps every buffer it was given and hands it out again: its pages fault once.
struct RecyclingClient {
    static inline std::mutex mutex;
    static inline std::vector<uint8_t *> idle;
    static void Request(uint8_t **buffer, size_t *size, size_t *max) {
        std::lock_guard<std::mutex> lock(mutex);
        if (idle.empty()) {
            *buffer = static_cast<uint8_t *>(std::malloc(kBufferBytes));
        } else {
            *buffer = idle.back();
            idle.pop_back();
        }
        *size = *buffer != nullptr ? kBufferBytes : 0;
        *max = 0;
    }
    static void Complete(uint8_t *buffer, size_t, size_t valid) {
        Walk(buffer, valid);
        std::lock_guard<std::mutex> lock(mutex);
        idle.push_back(buffer);
    }
};

// msPTI's samples: malloc per request, read, free in the complete callback.
struct FreshClient {
    static void Request(uint8_t **buffer, size_t *size, size_t *max) {
        *buffer = static_cast<uint8_t *>(std::malloc(kBufferBytes));
        *size = *buffer != nullptr ? kBufferBytes : 0;
        *max = 0;
    }
    static void Complete(uint8_t *buffer, size_t, size_t valid) {
        Walk(buffer, valid);
        std::free(buffer);
    }
};

struct MonitorMarks : mspti::MarkCallback {
    void on_record(const mspti::MarkerData &m) override {
        sum += m.id + m.name.size();
        g_read.fetch_add(1, std::memory_order_relaxed);
    }
    uint64_t sum = 0;
};
struct MonitorRanges : mspti::RangeCallback {
    void on_record(const mspti::RangeMarkerData &r) override {
        sum += r.id;
        g_read.fetch_add(2, std::memory_order_relaxed);  // a range is its start and end records
    }
    uint64_t sum = 0;
};
struct MonitorBatches : mspti::BatchCallback {
    void on_batch(const mspti::RecordBatch &b) override {
        const auto *bytes = static_cast<const uint8_t *>(b.data);
        for (size_t i = 0; i < b.count; ++i)
            sum += reinterpret_cast<const msptiActivityMarker *>(bytes + i * b.stride)->id;
        g_read.fetch_add(b.count, std::memory_order_relaxed);
    }
    uint64_t sum = 0;
};


void Marks(long n) {
    for (long i = 0; i < n; ++i) mstxMarkA("steady_mark", nullptr);
}
void Ranges(long n) {
    for (long i = 0; i < n; ++i) mstxRangeEnd(mstxRangeStartA("steady_range", nullptr));
}

}  // namespace

int main(int argc, char **argv) {
    const std::string client = argc > 1 ? argv[1] : "";
    const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
    const int buffers = argc > 3 ? std::atoi(argv[3]) : 24;
    if (reps < 1 || buffers < 1) {
        std::fprintf(stderr, "bench_steady_state: repetitions %d and buffers %d must be at least 1\n", reps, buffers);
        return 2;
    }
    const long records = static_cast<long>(buffers * (kBufferBytes / sizeof(msptiActivityMarker)));

    msptiSubscriberHandle handle = nullptr;
    MonitorMarks marks;
    MonitorRanges ranges;
    MonitorBatches batches;
    mspti::MstxMonitor monitor;
    if (client == "recycle" || client == "fresh") {
        msptiSubscribe(&handle, nullptr, nullptr);
        if (client == "recycle")
            msptiActivityRegisterCallbacks(&RecyclingClient::Request, &RecyclingClient::Complete);
        else
            msptiActivityRegisterCallbacks(&FreshClient::Request, &FreshClient::Complete);
        msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
    } else if (client == "monitor" || client == "monitor-batch") {
        g_monitor = true;
        mspti::MstxMonitor::set_buffer_size(kBufferBytes >> 20);
        mspti::MsptiResult r = client == "monitor" ? monitor.start(&marks, &ranges) : monitor.start_batch(&batches);
        if (r != mspti::MsptiResult::MSPTI_SUCCESS) {
            std::fprintf(stderr, "bench_steady_state: MstxMonitor start failed (%d)\n", static_cast<int>(r));
            return 1;
        }
    } else {
        std::fprintf(stderr, "usage: %s recycle|fresh|monitor|monitor-batch [repetitions] [buffers per loop]\n",
                     argv[0]);
        return 2;
    }

    // Warm-up: code paths and this thread's staging.
    Marks(kShortCalls);
    Flush();
    const uint64_t buffers_before = g_buffers.load();

    std::printf(
        "{\"client\": \"%s\", \"record_bytes\": %zu, \"buffer_bytes\": %zu, \"records_per_loop\": %ld, "
        "\"short_calls\": %d, \"reps\": [",
        client.c_str(), sizeof(msptiActivityMarker), kBufferBytes, records, kShortCalls);
    RunRepetitions(reps, records, Marks, Ranges, Flush);
    Flush();
    if (g_monitor) monitor.stop();
    msptiExtActivityStats s{};
    msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &s);
    const uint64_t read = g_read.load();
    std::printf(
        "], \"buffers_filled\": %llu, \"produced\": %llu, \"delivered\": %llu, \"dropped\": %llu, "
        "\"read\": %llu}\n",
        static_cast<unsigned long long>(g_buffers.load() - buffers_before), static_cast<unsigned long long>(s.produced),
        static_cast<unsigned long long>(s.delivered), static_cast<unsigned long long>(s.dropped),
        static_cast<unsigned long long>(read));
    if (handle != nullptr) msptiUnsubscribe(handle);
    bool lost = s.dropped != 0 || s.delivered != s.produced || read != s.delivered;
    if (lost) std::fprintf(stderr, "bench_steady_state: records lost or unread\n");
    return lost ? 1 : 0;
}
