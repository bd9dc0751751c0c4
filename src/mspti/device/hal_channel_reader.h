// Reads the driver's profiling channels (libascend_hal.so): starts STARS SoC log (50) and TS-FW (44)
// per device with the configuration msPTI uses, polls them on one thread of its own, reads, and hands
// the bytes to each channel's ChannelDecoder, whose records go to a ChannelSink. After a read the poll
// thread waits before it polls again (1 to 16 ms: longer while no channel gives 512 KiB, a quarter of
// the virtual driver's SoC-log ring, in a round), so a device's records are read in batches, not with
// a wake-up per kernel. Channels are read and parsed under one lock, so flush() (on the caller's
// thread: the device flushes and says how many bytes are left, then the channel is read until that
// many were read, waiting for data still on its way, and on until empty) returns only once everything
// the device had written is parsed: unlike msPTI, where a flush counts as done once data is read.
// Device ticks convert through DeviceClocks, set from the device's counter and frequency when its
// first channel starts.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "device/cann_layouts.h"
#include "device/channel_decoder.h"
#include "device/device_clock.h"

namespace mspti::device {

/// libascend_hal.so's functions (or a test's fake). Any may be null: then what needs it fails.
struct HalApi {
    int (*drvGetDevNum)(uint32_t *count) = nullptr;
    int (*halGetDeviceInfo)(uint32_t device, int32_t module, int32_t info, int64_t *value) = nullptr;
    int (*halGetAPIVersion)(int32_t *version) = nullptr;
    int (*prof_drv_get_channels)(unsigned int device, void *channelList) = nullptr;
    int (*prof_drv_start)(unsigned int device, unsigned int channel, cann::ProfStartPara *para) = nullptr;
    int (*prof_stop)(unsigned int device, unsigned int channel) = nullptr;
    int (*prof_channel_poll)(cann::ProfPollInfo *out, int num, int timeout) = nullptr;
    int (*prof_channel_read)(unsigned int device, unsigned int channel, char *out, unsigned int size) = nullptr;
    int (*halProfDataFlush)(unsigned int device, unsigned int channel, unsigned int *length) = nullptr;
};

/// What start() answers.
enum class StartResult { kStarted, kAlreadyStarted, kNoDriver, kNoDevice, kChipNotSupported, kNoChannel, kFailed };
const char *start_result_name(StartResult r);

class HalChannelReader {
public:
    static constexpr uint32_t kMaxDevices = DeviceClocks::kMaxDevices;
    static constexpr unsigned int kReadBytes = 64 * 1024;  // per read: a multiple of 64 and of 40
    /// The poll thread's wait between rounds of reads (next_read_interval).
    static constexpr std::chrono::milliseconds kMinReadInterval{1}, kMaxReadInterval{16};
    /// A round in which one channel gave this much shortens the wait.
    static constexpr uint64_t kBusyBytes = 512 * 1024;

    HalChannelReader(const HalApi &hal, ChannelSink &sink) : hal_(hal), sink_(sink) {}
    ~HalChannelReader();  // stops every channel
    HalChannelReader(const HalChannelReader &) = delete;
    HalChannelReader &operator=(const HalChannelReader &) = delete;

    /// Chip id of a device (halGetDeviceInfo VERSION bits 8-15), or -1 when the driver does not say.
    int64_t chip(uint32_t device) const;
    /// Starts `channel` (44 or 50) of `device` and the poll thread if needed.
    StartResult start(uint32_t device, uint32_t channel);
    /// Reads what is left, then stops the channel; the poll thread leaves with the last channel.
    void stop(uint32_t device, uint32_t channel);
    void stop_all();
    /// Flushes every started channel and parses all it held; returns once parsed.
    void flush();
    bool started(uint32_t device, uint32_t channel) const;

    const DeviceClocks &clocks() const { return clocks_; }
    /// Sum of the decoders' counts over every channel ever started.
    DecoderCounts counts() const;
    uint64_t read_errors() const { return read_errors_.load(std::memory_order_relaxed); }
    /// Flushes that gave up waiting for the bytes halProfDataFlush said were left (kFlushWait).
    uint64_t short_flushes() const { return short_flushes_.load(std::memory_order_relaxed); }
    /// How long a flush waits for the bytes the driver said were left before it gives up.
    static constexpr std::chrono::milliseconds kFlushWait{1000};

    /// fork(): holds every lock of the reader across it (parent releases them; the child renews them).
    void fork_prepare();
    void fork_parent();
    /// fork(): the child has no poll thread and owns no channel (the parent's); it forgets them.
    void forget_after_fork();

private:
    struct Channel {
        std::atomic<bool> on{false};
        ChannelDecoder *decoder = nullptr;  // under parse_; kept once made (its counts live on)
        char *buffer = nullptr;
    };
    static int slot(uint32_t channel);
    Channel *find(uint32_t device, uint32_t channel);
    uint64_t drain(uint32_t device, uint32_t channel, Channel &c);  // caller holds parse_; bytes read
    void flush_channel(uint32_t device, uint32_t channel, Channel &c);  // caller holds parse_
    void sync_clock(uint32_t device);
    void poll_main(uint64_t generation);
    void nap(uint64_t generation, std::chrono::milliseconds interval);  // the wait between reads

    HalApi hal_;
    ChannelSink &sink_;
    DeviceClocks clocks_;
    Channel channels_[kMaxDevices][2];
    std::mutex control_;  // start/stop and the poll thread
    // Reading and parsing, every channel: the sink gets records one at a time, in channel order,
    // whichever thread (poller or flusher) parses them.
    std::mutex parse_;
    std::thread poller_;
    std::mutex nap_mu_;  // with nap_cv_: the poller's wait between reads, cut short by the last stop
    std::condition_variable nap_cv_;
    std::atomic<uint32_t> on_count_{0};
    std::atomic<uint64_t> generation_{0};
    std::atomic<uint64_t> read_errors_{0};
    std::atomic<uint64_t> short_flushes_{0};
};

/// The poll thread's next wait after a round of reads in which the busiest channel gave `busiest`
/// bytes: half of `current` (at least kMinReadInterval) if that is kBusyBytes or more, else twice it
/// (at most kMaxReadInterval).
std::chrono::milliseconds next_read_interval(std::chrono::milliseconds current, uint64_t busiest);

}  // namespace mspti::device
