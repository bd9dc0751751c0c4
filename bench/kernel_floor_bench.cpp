// The floor of KERNEL collection through Ascend's interfaces on the virtual NPU: what the runtime's
// reports and the device's SoC log cost a process when a profiler asks for them and does nothing with
// them. No libmspti: this program registers report callbacks with libprofapi that return at once,
// starts the STARS SoC-log channel of libascend_hal as msPTI does, and reads it on a thread of its own
// (poll, read everything, wait 16 ms: the longest libmspti's reader waits between reads, so this
// reader wakes no more often than libmspti's), counting the bytes and parsing nothing. The same
// workload and strict pairs as bench_kernel_overhead --pairs, whose JSON this prints
// (records_per_kernel: SoC-log records read per kernel), so that the two can be set side by side: what
// libmspti adds on top of this floor is its own cost.
//
// usage: bench_kernel_floor --pairs=N [BATCHES]   (BATCHES of 256 kernels per run, default 64)
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ascend_hal.h"
#include "device/cann_layouts.h"
#include "strict_pairs_json.h"
#include "vnpu_add_kernels.h"

extern "C" {
int32_t MsprofRegisterProfileCallback(int32_t callbackType, void *callback, uint32_t len);
int32_t profSetProfCommand(void *command, uint32_t len);
}

namespace {

namespace cann = mspti::device::cann;
constexpr int kBatch = 256;
constexpr unsigned int kDevice = 0;
constexpr unsigned int kChannel = cann::kChannelStarsSocLog;
constexpr unsigned int kReadBytes = 64 * 1024;
constexpr auto kNap = std::chrono::milliseconds(16);  // between reads

// ---- report callbacks that take nothing from the reports ----
std::atomic<uint64_t> g_hash{0};
int32_t no_compact(uint32_t, const void *, uint32_t) { return 0; }
int32_t no_api(uint32_t, const void *) { return 0; }
int32_t no_type_info(uint16_t, uint32_t, const char *, size_t) { return 0; }
uint64_t next_hash(const char *, size_t) { return g_hash.fetch_add(1, std::memory_order_relaxed) + 1; }
int32_t no_device_state(void *, uint32_t) { return 0; }

bool register_callbacks() {
    auto reg = [](int32_t type, void *fn) { return MsprofRegisterProfileCallback(type, fn, sizeof(void *)) == 0; };
    return reg(cann::kCbGetHashId, reinterpret_cast<void *>(&next_hash)) &&
           reg(cann::kCbRegTypeInfo, reinterpret_cast<void *>(&no_type_info)) &&
           reg(cann::kCbReportApi, reinterpret_cast<void *>(&no_api)) &&
           reg(cann::kCbReportCompact, reinterpret_cast<void *>(&no_compact)) &&
           reg(cann::kCbDeviceState, reinterpret_cast<void *>(&no_device_state));
}

// The switch libmspti sends for KERNEL (task time and the runtime's task tracks).
bool send_command(uint32_t type) {
    unsigned char cmd[cann::CommandLayout::kSize] = {};
    const uint64_t bits = cann::kSwitchTaskTime | cann::kSwitchRuntimeTrace;
    const uint32_t devices = 1, device = kDevice;
    std::memcpy(cmd + cann::CommandLayout::kSwitch, &bits, 8);
    std::memcpy(cmd + cann::CommandLayout::kDevNums, &devices, 4);
    std::memcpy(cmd + cann::CommandLayout::kDevIdList, &device, 4);
    std::memcpy(cmd + cann::CommandLayout::kType, &type, 4);
    return profSetProfCommand(cmd, sizeof cmd) == 0;
}

// ---- the channel: started as msPTI starts it, read and counted, nothing parsed ----
std::mutex g_read_mu;  // the poll thread and the flush read in turn
std::atomic<uint64_t> g_bytes{0};
std::atomic<bool> g_running{false};
std::thread g_poller;
char g_buffer[kReadBytes];

uint64_t read_all() {  // caller holds g_read_mu
    uint64_t n = 0;
    for (int got; (got = prof_channel_read(kDevice, kChannel, g_buffer, kReadBytes)) > 0;) n += uint64_t(got);
    g_bytes.fetch_add(n, std::memory_order_relaxed);
    return n;
}

void poll_main() {
    while (g_running.load(std::memory_order_acquire)) {
        vnpu::hal::ProfPollInfo info[2];
        const int n = prof_channel_poll(info, 2, 1);
        if (n > 0) {
            {
                std::lock_guard<std::mutex> lock(g_read_mu);
                read_all();
            }
            std::this_thread::sleep_for(kNap);
        }
    }
}

bool start_channel() {
    uint32_t soc_config[11] = {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    vnpu::hal::ProfStartPara para{};
    para.channelType = 0;
    para.samplePeriod = 20;
    para.realTime = 1;
    para.userData = soc_config;
    para.userDataSize = sizeof soc_config;
    if (prof_drv_start(kDevice, kChannel, &para) != 0) return false;
    g_running.store(true, std::memory_order_release);
    g_poller = std::thread(poll_main);
    return true;
}

// What a flush does: the driver says how many bytes it holds; they are read.
void flush_channel() {
    unsigned int left = 0;
    if (halProfDataFlush(kDevice, kChannel, &left) != 0 || left == 0) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    uint64_t got = 0;
    while (got + 1 < left && std::chrono::steady_clock::now() < deadline) {  // left counts one byte more
        std::lock_guard<std::mutex> lock(g_read_mu);
        got += read_all();
    }
}

void stop_channel() {
    g_running.store(false, std::memory_order_release);
    prof_stop(kDevice, kChannel);  // wakes the poll
    g_poller.join();
}

double now_ns(clockid_t clock) {
    timespec ts;
    clock_gettime(clock, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

int run_pairs(int pairs, int batches) {
    static AddKernels d;
    if (!register_callbacks()) {
        std::fprintf(stderr, "bench_kernel_floor: MsprofRegisterProfileCallback failed\n");
        return 1;
    }
    const double kernels = static_cast<double>(batches) * kBatch;
    auto one_run = [&](bool on, double &cpu, double &host, double &wall) {
        if (on && (!send_command(cann::kCommandStart) || !start_channel())) return false;
        const double cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID), host0 = now_ns(CLOCK_THREAD_CPUTIME_ID),
                     wall0 = now_ns(CLOCK_MONOTONIC);
        for (int b = 0; b < batches; ++b) {
            for (int i = 0; i < kBatch; ++i)
                if (!d.add()) return false;
            aclrtSynchronizeStream(d.stream);
        }
        if (on) flush_channel();
        cpu = (now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / kernels;
        host = (now_ns(CLOCK_THREAD_CPUTIME_ID) - host0) / kernels;
        wall = (now_ns(CLOCK_MONOTONIC) - wall0) / kernels;
        if (on) {
            stop_channel();
            send_command(cann::kCommandStop);
        }
        return true;
    };
    double c = 0, h = 0, w = 0;
    if (!one_run(true, c, h, w) || !one_run(false, c, h, w)) return 1;  // warm-up
    const uint64_t bytes_before = g_bytes.load();
    StrictPairs runs;
    for (int p = 0; p < pairs; ++p) {
        for (int k = 0; k < 2; ++k) {
            const bool on = (p % 2 == 0) == (k == 1);  // off,on then on,off
            if (!one_run(on, c, h, w)) {
                std::fprintf(stderr, "bench_kernel_floor: a run failed\n");
                return 1;
            }
            runs.cpu[on].push_back(c);
            runs.host[on].push_back(h);
            runs.wall[on].push_back(w);
        }
    }
    const double records = static_cast<double>(g_bytes.load() - bytes_before) / sizeof(vnpu::hal::StarsSocLog);
    PrintStrictPairs(pairs, kernels, records / (kernels * pairs), runs);
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if ((argc == 2 || argc == 3) && std::string(argv[1]).rfind("--pairs=", 0) == 0) {
        const int pairs = std::atoi(argv[1] + 8), batches = argc == 3 ? std::atoi(argv[2]) : 64;
        if (pairs >= 1 && batches >= 1) return run_pairs(pairs, batches);
    }
    std::fprintf(stderr, "usage: %s --pairs=N [BATCHES]   (N and BATCHES at least 1)\n", argv[0]);
    return 2;
}
