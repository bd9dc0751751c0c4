// The floor of a marker on this host: what the least a collector of the msPTI buffer contract
// could do costs, measured the way bench_steady_state measures libmspti, so that its ratios to a
// TSC read can be read against the floor's. No libmspti here: the marking thread writes each
// record itself, and a second thread (the client) reads every record of a full 8 MB buffer and
// hands the buffer back (4 buffers, recycled). Two designs:
//   direct: records written straight into the client's buffer (about 15 instructions a record);
//   ring:   records written into a 64 KiB ring of the marking thread, copied into the client's
//           buffer by that thread each time a quarter of the ring is full (libmspti's design, with
//           nothing else: no names, ids, clock modes or flush protocol).
// A range pair is two such records (no open-range table). The JSON has bench_steady_state's shape.
//
// usage: bench_marker_floor direct|ring [repetitions] [buffers per loop]
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "mspti/mspti.h"
#include "steady_loops.h"

namespace {

using namespace steady;

constexpr size_t kBufferBytes = size_t{8} << 20;
constexpr size_t kRecord = sizeof(msptiActivityMarker);
constexpr size_t kRecordsPerBuffer = kBufferBytes / kRecord;
constexpr int kPool = 4;
constexpr size_t kRingSlots = 1024;  // 64-byte slots: 64 KiB
constexpr size_t kQuarter = kRingSlots / 4;


// A client buffer: the marking thread fills it, the client reads it and hands it back.
struct Buffer {
    uint8_t *bytes = nullptr;
    size_t valid = 0;
    std::atomic<int> full{0};  // 1 while the client has it
};
Buffer g_pool[kPool];
std::atomic<bool> g_done{false};
std::atomic<uint64_t> g_read{0};

void Client() {
    uint64_t sum = 0;
    for (int i = 0;; i = (i + 1) % kPool) {
        Buffer &b = g_pool[i];
        b.full.wait(0, std::memory_order_acquire);
        if (g_done.load(std::memory_order_acquire) && b.valid == 0) break;
        for (size_t at = 0; at + kRecord <= b.valid; at += kRecord)
            sum += reinterpret_cast<const msptiActivityMarker *>(b.bytes + at)->id;
        g_read.fetch_add(b.valid / kRecord, std::memory_order_relaxed);
        b.valid = 0;
        b.full.store(0, std::memory_order_release);
        b.full.notify_one();
    }
    std::printf("%s", sum == 42 ? " " : "");  // keeps the reads
}

// The marking thread's state.
struct Producer {
    int index = 0;
    uint8_t *at = nullptr, *end = nullptr;
    uint64_t id = 0;
    alignas(64) uint8_t ring[kRingSlots * 64];
    uint64_t head = 0, copied = 0;
} g_p;

void HandOver() {
    Buffer &b = g_pool[g_p.index];
    b.valid = size_t(g_p.at - b.bytes);
    b.full.store(1, std::memory_order_release);
    b.full.notify_one();
    g_p.index = (g_p.index + 1) % kPool;
    Buffer &next = g_pool[g_p.index];
    next.full.wait(1, std::memory_order_acquire);
    g_p.at = next.bytes;
    g_p.end = next.bytes + kRecordsPerBuffer * kRecord;
}

inline void Fill(void *slot, uint64_t id, int flag) {
    auto *m = static_cast<msptiActivityMarker *>(slot);
    m->kind = MSPTI_ACTIVITY_KIND_MARKER;
    m->flag = static_cast<msptiActivityFlag>(flag);
    m->sourceKind = MSPTI_ACTIVITY_SOURCE_KIND_HOST;
    m->timestamp = __builtin_ia32_rdtsc();
    m->id = id;
    m->objectId.pt.processId = 1;
    m->objectId.pt.threadId = 2;
    m->name = "floor";
    m->domain = "";
}

__attribute__((noinline)) void MarkDirect(int flag) {
    if (__builtin_expect(g_p.at == g_p.end, 0)) HandOver();
    Fill(g_p.at, ++g_p.id, flag);
    g_p.at += kRecord;
}

__attribute__((noinline)) void CopyQuarter() {
    for (; g_p.copied < g_p.head; ++g_p.copied) {
        if (g_p.at == g_p.end) HandOver();
        std::memcpy(g_p.at, g_p.ring + (g_p.copied % kRingSlots) * 64, kRecord);
        g_p.at += kRecord;
    }
}

__attribute__((noinline)) void MarkRing(int flag) {
    Fill(g_p.ring + (g_p.head % kRingSlots) * 64, ++g_p.id, flag);
    if (__builtin_expect(++g_p.head % kQuarter == 0, 0)) CopyQuarter();
}

void (*g_mark)(int) = MarkDirect;

// Everything written so far reaches the client and is read (untimed, as the library's flush).
void Flush() {
    if (g_mark == MarkRing) CopyQuarter();
    if (g_p.at != g_pool[g_p.index].bytes) HandOver();
    for (Buffer &b : g_pool) b.full.wait(1, std::memory_order_acquire);
}

void Marks(long n) {
    for (long i = 0; i < n; ++i) g_mark(MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS);
}
void Ranges(long n) {
    for (long i = 0; i < n; ++i) {
        g_mark(MSPTI_ACTIVITY_FLAG_MARKER_START);
        g_mark(MSPTI_ACTIVITY_FLAG_MARKER_END);
    }
}

}  // namespace

int main(int argc, char **argv) {
    const std::string design = argc > 1 ? argv[1] : "";
    const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
    const int buffers = argc > 3 ? std::atoi(argv[3]) : 24;
    if ((design != "direct" && design != "ring") || reps < 1 || buffers < 1) {
        std::fprintf(stderr, "usage: %s direct|ring [repetitions >= 1] [buffers per loop >= 1]\n", argv[0]);
        return 2;
    }
    g_mark = design == "direct" ? MarkDirect : MarkRing;
    for (Buffer &b : g_pool) {
        b.bytes = static_cast<uint8_t *>(std::aligned_alloc(4096, kBufferBytes));
        std::memset(b.bytes, 0, kBufferBytes);  // pages faulted once, as a recycling client's
    }
    g_p.at = g_pool[0].bytes;
    g_p.end = g_p.at + kRecordsPerBuffer * kRecord;
    std::thread client(Client);
    const long records = static_cast<long>(buffers * kRecordsPerBuffer);
    Marks(kShortCalls);  // warm-up
    Flush();
    uint64_t written = kShortCalls;
    std::printf(
        "{\"client\": \"floor-%s\", \"record_bytes\": %zu, \"buffer_bytes\": %zu, \"records_per_loop\": %ld, "
        "\"short_calls\": %d, \"reps\": [",
        design.c_str(), kRecord, kBufferBytes, records, kShortCalls);
    RunRepetitions(reps, records, Marks, Ranges, Flush);
    written +=
        uint64_t(reps) * (uint64_t(records) + uint64_t(records / 2) * 2 + uint64_t(kShortLoops) * kShortCalls * 3);
    Flush();
    g_done.store(true, std::memory_order_release);
    Buffer &b = g_pool[g_p.index];  // an empty buffer handed over ends the client
    b.valid = 0;
    b.full.store(1, std::memory_order_release);
    b.full.notify_one();
    client.join();
    const uint64_t read = g_read.load();
    std::printf("], \"produced\": %llu, \"delivered\": %llu, \"dropped\": 0, \"read\": %llu}\n",
                static_cast<unsigned long long>(written), static_cast<unsigned long long>(read),
                static_cast<unsigned long long>(read));
    return read == written ? 0 : 1;
}
