#include "device/hal_channel_reader.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <vector>

namespace mspti::device {

using namespace cann;

namespace {

constexpr unsigned int kTsProfilingEnable = 1;
constexpr unsigned int kSamplePeriodMs = 20;
constexpr unsigned int kRealTime = 1;
constexpr int kPollTimeoutS = 1;
constexpr int kProfStoppedAlready = -4;

uint64_t mono_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

const char *start_result_name(StartResult r) {
    switch (r) {
    case StartResult::kStarted: return "started";
    case StartResult::kAlreadyStarted: return "already started";
    case StartResult::kNoDriver: return "no libascend_hal.so";
    case StartResult::kNoDevice: return "no such device";
    case StartResult::kChipNotSupported: return "chip id not read (only 5: 910B, 7: 310B, 15: V6)";
    case StartResult::kNoChannel: return "the device has no such channel";
    case StartResult::kFailed: return "prof_drv_start failed";
    }
    return "?";
}

HalChannelReader::~HalChannelReader() {
    stop_all();
    for (auto &dev : channels_)
        for (Channel &c : dev) {
            delete c.decoder;
            delete[] c.buffer;
        }
}

int HalChannelReader::slot(uint32_t channel) {
    return channel == kChannelTsFw ? 0 : channel == kChannelStarsSocLog ? 1 : -1;
}

HalChannelReader::Channel *HalChannelReader::find(uint32_t device, uint32_t channel) {
    int s = slot(channel);
    return device < kMaxDevices && s >= 0 ? &channels_[device][s] : nullptr;
}

bool HalChannelReader::started(uint32_t device, uint32_t channel) const {
    int s = slot(channel);
    return device < kMaxDevices && s >= 0 && channels_[device][s].on.load(std::memory_order_acquire);
}

int64_t HalChannelReader::chip(uint32_t device) const {
    int64_t version = 0;
    if (hal_.halGetDeviceInfo == nullptr || hal_.halGetDeviceInfo(device, 0, kInfoVersion, &version) != 0) return -1;
    return (version >> 8) & 0xff;
}

void HalChannelReader::sync_clock(uint32_t device) {
    int64_t freq = 0;
    if (hal_.halGetDeviceInfo(device, 0, kInfoDevOscFreq, &freq) != 0 || freq <= 0) return;
    // The counter read between two host readings: their midpoint is its host time, within half the
    // gap. A thread held up between the readings (preempted on a loaded machine) widens the gap to
    // microseconds or more, so the narrowest of a few readings is kept.
    constexpr int kReadings = 16;
    uint64_t best_gap = UINT64_MAX;
    DeviceSync best{};
    for (int i = 0; i < kReadings; ++i) {
        int64_t ticks = 0;
        const uint64_t a = mono_ns();
        if (hal_.halGetDeviceInfo(device, 0, kInfoSysCount, &ticks) != 0) return;
        const uint64_t b = mono_ns();
        if (b - a < best_gap) {
            best_gap = b - a;
            best = DeviceSync{static_cast<uint64_t>(freq), static_cast<uint64_t>(ticks), a + (b - a) / 2};
        }
    }
    clocks_.set(device, best);
}

StartResult HalChannelReader::start(uint32_t device, uint32_t channel) {
    if (hal_.prof_drv_start == nullptr || hal_.prof_channel_poll == nullptr || hal_.prof_channel_read == nullptr ||
        hal_.halGetDeviceInfo == nullptr)
        return StartResult::kNoDriver;
    Channel *c = find(device, channel);
    if (c == nullptr) return StartResult::kNoChannel;
    std::lock_guard<std::mutex> control(control_);
    if (c->on.load(std::memory_order_relaxed)) return StartResult::kAlreadyStarted;
    uint32_t count = 0;
    if (hal_.drvGetDevNum != nullptr && (hal_.drvGetDevNum(&count) != 0 || device >= count))
        return StartResult::kNoDevice;
    int64_t id = chip(device);
    if (id < 0) return StartResult::kNoDevice;
    if (!chip_supported(static_cast<uint32_t>(id))) return StartResult::kChipNotSupported;
    if (hal_.prof_drv_get_channels != nullptr) {
        std::vector<unsigned char> list(ChannelListLayout::kSize);
        if (hal_.prof_drv_get_channels(device, list.data()) != 0) return StartResult::kNoChannel;
        uint32_t n = load<uint32_t>(list.data(), ChannelListLayout::kChannelNum);
        bool found = false;
        for (uint32_t i = 0; i < n && i < ChannelListLayout::kMax && !found; ++i)
            found = load<uint32_t>(list.data(), ChannelListLayout::kFirst + i * ChannelListLayout::kInfoSize +
                                                    ChannelListLayout::kInfoId) == channel;
        if (!found) return StartResult::kNoChannel;
    }
    if (!clocks_.known(device)) sync_clock(device);
    {
        std::lock_guard<std::mutex> lock(parse_);
        if (c->decoder == nullptr) {
            c->decoder = new ChannelDecoder(device, static_cast<uint32_t>(id), channel);
            c->buffer = new char[kReadBytes];
        }
        c->decoder->reset();
    }
    // The configurations msPTI starts them with (the layouts of the driver's TS-FW and SoC-log configs).
    uint32_t ts_config[9] = {kSamplePeriodMs, 0, 0, 0, 0, 0, 1, 0, kTsProfilingEnable};
    uint32_t soc_config[11] = {kTsProfilingEnable, 0, 0, 0, 0, 0, kTsProfilingEnable, 0, 0, 0, 0};
    ProfStartPara para{};
    para.channelType = 0;  // PROF_CHANNEL_TYPE_TS
    para.samplePeriod = id == kChipV6 ? 0 : kSamplePeriodMs;
    para.realTime = kRealTime;
    if (channel == kChannelTsFw) {
        para.userData = ts_config;
        para.userDataSize = sizeof ts_config;
    } else {
        para.userData = soc_config;
        para.userDataSize = sizeof soc_config;
    }
    if (hal_.prof_drv_start(device, channel, &para) != 0) return StartResult::kFailed;
    c->on.store(true, std::memory_order_release);
    if (on_count_.fetch_add(1, std::memory_order_acq_rel) == 0) {
        uint64_t generation = generation_.load(std::memory_order_relaxed);
        poller_ = std::thread([this, generation] { poll_main(generation); });
    }
    return StartResult::kStarted;
}

uint64_t HalChannelReader::drain(uint32_t device, uint32_t channel, Channel &c) {
    if (c.decoder == nullptr) return 0;
    // Until a read finds nothing: what the device wrote before the call is then parsed. Bounded by
    // the bytes the channel could hold many times over, so a device that writes faster than we read
    // cannot keep a flush going.
    constexpr int kMaxReads = 4096;
    uint64_t total = 0;
    for (int i = 0; i < kMaxReads; ++i) {
        int n = hal_.prof_channel_read(device, channel, c.buffer, kReadBytes);
        if (n < 0) {
            read_errors_.fetch_add(1, std::memory_order_relaxed);
            return total;
        }
        if (n == 0) return total;
        c.decoder->feed(c.buffer, static_cast<size_t>(n), sink_);
        total += static_cast<uint64_t>(n);
    }
    return total;
}

void HalChannelReader::flush_channel(uint32_t device, uint32_t channel, Channel &c) {
    unsigned int length = 0;
    if (hal_.halProfDataFlush == nullptr || hal_.halProfDataFlush(device, channel, &length) != 0) {
        drain(device, channel, c);  // no length said: what is there now
        return;
    }
    if (c.decoder == nullptr) return;
    // The driver hands out whole records, so a length that is not a multiple of the record size (the
    // virtual driver's is one byte over, for msPTI's sake) is met once every whole record in it is read.
    const uint64_t record = c.decoder->record_bytes();
    auto met = [&](uint64_t got) { return got >= length || (length - got < record && c.decoder->pending() == 0); };
    uint64_t got = drain(device, channel, c);
    if (met(got)) return;
    // The flushed data is still on its way from the device: read again until it is all there.
    const auto deadline = std::chrono::steady_clock::now() + kFlushWait;
    while (!met(got)) {
        if (std::chrono::steady_clock::now() >= deadline) {
            short_flushes_.fetch_add(1, std::memory_order_relaxed);
            return;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));  // a poll for the data, bounded above
        got += drain(device, channel, c);
    }
}

// After reading, the poll thread lets the channels fill for a while before it polls again: a device
// that finishes a kernel every few microseconds then costs one wake-up and one read per interval, not
// per kernel (a flush reads at once, on its caller's thread, whatever the poll thread does). Each
// wake-up costs the process more than its own work: on 2 cores the reader takes a core from the
// launching thread or the device. Measured with KERNEL on the virtual NPU (docs/performance.md,
// "KERNEL collection against its floor"), the former rule (back to 1 ms whenever a round read 64 KiB:
// every 1 to 4 ms there) cost +22.7 % process CPU, reading every 8 ms +12.5 %, every 32 ms +9.5 %. So
// the interval starts at 1 ms and doubles, up to 16 ms, while no channel gives kBusyBytes in a round,
// and halves, down to 1 ms, when one does: a quarter of the virtual driver's 2 MiB SoC-log ring, so
// that a device writing faster is read well before its ring fills (at 16 ms, 512 KiB is 8,192 SoC-log
// records: a kernel every 3.9 us).
std::chrono::milliseconds next_read_interval(std::chrono::milliseconds current, uint64_t busiest) {
    using R = HalChannelReader;
    return busiest >= R::kBusyBytes ? std::max(current / 2, R::kMinReadInterval)
                                    : std::min(current * 2, R::kMaxReadInterval);
}

void HalChannelReader::poll_main(uint64_t generation) {
    ProfPollInfo info[2 * kMaxDevices];
    auto interval = kMinReadInterval;
    // A later generation's poller replaces this one (stopped, then started again before it left).
    while (on_count_.load(std::memory_order_acquire) != 0 &&
           generation_.load(std::memory_order_acquire) == generation) {
        int n = hal_.prof_channel_poll(info, static_cast<int>(2 * kMaxDevices), kPollTimeoutS);
        if (n == kProfStoppedAlready) {
            // The driver has no channel started while we think one is: ours is being stopped right
            // now. A short back-off, not a spin, until on_count_ says so.
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
        }
        if (n < 0) {
            read_errors_.fetch_add(1, std::memory_order_relaxed);
            continue;
        }
        uint64_t busiest = 0;  // the most one channel held
        for (int i = 0; i < n && i < static_cast<int>(2 * kMaxDevices); ++i) {
            Channel *c = find(info[i].deviceId, info[i].channelId);
            if (c == nullptr || !c->on.load(std::memory_order_acquire)) continue;
            std::lock_guard<std::mutex> lock(parse_);
            busiest = std::max(busiest, drain(info[i].deviceId, info[i].channelId, *c));
        }
        if (n > 0) {
            interval = next_read_interval(interval, busiest);
            nap(generation, interval);
        }
    }
}

void HalChannelReader::nap(uint64_t generation, std::chrono::milliseconds interval) {
    // Woken early by the last channel's stop, so that stopping never waits for the interval.
    std::unique_lock<std::mutex> lock(nap_mu_);
    nap_cv_.wait_for(lock, interval, [&] {
        return on_count_.load(std::memory_order_acquire) == 0 ||
               generation_.load(std::memory_order_acquire) != generation;
    });
}

void HalChannelReader::flush() {
    for (uint32_t dev = 0; dev < kMaxDevices; ++dev) {
        for (uint32_t ch : {kChannelTsFw, kChannelStarsSocLog}) {
            Channel *c = find(dev, ch);
            if (!c->on.load(std::memory_order_acquire)) continue;
            // Flushed under the parse lock: the poller cannot read the bytes counted by the flush.
            std::lock_guard<std::mutex> lock(parse_);
            flush_channel(dev, ch, *c);
        }
    }
}

void HalChannelReader::stop(uint32_t device, uint32_t channel) {
    Channel *c = find(device, channel);
    if (c == nullptr) return;
    std::thread leaving;
    {
        std::lock_guard<std::mutex> control(control_);
        if (!c->on.load(std::memory_order_relaxed)) return;
        std::lock_guard<std::mutex> lock(parse_);
        flush_channel(device, channel, *c);  // what finished before the stop is delivered
        c->on.store(false, std::memory_order_release);
        if (hal_.prof_stop != nullptr) hal_.prof_stop(device, channel);
        if (on_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            {
                std::lock_guard<std::mutex> hold(nap_mu_);  // a napping poller sees the change before it waits
                generation_.fetch_add(1, std::memory_order_acq_rel);
            }
            nap_cv_.notify_all();
            leaving = std::move(poller_);
        }
    }
    // Joined with no lock held: the poller may be waiting for a channel's lock.
    if (leaving.joinable()) {
        if (leaving.get_id() == std::this_thread::get_id())
            leaving.detach();  // stopped from a sink callback on the poller itself
        else
            leaving.join();
    }
}

void HalChannelReader::stop_all() {
    for (uint32_t dev = 0; dev < kMaxDevices; ++dev)
        for (uint32_t ch : {kChannelTsFw, kChannelStarsSocLog})
            if (started(dev, ch)) stop(dev, ch);
}

DecoderCounts HalChannelReader::counts() const {
    DecoderCounts sum;
    for (auto &dev : channels_)
        for (const Channel &c : dev) {
            std::lock_guard<std::mutex> lock(const_cast<std::mutex &>(parse_));
            if (c.decoder == nullptr) continue;
            const DecoderCounts &k = c.decoder->counts();
            sum.records += k.records;
            sum.skipped += k.skipped;
            sum.malformed += k.malformed;
            sum.bytes += k.bytes;
        }
    return sum;
}

void HalChannelReader::fork_prepare() {
    control_.lock();
    parse_.lock();
}

void HalChannelReader::fork_parent() {
    parse_.unlock();
    control_.unlock();
}

void HalChannelReader::forget_after_fork() {
    // The parent's poll thread does not exist here; its handle is released without a join.
    if (poller_.joinable()) poller_.detach();
    for (auto &dev : channels_)
        for (Channel &c : dev) {
            c.on.store(false, std::memory_order_relaxed);
            if (c.decoder != nullptr) c.decoder->reset();
        }
    new (&control_) std::mutex;
    new (&parse_) std::mutex;
    new (&nap_mu_) std::mutex;
    new (&nap_cv_) std::condition_variable;
    on_count_.store(0, std::memory_order_relaxed);
}

}  // namespace mspti::device
