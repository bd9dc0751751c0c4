// libascend_hal.so, profiling channels: per device a STARS SoC-log ring (channel 50) and a TS-FW ring
// (channel 44). Stream workers write whole records while a channel is started; a profiler polls for
// channels with new data, reads whole records and flushes. New data is reported to poll at once (the
// driver's sample period is not modelled: see docs/architecture.md).
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "ascend_hal.h"
#include "device_info.h"

#define HAL_EXPORT __attribute__((visibility("default")))

namespace vnpu::hal {
namespace {

constexpr uint32_t kMaxDevices = 64;
constexpr size_t kRingRecords = 32768;  // per channel: 2 MiB of 64-byte records

using Clock = std::chrono::steady_clock;

// The ring's three positions count bytes since the channel was made (a byte's place in the ring is its
// count modulo the ring's size): writers reserve room by compare-exchange on `reserved` and publish in
// the order they reserved through `committed`; a reader reads up to `committed` and moves `consumed`.
// Writers take no lock (each stream's worker writes its device's channel); readers, a stop and a flush
// take mu among themselves.
struct Channel {
    std::atomic<bool> on{false};
    std::atomic<uint64_t> dropped{0};
    uint32_t dev = 0;
    uint32_t kind = 0;  // 0: TS-FW, 1: SoC log (the bit of Channels::pending it sets)
    uint64_t emptyReads = 0;  // guarded by mu: reads that found the ring empty
    std::mutex mu;  // readers, stop and flush; the ring's size is set under it before the first start
    std::vector<char> ring;
    std::atomic<uint64_t> reserved{0};
    std::atomic<uint64_t> committed{0};
    std::atomic<uint64_t> consumed{0};  // written under mu
    uint64_t reportedAt = ~uint64_t{0};  // guarded by Channels::pollMu: `consumed` when a poll last reported it
};

struct Channels {
    Channel tsfw[kMaxDevices];
    Channel soclog[kMaxDevices];
    std::mutex pollMu;  // guards started, pending and the poll wake-ups
    std::condition_variable pollCv;
    std::condition_variable readCv;  // with a channel's mu: a read found the ring empty (vnpuHalDrain)
    uint32_t started = 0;
    // Per kind (0: TS-FW, 1: SoC log), a bit per device: new data or a flush since a poll reported
    // the channel. A poll visits only these channels, not every device's.
    uint64_t pending[2] = {0, 0};

    Channels() {
        for (uint32_t dev = 0; dev < kMaxDevices; ++dev) {
            tsfw[dev].dev = soclog[dev].dev = dev;
            soclog[dev].kind = 1;
        }
    }
};

Channels &channels() {
    static auto *c = new Channels;  // leaked on purpose: workers may write during process exit
    return *c;
}

Channel *find(uint32_t dev, uint32_t ch) {
    if (dev >= kMaxDevices) {
        return nullptr;
    }
    if (ch == kChannelTsFw) {
        return &channels().tsfw[dev];
    }
    if (ch == kChannelStarsSocLog) {
        return &channels().soclog[dev];
    }
    return nullptr;
}

size_t record_size(uint32_t ch) {
    if (ch == kChannelTsFw) {
        return sizeof(StepTrace);
    }
    return chip_id() == kChipV6 ? sizeof(StarsSocLogV6) : sizeof(StarsSocLog);
}

// Tells a poller that the channel has something for it (a poller already told needs no wake-up).
void signal(Channel &c) {
    Channels &all = channels();
    const uint64_t bit = uint64_t{1} << c.dev;
    std::lock_guard<std::mutex> lock(all.pollMu);
    if ((all.pending[c.kind] & bit) != 0) {
        return;
    }
    all.pending[c.kind] |= bit;
    all.pollCv.notify_all();
}

// Copies `len` bytes of whole records of `rec` bytes (64, 40 or 32) in fixed-size pieces the compiler
// copies with a few vector moves: a reader's copy costs a few instructions per record, where memcpy's
// string move for a large read counts as one instruction per byte.
void copy_records(char *out, const char *in, size_t len, size_t rec) {
    if (rec % 64 == 0) {
        for (size_t i = 0; i < len; i += 64) {
            std::memcpy(out + i, in + i, 64);
        }
        return;
    }
    if (rec % 32 == 0) {
        for (size_t i = 0; i < len; i += 32) {
            std::memcpy(out + i, in + i, 32);
        }
        return;
    }
    for (size_t i = 0; i < len; i += 8) {
        std::memcpy(out + i, in + i, 8);
    }
}

// The place in a ring of `cap` bytes of the byte counted `at` (the SoC-log rings' sizes are powers of 2).
size_t place(uint64_t at, size_t cap) {
    return (cap & (cap - 1)) == 0 ? static_cast<size_t>(at & (cap - 1)) : static_cast<size_t>(at % cap);
}

// Reserves `len` bytes at the ring's tail for one writer: false when they do not fit (a full ring, or a
// channel never started, whose ring is empty). `at`: the count of the first byte reserved.
[[gnu::always_inline]] inline bool reserve(Channel &c, size_t len, uint64_t &at) {
    const size_t cap = c.ring.size();
    if (cap < len) {
        return false;
    }
    uint64_t r = c.reserved.load(std::memory_order_relaxed);
    for (;;) {
        // Room once the reader's copy of these bytes is done (acquire: its release after the copy).
        const uint64_t read = c.consumed.load(std::memory_order_acquire);
        if (static_cast<int64_t>(r - read) < 0) {
            // `r` is stale: other writers reserved and published since, and the reader read past it.
            // Taken as a fill level it would look like a full ring and drop a record that fits.
            r = c.reserved.load(std::memory_order_relaxed);  // not older than `read` (acquire above)
            continue;
        }
        if (r - read > cap - len) {
            return false;
        }
        if (c.reserved.compare_exchange_weak(r, r + len, std::memory_order_relaxed)) {
            break;
        }
    }
    at = r;
    return true;
}

// Publishes the `len` bytes reserved at `at`, written, after those of writers that reserved before (the
// wait is for a writer between its reservation and its publication: a few stores). Tells a poller when
// the reader had read everything before them. No fence between the store and the load: a fence waits
// for the record's stores, whose lines the reader holds on another core (about 75 ns per task on a
// 2-core VM). Without it, a write racing a read can miss that the read took everything before it and
// stay unannounced; prof_channel_poll finds such bytes itself (unread_channels).
[[gnu::always_inline]] inline void publish(Channel &c, uint64_t at, size_t len) {
    while (c.committed.load(std::memory_order_acquire) != at) {
        std::this_thread::yield();
    }
    c.committed.store(at + len, std::memory_order_release);
    if (c.consumed.load(std::memory_order_relaxed) == at) {
        signal(c);
    }
}

// Marks pending every started channel holding bytes not read yet (with pollMu held). This is what
// announces a write that raced a read (publish); such a write is visible within nanoseconds of the read,
// which the poll's first recheck, 1 ms on, covers. On a poll's entry (`entry`), only channels read since
// a poll last reported them: a profiler that hands reads to other threads (msPTI's library) polls again
// before they read, and was answered at once, again and again, a poll loop that spun a core (1.9 million
// instructions per kernel); a profiler that read polls again and hears of what it has not read at once.
void unread_channels(Channels &all, bool entry) {
    for (uint32_t dev = 0; dev < kMaxDevices; ++dev) {
        for (uint32_t kind = 0; kind < 2; ++kind) {
            Channel &c = kind == 0 ? all.tsfw[dev] : all.soclog[dev];
            if (!c.on.load(std::memory_order_relaxed)) {
                continue;
            }
            const uint64_t consumed = c.consumed.load(std::memory_order_acquire);
            if (c.committed.load(std::memory_order_acquire) != consumed && (!entry || consumed != c.reportedAt)) {
                all.pending[kind] |= uint64_t{1} << dev;
            }
        }
    }
}

// Writes `len` bytes holding `records` whole records, all or none (a full ring drops them all).
int write_record(uint32_t dev, uint32_t ch, const void *record, size_t len, uint64_t records = 1) {
    Channel *c = find(dev, ch);
    if (c == nullptr || !c->on.load(std::memory_order_acquire)) {
        return -1;
    }
    uint64_t at = 0;
    if (!reserve(*c, len, at)) {
        c->dropped.fetch_add(records, std::memory_order_relaxed);
        return -1;
    }
    const size_t cap = c->ring.size();
    const size_t tail = place(at, cap);
    const size_t first = std::min(len, cap - tail);
    std::memcpy(c->ring.data() + tail, record, first);
    std::memcpy(c->ring.data(), static_cast<const char *>(record) + first, len - first);
    publish(*c, at, len);
    return 0;
}

// A task's SoC-log begin and end (Log: StarsSocLog or StarsSocLogV6), built in place at the ring's tail
// with no lock: no copy from the stack and no division for the wrap. The ring holds whole records of
// this size (its size is a multiple of it and reads take whole records), so no record straddles its end.
template <typename Log>
int write_span(uint32_t dev, uint32_t stream, uint32_t task, uint64_t beginTicks, uint64_t endTicks) {
    constexpr size_t kLen = 2 * sizeof(Log);
    Channel *c = find(dev, kChannelStarsSocLog);
    if (c == nullptr || !c->on.load(std::memory_order_acquire)) {
        return -1;
    }
    uint64_t at = 0;
    if (!reserve(*c, kLen, at)) {
        c->dropped.fetch_add(2, std::memory_order_relaxed);
        return -1;
    }
    const size_t cap = c->ring.size();
    size_t tail = place(at, cap);
    for (uint32_t i = 0; i < 2; ++i) {
        Log *r = new (c->ring.data() + tail) Log{};
        r->funcType = i;  // 0: begin, 1: end
        if constexpr (sizeof(Log) == sizeof(StarsSocLog)) {
            r->streamId = static_cast<uint16_t>(stream);
            r->taskId = static_cast<uint16_t>(task);
        } else {
            (void)stream;
            r->taskId = task;
        }
        r->timestamp = i == 0 ? beginTicks : endTicks;
        tail += sizeof(Log);
        if (tail == cap) {
            tail = 0;
        }
    }
    publish(*c, at, kLen);
    return 0;
}

}  // namespace
}  // namespace vnpu::hal

using namespace vnpu::hal;

extern "C" {

HAL_EXPORT int prof_drv_get_channels(unsigned int deviceId, ChannelList *channelList) {
    uint32_t count = 0;
    drvGetDevNum(&count);
    if (channelList == nullptr || deviceId >= count) {
        return kProfError;
    }
    std::memset(channelList, 0, sizeof *channelList);
    channelList->chipType = vnpuHalChipId();
    channelList->channelNum = 2;
    std::snprintf(channelList->channel[0].channelName, sizeof channelList->channel[0].channelName, "ts_fw");
    channelList->channel[0].channelType = 0;  // PROF_CHANNEL_TYPE_TS
    channelList->channel[0].channelId = kChannelTsFw;
    std::snprintf(channelList->channel[1].channelName, sizeof channelList->channel[1].channelName, "stars_soc_log");
    channelList->channel[1].channelType = 1;  // PROF_CHANNEL_TYPE_PERIPHERAL
    channelList->channel[1].channelId = kChannelStarsSocLog;
    return 0;
}

HAL_EXPORT int prof_drv_start(unsigned int deviceId, unsigned int channelId, ProfStartPara *startPara) {
    uint32_t count = 0;
    drvGetDevNum(&count);
    Channel *c = deviceId < count ? find(deviceId, channelId) : nullptr;
    if (c == nullptr || startPara == nullptr || (startPara->userData == nullptr && startPara->userDataSize != 0)) {
        std::fprintf(stderr,
                     "libascend_hal: prof_drv_start(device=%u, channel=%u, para=%p): no such channel or bad para\n",
                     deviceId, channelId, static_cast<void *>(startPara));
        return kProfError;
    }
    {
        std::lock_guard<std::mutex> lock(c->mu);
        if (c->ring.empty()) {
            c->ring.resize(kRingRecords * record_size(channelId));
        }
    }
    Channels &all = channels();
    std::lock_guard<std::mutex> lock(all.pollMu);
    if (!c->on.exchange(true)) {
        ++all.started;
    }
    return 0;
}

HAL_EXPORT int prof_stop(unsigned int deviceId, unsigned int channelId) {
    Channel *c = find(deviceId, channelId);
    if (c == nullptr) {
        return kProfError;
    }
    Channels &all = channels();
    {
        std::lock_guard<std::mutex> lock(all.pollMu);
        if (c->on.exchange(false)) {
            --all.started;
        }
        all.pending[c->kind] &= ~(uint64_t{1} << c->dev);
        all.pollCv.notify_all();
    }
    std::lock_guard<std::mutex> lock(c->mu);
    // A stopped channel's data is gone, as the driver's.
    c->consumed.store(c->committed.load(std::memory_order_acquire), std::memory_order_release);
    return 0;
}

HAL_EXPORT int prof_channel_poll(ProfPollInfo *outBuf, int num, int timeout) {
    if (outBuf == nullptr || num <= 0 || timeout < 0) {
        return kProfError;
    }
    Channels &all = channels();
    // Device order, TS-FW before SoC log; a channel not reported (num reached) stays pending.
    auto collect = [&] {
        int n = 0;
        for (uint64_t devs = all.pending[0] | all.pending[1]; devs != 0 && n < num; devs &= devs - 1) {
            const auto dev = static_cast<uint32_t>(__builtin_ctzll(devs));
            const uint64_t bit = uint64_t{1} << dev;
            for (uint32_t kind = 0; kind < 2 && n < num; ++kind) {
                if ((all.pending[kind] & bit) == 0) {
                    continue;
                }
                all.pending[kind] &= ~bit;
                Channel &c = kind == 0 ? all.tsfw[dev] : all.soclog[dev];
                if (c.on.load()) {
                    outBuf[n++] = ProfPollInfo{dev, kind == 0 ? kChannelTsFw : kChannelStarsSocLog};
                    c.reportedAt = c.consumed.load(std::memory_order_acquire);
                }
            }
        }
        return n;
    };
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(timeout);
    // Woken by a writer's signal, or at rechecks 1, 2, 4, ... ms on, for bytes no signal announced.
    auto recheck = std::chrono::milliseconds(1);
    bool waited = false;
    std::unique_lock<std::mutex> lock(all.pollMu);
    for (;;) {
        if (all.started == 0) {
            return kProfStoppedAlready;
        }
        unread_channels(all, !waited);
        int n = collect();
        if (n > 0 || Clock::now() >= deadline) {
            return n;
        }
        all.pollCv.wait_until(lock, std::min(deadline, Clock::now() + recheck));
        waited = true;
        recheck = std::min(recheck * 2, std::chrono::milliseconds(1000));
    }
}

HAL_EXPORT int prof_channel_read(unsigned int deviceId, unsigned int channelId, char *outBuf, unsigned int bufSize) {
    Channel *c = find(deviceId, channelId);
    if (c == nullptr || outBuf == nullptr) {
        return kProfError;
    }
    const size_t rec = record_size(channelId);
    std::lock_guard<std::mutex> lock(c->mu);
    const uint64_t from = c->consumed.load(std::memory_order_relaxed);
    const uint64_t size = c->committed.load(std::memory_order_acquire) - from;
    const size_t len = static_cast<size_t>(std::min<uint64_t>(size, bufSize / rec * rec));  // whole records only
    if (len == 0) {
        if (size == 0) {
            ++c->emptyReads;
            channels().readCv.notify_all();
        }
        return 0;
    }
    const size_t cap = c->ring.size();
    const size_t head = place(from, cap);
    const size_t first = std::min(len, cap - head);
    copy_records(outBuf, c->ring.data() + head, first, rec);
    copy_records(outBuf + first, c->ring.data(), len - first, rec);
    c->consumed.store(from + len, std::memory_order_release);  // after the copy: writers may reuse the room
    return static_cast<int>(len);
}

// The length reported is what is buffered plus one byte: msPTI counts a flush as done once it has read
// that much, and the extra byte makes that the read after the one that returns the data, i.e. after
// that data was parsed (a flush then covers the last kernel).
HAL_EXPORT int halProfDataFlush(unsigned int deviceId, unsigned int channelId, unsigned int *dataLen) {
    Channel *c = find(deviceId, channelId);
    if (c == nullptr || dataLen == nullptr) {
        return kProfError;
    }
    size_t buffered = 0;
    {
        std::lock_guard<std::mutex> lock(c->mu);
        buffered = c->committed.load(std::memory_order_acquire) - c->consumed.load(std::memory_order_relaxed);
    }
    *dataLen = buffered == 0 ? 0 : static_cast<unsigned int>(buffered + 1);
    if (buffered != 0) {
        signal(*c);
    }
    return 0;
}

// A reader's loop ends with a read that finds the ring empty, after it parsed what it read before; so
// once such a read follows the flush, the profiler has everything the device wrote.
HAL_EXPORT int vnpuHalDrain(uint32_t deviceId, uint32_t timeoutMs) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    int drained = 1;
    for (uint32_t ch : {kChannelTsFw, kChannelStarsSocLog}) {
        Channel *c = find(deviceId, ch);
        if (c == nullptr || !c->on.load()) {
            continue;
        }
        uint64_t before = 0;
        {
            std::lock_guard<std::mutex> lock(c->mu);
            before = c->emptyReads;
        }
        signal(*c);  // as a flush: a poller dispatches the reader now
        std::unique_lock<std::mutex> lock(c->mu);
        if (!channels().readCv.wait_until(lock, deadline, [&] {
                return !c->on.load() || (c->committed.load() == c->consumed.load() && c->emptyReads > before);
            })) {
            drained = 0;
        }
    }
    return drained;
}

HAL_EXPORT int vnpuHalChannelOn(uint32_t deviceId, uint32_t channelId) {
    Channel *c = find(deviceId, channelId);
    return c != nullptr && c->on.load(std::memory_order_relaxed) ? 1 : 0;
}

HAL_EXPORT uint64_t vnpuHalChannelDropped(uint32_t deviceId, uint32_t channelId) {
    Channel *c = find(deviceId, channelId);
    return c != nullptr ? c->dropped.load() : 0;
}

HAL_EXPORT int vnpuHalWriteTaskLog(uint32_t deviceId, uint32_t streamId, uint32_t taskId, uint32_t funcType,
                                   uint64_t ticks) {
    if (vnpuHalChipId() == kChipV6) {
        StarsSocLogV6 r{};
        r.funcType = funcType & 0x3f;
        r.taskId = taskId;
        r.timestamp = ticks;
        return write_record(deviceId, kChannelStarsSocLog, &r, sizeof r);
    }
    StarsSocLog r{};
    r.funcType = funcType & 0x3f;
    r.streamId = static_cast<uint16_t>(streamId);
    r.taskId = static_cast<uint16_t>(taskId);
    r.timestamp = ticks;
    return write_record(deviceId, kChannelStarsSocLog, &r, sizeof r);
}

HAL_EXPORT int vnpuHalWriteTaskSpan(uint32_t deviceId, uint32_t streamId, uint32_t taskId, uint64_t beginNs,
                                    uint64_t endNs) {
    // One lock for both records (write_span).
    const TickRate &rate = tick_rate();
    const uint64_t begin = to_ticks(beginNs, rate);
    const uint64_t end = to_ticks(endNs, rate);
    if (chip_id() == kChipV6) {
        return write_span<StarsSocLogV6>(deviceId, streamId, taskId, begin, end);
    }
    return write_span<StarsSocLog>(deviceId, streamId, taskId, begin, end);
}

HAL_EXPORT int vnpuHalWriteStepTrace(uint32_t deviceId, uint32_t streamId, uint32_t taskId, uint64_t indexId,
                                     uint64_t modelId, uint16_t tagId, uint64_t ticks) {
    if (vnpuHalChipId() == kChipV6) {
        StepTraceV6 r{};
        r.rptType = kRptTypeStepTrace;
        r.bufSize = sizeof r;
        r.timestamp = ticks;
        r.indexId = indexId;
        r.modelId = modelId;
        r.tagId = tagId;
        r.streamId = static_cast<uint16_t>(streamId);
        r.taskId = taskId;
        return write_record(deviceId, kChannelTsFw, &r, sizeof r);
    }
    StepTrace r{};
    r.rptType = kRptTypeStepTrace;
    r.bufSize = sizeof r;
    r.timestamp = ticks;
    r.indexId = indexId;
    r.modelId = modelId;
    r.streamId = static_cast<uint16_t>(streamId);
    r.taskId = static_cast<uint16_t>(taskId);
    r.tagId = tagId;
    return write_record(deviceId, kChannelTsFw, &r, sizeof r);
}

}  // extern "C"
