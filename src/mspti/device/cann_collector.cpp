#include "device/cann_collector.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <new>

#include "common/diagnostics.h"
#include "core/activity_engine.h"
#include "core/clock.h"
#include "core/correlation.h"
#include "device/api_records.h"
#include "device/cann_layouts.h"
#include "device/cann_libraries.h"
#include "device/hccl_ops.h"
#include "device/profapi_reports.h"
#include "device/task_table.h"
#include "mstx/marker_recorder.h"

namespace mspti::device {
namespace {

using namespace cann;

void flush_device_channels();

constexpr uint32_t kMaxDevices = HalChannelReader::kMaxDevices;
constexpr uint64_t kProbes = 128;

// A task between its track report (enqueuing thread) and its end record (reader thread). With its
// key, one slot fills one cache line (the table is line-aligned): the enqueuing thread writes the
// line and the reader takes it over, one line per task, where the 80-byte slot with a collective's
// fields inside spanned two for most tasks.
struct TaskEntry {
    uint64_t correlation = 0;
    const char *name = nullptr;
    const char *type = nullptr;
    uint64_t start_ticks = 0;  // the reader thread's
    uint32_t device = 0;
    uint32_t stream = 0;
    bool comm = false;  // its CommInfo is the collector's, at the same slot
    char pad[15] = {};  // to the end of the line
};
static_assert(sizeof(TaskEntry) + sizeof(uint64_t) == 64, "a slot (key and entry) is one cache line");

// A collective's fields, beside the task table: written by its op info report after its track report
// on the same thread, read with its entry.
struct CommInfo {
    uint32_t data_type = 0;
    uint64_t count = 0;
    const char *alg = nullptr;
    const char *group = nullptr;
};
using Tasks = TaskTable<TaskEntry, 1u << 16, kProbes>;

// The SoC log names a task by device, stream and 16-bit task id; V6's by device and a 32-bit id.
uint64_t task_key(uint32_t device, uint32_t stream, uint32_t task, uint32_t chip) {
    return Tasks::make_key(device, stream, task, chip == kChipV6);
}

const char *or_empty(const char *s) { return s != nullptr ? s : ""; }

msptiCommunicationDataType data_type(uint32_t hccl) {
    // HcclDataType and msptiCommunicationDataType share their numbering (13 is unused in both).
    if (hccl <= 12 || (hccl >= 14 && hccl <= 17)) return static_cast<msptiCommunicationDataType>(hccl);
    return MSPTI_ACTIVITY_COMMUNICATION_INVALID_TYPE;
}

// A collective tracked on this thread: its op info follows on the same thread, and its launch's
// API record (the node launch HCCL reports at the end of the call) takes its correlation id.
struct ThreadCollective {
    uint64_t slot = Tasks::kNone;
    uint64_t key = 0;
    uint64_t launch_id = 0;
};
thread_local ThreadCollective t_collective;

class Collector final : public ReportSink, public ChannelSink {
public:
    ReportDecoder reports{*this};
    HalChannelReader *reader = nullptr;  // set once, under g_mutex, when the driver is found
    std::atomic<HalChannelReader *> reader_ready{nullptr};
    alignas(64) Tasks tasks;
    CommInfo comm_info[Tasks::kSize];
    std::atomic<uint32_t> chips[kMaxDevices]{};
    std::atomic<uint64_t> open_devices{0};
    HostSync host_sync{};
    std::atomic<uint64_t> unmatched{0};
    ThreadStaging *staging = nullptr;  // device records, written under the reader's parse lock

    // Device records go to one staging whichever thread parses them, so they leave in the
    // order the channels gave them (a flush parses on the caller's thread, the poller on its own).
    template <typename Record>
    void put(const Record &r) {
        const int kind = r.kind;
        if (!ActivityEngine::enabled(kind)) return;
        if (staging == nullptr) staging = ActivityEngine::instance().register_shared_staging();
        void *slot = ActivityEngine::reserve(staging, kind);
        if (slot == nullptr) return;  // counted
        std::memcpy(slot, &r, sizeof r);
        ActivityEngine::commit(staging, kind);
    }

    uint32_t chip_of(uint32_t device) {
        if (device >= kMaxDevices) return 0;
        uint32_t chip = chips[device].load(std::memory_order_relaxed);
        if (chip == 0) {
            HalChannelReader *r = reader_ready.load(std::memory_order_acquire);
            int64_t c = r != nullptr ? r->chip(device) : -1;
            chip = c > 0 ? static_cast<uint32_t>(c) : kChip910B;
            chips[device].store(chip, std::memory_order_relaxed);
        }
        return chip;
    }

    // The report clock's reader (MsprofSysCycleTime; nullptr: CLOCK_MONOTONIC_RAW). Set before the
    // report callbacks are registered, with host_sync: a pair of that clock and libmspti's own.
    uint64_t (*report_clock)() = nullptr;

    static uint64_t epoch_now() { return clock::now_ns(); }

    // Report times in libmspti's epoch, with a pair read now on the reporting thread (a report comes
    // as its API ends) and the rate between the two clocks since attach: neither their offset at
    // attach nor their drift since (an NTP-slewed CLOCK_MONOTONIC against CLOCK_MONOTONIC_RAW: API
    // records fell before the mstx range they were called in) moves API records against markers,
    // which are libmspti's clock too.
    void host_epochs(const ApiReport &r, uint64_t &begin, uint64_t &end) const {
        const HostSync now = host_sync_now(host_sync, report_clock, &epoch_now);
        begin = host_to_reference(r.begin, now, host_sync);
        end = host_to_reference(r.end, now, host_sync);
    }

    // A device's clock sync, read once for all the times of a task or of a run of tasks.
    DeviceSync device_sync(uint32_t device) const {
        HalChannelReader *r = reader_ready.load(std::memory_order_acquire);
        return r != nullptr ? r->clocks().sync(device) : DeviceSync{};  // none: ticks unchanged
    }
    static uint64_t to_epoch(uint64_t ticks, const DeviceSync &sync) {
        return clock::monotonic_to_epoch(ticks_to_monotonic(ticks, sync));
    }
    uint64_t device_epoch(uint32_t device, uint64_t ticks) const { return to_epoch(ticks, device_sync(device)); }

    void on_api(const ApiReport &r) override {
        if (r.name == nullptr || r.name[0] == '\0') return;  // msPTI skips unnamed reports
        auto on = [](int kind) { return ActivityEngine::enabled(kind); };
        // The record's times, converted only when a record is written (the pair costs three clock reads).
        auto times = [&](uint64_t &begin, uint64_t &end) { host_epochs(r, begin, end); };
        uint64_t begin = 0, end = 0;
        switch (r.level) {
        case kLevelAcl:
            if (!on(MSPTI_ACTIVITY_KIND_ACL_API)) break;
            times(begin, end);
            write_api(MSPTI_ACTIVITY_KIND_ACL_API, r.name, begin, end, correlation::latest());
            break;
        case kLevelNode:
            if (r.type != kTypeNodeLaunch) break;
            if (t_collective.launch_id != 0) {  // a collective's launch: its API record only
                const uint64_t id = t_collective.launch_id;
                t_collective.launch_id = 0;
                if (!on(MSPTI_ACTIVITY_KIND_API)) break;
                times(begin, end);
                write_api(MSPTI_ACTIVITY_KIND_API, r.name, begin, end, id);
                break;
            }
            if (!on(MSPTI_ACTIVITY_KIND_NODE_API) && !on(MSPTI_ACTIVITY_KIND_API)) break;
            times(begin, end);
            write_api(MSPTI_ACTIVITY_KIND_NODE_API, r.name, begin, end, correlation::latest());
            write_api(MSPTI_ACTIVITY_KIND_API, r.name, begin, end, correlation::latest());
            break;
        case kLevelRuntime:
            if (!on(MSPTI_ACTIVITY_KIND_RUNTIME_API)) break;
            times(begin, end);
            write_api(MSPTI_ACTIVITY_KIND_RUNTIME_API, r.name, begin, end, correlation::latest());
            break;
        default: break;  // the HCCL level has no record of its own
        }
    }

    void on_track(const TrackReport &r) override {
        const bool kernel = r.kernel && ActivityEngine::enabled(MSPTI_ACTIVITY_KIND_KERNEL);
        const bool comm = !r.kernel && r.task_type != nullptr && std::strcmp(r.task_type, "HCCL") == 0 &&
                          ActivityEngine::enabled(MSPTI_ACTIVITY_KIND_COMMUNICATION);
        if (!kernel && !comm) return;
        const uint64_t id = correlation::generate();  // as before: the kernel's own id, at its enqueue
        const uint64_t key = task_key(r.device, r.stream, r.task, chip_of(r.device));
        // A task id reused while an old entry waits (its end never came: channel stopped) replaces it.
        uint64_t old = tasks.find(key);
        if (old != Tasks::kNone) tasks.remove(old, key);
        uint64_t at = tasks.claim(key);
        if (at == Tasks::kNone) {
            ActivityEngine::instance().count_unstaged_drop(kernel ? MSPTI_ACTIVITY_KIND_KERNEL
                                                                  : MSPTI_ACTIVITY_KIND_COMMUNICATION);
            return;
        }
        TaskEntry &e = tasks.value(at);
        e = TaskEntry{};
        e.correlation = id;
        e.name = or_empty(r.name);
        e.type = or_empty(r.task_type);
        e.device = r.device;
        e.stream = r.stream;
        e.comm = comm;
        if (comm) comm_info[at] = CommInfo{};
        tasks.publish(at, key);
        if (comm) t_collective = ThreadCollective{at, key, id};
    }

    void on_hccl_op(const HcclOpReport &r) override {
        ThreadCollective &c = t_collective;
        if (c.slot == Tasks::kNone || tasks.key(c.slot) != c.key) return;
        // Written before the task reaches the device; the reader reads them after its end record,
        // which the stream's queue and the channel order after this.
        CommInfo &e = comm_info[c.slot];
        e.data_type = r.data_type;
        e.count = r.count;
        e.alg = or_empty(r.alg_type);
        e.group = or_empty(r.group);
        c.slot = Tasks::kNone;
    }

    void on_device_state(const DeviceStateReport &r) override;

    void on_task_time(const TaskTime &t) override {
        if (t.ffts) return;  // FFTS+ sub-tasks: no record of their own (the task's begin/end give it)
        const uint64_t key = task_key(t.device, t.stream, t.task, chip_of(t.device));
        uint64_t at = tasks.find(key);
        if (at == Tasks::kNone) {
            unmatched.fetch_add(1, std::memory_order_relaxed);
            return;
        }
        TaskEntry &e = tasks.value(at);
        if (t.begin) {
            e.start_ticks = t.ticks;
            return;
        }
        const DeviceSync sync = device_sync(t.device);
        finish(at, key, e, to_epoch(e.start_ticks, sync), to_epoch(t.ticks, sync));
    }

    // The decoder saw the end right after the begin (never FFTS+): one lookup for both.
    void on_task_span(const TaskTime &begin, const TaskTime &end) override {
        const uint64_t key = task_key(begin.device, begin.stream, begin.task, chip_of(begin.device));
        uint64_t at = tasks.find(key);
        if (at == Tasks::kNone) {
            unmatched.fetch_add(2, std::memory_order_relaxed);  // as its two records one at a time
            return;
        }
        const DeviceSync sync = device_sync(begin.device);
        finish(at, key, tasks.value(at), to_epoch(begin.ticks, sync), to_epoch(end.ticks, sync));
    }

    // A run of spans of one device (the virtual device's every task): its chip and clock read once.
    void on_task_spans(uint32_t device, const TaskSpan *spans, size_t n) override {
        const uint32_t chip = chip_of(device);
        const DeviceSync sync = device_sync(device);
        for (size_t i = 0; i < n; ++i) {
            const TaskSpan &s = spans[i];
            const uint64_t key = task_key(device, s.stream, s.task, chip);
            const uint64_t at = tasks.find(key);
            if (at == Tasks::kNone) {
                unmatched.fetch_add(2, std::memory_order_relaxed);  // as on_task_span
                continue;
            }
            finish(at, key, tasks.value(at), to_epoch(s.begin_ticks, sync), to_epoch(s.end_ticks, sync));
        }
    }

    // The task's record from its entry and its times (epoch ns); frees the entry. In line in its callers:
    // the reader runs it once per task.
    [[gnu::always_inline]] void finish(uint64_t at, uint64_t key, const TaskEntry &e, uint64_t start, uint64_t end) {
        if (e.comm) {
            const CommInfo &info = comm_info[at];
            msptiActivityCommunication r{};
            r.kind = MSPTI_ACTIVITY_KIND_COMMUNICATION;
            r.dataType = data_type(info.data_type);
            r.count = info.count;
            r.ds.deviceId = e.device;
            r.ds.streamId = e.stream;
            r.start = start;
            r.end = end;
            r.algType = or_empty(info.alg);
            r.name = e.name;
            r.commName = or_empty(info.group);
            r.correlationId = e.correlation;
            tasks.remove(at, key);
            put(r);
            return;
        }
        // A kernel's record is built in its staging slot, with no copy from the stack (as put() would
        // make). The entry is read and freed first, as before: reserving may take long (a full ring).
        const uint64_t correlation = e.correlation;
        const char *const type = e.type, *const name = e.name;
        const uint32_t device = e.device, stream = e.stream;
        tasks.remove(at, key);
        constexpr int kKind = MSPTI_ACTIVITY_KIND_KERNEL;
        if (!ActivityEngine::enabled(kKind)) return;
        if (staging == nullptr) staging = ActivityEngine::instance().register_shared_staging();
        void *slot = ActivityEngine::reserve(staging, kKind);
        if (slot == nullptr) return;  // counted
        auto *r = new (slot) msptiActivityKernel{};
        r->kind = MSPTI_ACTIVITY_KIND_KERNEL;
        r->start = start;
        r->end = end;
        r->ds.deviceId = device;
        r->ds.streamId = stream;
        r->correlationId = correlation;
        r->type = type;
        r->name = name;
        ActivityEngine::commit(staging, kKind);
    }

    void on_step_trace(const StepTrace &s) override {
        if (s.tag != kTagMarkEx) return;
        const uint64_t epoch = device_epoch(s.device, s.ticks);
        const uint32_t flag = static_cast<uint32_t>(s.model_id);
        msptiActivityHccl hccl;
        bool ready = false;
        if (hccl_on_trace(s.index_id, flag, s.device, s.stream, epoch, hccl, ready)) {
            if (ready) put(hccl);
            return;
        }
        msptiActivityMarker r{};
        r.kind = MSPTI_ACTIVITY_KIND_MARKER;
        r.flag = static_cast<msptiActivityFlag>(flag);
        r.sourceKind = MSPTI_ACTIVITY_SOURCE_KIND_DEVICE;
        r.timestamp = epoch;
        r.id = s.index_id;
        r.objectId.ds.deviceId = s.device;
        r.objectId.ds.streamId = s.stream;
        r.name = "";
        r.domain = "";
        put(r);
    }

    // Forgets tasks whose end will not come (their channel stopped with no kind left to want them).
    void forget_tasks() { tasks.clear(); }
};

std::atomic<Collector *> g_collector{nullptr};  // set once made: statistics do not make it (it is large)

Collector &collector() {
    // Never destroyed: reports and channel data may come during exit.
    static Collector *const c = [] {
        auto *made = new Collector;
        g_collector.store(made, std::memory_order_release);
        return made;
    }();
    return *c;
}

// ---- control: libraries, callbacks, command, channels ----

std::mutex g_mutex;  // attach; never held while the runtime reports
std::atomic<bool> g_attached{false};
bool g_profapi = false, g_hal = false, g_registered = false, g_logged = false;
ProfapiApi g_profapi_api;
HalApi g_hal_api;
uint64_t g_switch = 0;  // the profSwitch started now
using TraceFn = int (*)(void *, int32_t, void *);
std::atomic<TraceFn> g_trace{nullptr};

int32_t cb_api(uint32_t, const void *api) { return collector().reports.api(api, ApiLayout::kSize); }
int32_t cb_compact(uint32_t, const void *data, uint32_t length) { return collector().reports.compact(data, length); }
int32_t cb_type_info(uint16_t level, uint32_t type, const char *name, size_t length) {
    return collector().reports.reg_type_info(level, type, name, length);
}
uint64_t cb_hash(const char *text, size_t length) { return collector().reports.hash_id(text, length); }
int32_t cb_device_state(void *para, uint32_t length) { return collector().reports.device_state(para, length); }

uint64_t wanted_switch() {
    uint64_t s = 0;
    auto on = [](int kind) { return ActivityEngine::enabled(kind); };
    if (on(MSPTI_ACTIVITY_KIND_API) || on(MSPTI_ACTIVITY_KIND_NODE_API) || on(MSPTI_ACTIVITY_KIND_ACL_API))
        s |= kSwitchAclApi;
    if (on(MSPTI_ACTIVITY_KIND_RUNTIME_API)) s |= kSwitchRuntimeApi;
    if (on(MSPTI_ACTIVITY_KIND_KERNEL)) s |= kSwitchTaskTime | kSwitchRuntimeTrace;
    if (on(MSPTI_ACTIVITY_KIND_COMMUNICATION))
        s |= kSwitchTaskTime | kSwitchRuntimeTrace | kSwitchHcclTrace | kSwitchAclApi;  // + the launch's API
    return s;
}

bool want_soc_log() {
    return ActivityEngine::enabled(MSPTI_ACTIVITY_KIND_KERNEL) ||
           ActivityEngine::enabled(MSPTI_ACTIVITY_KIND_COMMUNICATION);
}
bool want_ts_fw() {
    return ActivityEngine::enabled(MSPTI_ACTIVITY_KIND_MARKER) || ActivityEngine::enabled(MSPTI_ACTIVITY_KIND_HCCL);
}

uint32_t device_count() {
    uint32_t n = 0;
    if (g_hal_api.drvGetDevNum != nullptr && g_hal_api.drvGetDevNum(&n) == 0 && n > 0)
        return n < kMaxDevices ? n : kMaxDevices;
    return 1;
}

// Caller holds g_mutex.
void send_command(uint32_t type, uint64_t bits) {
    unsigned char cmd[CommandLayout::kSize] = {};
    uint32_t n = device_count();
    std::memcpy(cmd + CommandLayout::kSwitch, &bits, 8);
    std::memcpy(cmd + CommandLayout::kDevNums, &n, 4);
    for (uint32_t i = 0; i < n; ++i) std::memcpy(cmd + CommandLayout::kDevIdList + 4 * i, &i, 4);
    std::memcpy(cmd + CommandLayout::kType, &type, 4);
    if (g_profapi_api.profSetProfCommand(cmd, sizeof cmd) != 0)
        log(LogLevel::Warning, "device: profSetProfCommand(%s, 0x%llx) failed",
            type == kCommandStart ? "START" : "STOP", static_cast<unsigned long long>(bits));
}

// Starts or stops one device's channels for the kinds enabled now (no g_mutex needed: the reader
// serialises its own starts and stops).
void update_channels(uint32_t device) {
    HalChannelReader *r = collector().reader_ready.load(std::memory_order_acquire);
    if (r == nullptr) return;
    const bool open = (collector().open_devices.load(std::memory_order_acquire) >> device) & 1;
    for (auto [channel, want] :
         {std::pair{kChannelStarsSocLog, want_soc_log()}, std::pair{kChannelTsFw, want_ts_fw()}}) {
        if (want && open) {
            StartResult res = r->start(device, channel);
            if (res != StartResult::kStarted && res != StartResult::kAlreadyStarted) {
                static std::atomic<bool> said{false};
                if (!said.exchange(true))
                    log(LogLevel::Warning, "device: channel %u of device %u not started: %s", channel, device,
                        start_result_name(res));
            }
        } else if (!want) {
            r->stop(device, channel);
        }
    }
}

void update_all_channels() {
    for (uint32_t d = 0; d < kMaxDevices; ++d) update_channels(d);
    if (!want_soc_log()) collector().forget_tasks();
}

void find_trace_locked();

int trace_through_runtime(void *stream, uint64_t markId, uint32_t flag) {
    TraceFn fn = g_trace.load(std::memory_order_acquire);
    if (fn == nullptr) {
        // A marker on a stream: the runtime is loaded by now, maybe after libmspti last looked.
        std::lock_guard<std::mutex> lock(g_mutex);
        find_trace_locked();
        fn = g_trace.load(std::memory_order_acquire);
        if (fn == nullptr) return -1;
    }
    unsigned char payload[18];  // {uint64 indexId, uint64 modelId, uint16 tagId}, packed
    uint64_t model = flag;
    uint16_t tag = kTagMarkEx;
    std::memcpy(payload, &markId, 8);
    std::memcpy(payload + 8, &model, 8);
    std::memcpy(payload + 16, &tag, 2);
    return fn(payload, sizeof payload, stream);
}

void find_trace_locked() {
    if (g_trace.load(std::memory_order_relaxed) != nullptr) return;
    // RTLD_DEFAULT: the runtime is a dependency of the program; RTLD_NEXT: libmspti was preloaded.
    void *p = dlsym(RTLD_DEFAULT, "aclrtProfTrace");
    if (p == nullptr) p = dlsym(RTLD_NEXT, "aclrtProfTrace");
    if (p == nullptr) return;
    g_trace.store(reinterpret_cast<TraceFn>(p), std::memory_order_release);
    mstx::set_stream_trace(&trace_through_runtime);  // markers on a stream now give their device half
}

// Once, on stderr whatever the log level, at the first refused enable: the user asked for records
// this host cannot give. Caller holds g_mutex.
void say_missing_once() {
    if (g_logged || (g_profapi && g_hal)) return;
    g_logged = true;
    std::fprintf(
        stderr, "libmspti: %s%s%s not found (in $ASCEND_HOME_PATH/lib64 or the library path): %s cannot be collected\n",
        g_profapi ? "" : "libprofapi.so", !g_profapi && !g_hal ? " and " : "", g_hal ? "" : "libascend_hal.so",
        !g_profapi ? "KERNEL, API, ACL_API, NODE_API, RUNTIME_API, COMMUNICATION, HCCL and device markers"
                   : "KERNEL, COMMUNICATION, HCCL and device markers");
}

// Caller holds g_mutex.
void attach_locked() {
    Collector &c = collector();
    if (!g_hal && load_hal(g_hal_api)) {
        g_hal = true;
        c.reader = new HalChannelReader(g_hal_api, c);
        c.reader_ready.store(c.reader, std::memory_order_release);
        ActivityEngine::set_device_flush(&flush_device_channels);
    }
    if (!g_profapi && load_profapi(g_profapi_api)) {
        g_profapi = true;
        // Report times are MsprofSysCycleTime's clock: raw ns unless the driver has a host oscillator.
        uint64_t freq = 0;
        int32_t version = 0;
        int64_t host_freq = 0;
        if (g_profapi_api.MsprofSysCycleTime != nullptr && g_hal_api.halGetAPIVersion != nullptr &&
            g_hal_api.halGetAPIVersion(&version) == 0 && version >= kApiVersionWithHostFreq &&
            g_hal_api.halGetDeviceInfo(0, 0, kInfoHostOscFreq, &host_freq) == 0 && host_freq > 0)
            freq = static_cast<uint64_t>(host_freq);
        c.report_clock = g_profapi_api.MsprofSysCycleTime;
        c.host_sync = host_sync_now(HostSync{freq, 0, 0}, c.report_clock, &Collector::epoch_now);
    }
    if (g_profapi && !g_registered) {
        auto reg = g_profapi_api.MsprofRegisterProfileCallback;
        // Hash ids and type names first: the reports that follow are named by them.
        reg(kCbGetHashId, reinterpret_cast<void *>(&cb_hash), sizeof(void *));
        reg(kCbRegTypeInfo, reinterpret_cast<void *>(&cb_type_info), sizeof(void *));
        reg(kCbReportApi, reinterpret_cast<void *>(&cb_api), sizeof(void *));
        reg(kCbReportCompact, reinterpret_cast<void *>(&cb_compact), sizeof(void *));
        reg(kCbDeviceState, reinterpret_cast<void *>(&cb_device_state), sizeof(void *));  // replays open devices
        g_registered = true;
    }
    if (g_profapi) {
        const uint64_t want = wanted_switch();
        if ((g_switch & ~want) != 0) send_command(kCommandStop, g_switch & ~want);
        if ((want & ~g_switch) != 0) send_command(kCommandStart, want & ~g_switch);
        g_switch = want;
    }
    find_trace_locked();
    update_all_channels();
    // Until aclrtProfTrace is found too (a runtime loaded after the enable), the interposed
    // aclInit/aclrtSetDevice look again.
    if (g_profapi && g_hal && g_trace.load(std::memory_order_relaxed) != nullptr)
        g_attached.store(true, std::memory_order_release);
}

void Collector::on_device_state(const DeviceStateReport &r) {
    if (r.device >= kMaxDevices) return;
    if (r.chip != 0) chips[r.device].store(r.chip, std::memory_order_relaxed);
    if (r.open)
        open_devices.fetch_or(uint64_t{1} << r.device, std::memory_order_acq_rel);
    else
        open_devices.fetch_and(~(uint64_t{1} << r.device), std::memory_order_acq_rel);
    if (r.open) update_channels(r.device);
}

}  // namespace

void device_stats(msptiExtDeviceStats *out) {
    *out = msptiExtDeviceStats{};
    const Collector *c = g_collector.load(std::memory_order_acquire);
    if (c == nullptr) return;
    out->unmatched = c->unmatched.load(std::memory_order_relaxed);
    HalChannelReader *r = c->reader_ready.load(std::memory_order_acquire);
    if (r == nullptr) return;
    const DecoderCounts k = r->counts();
    out->bytes = k.bytes;
    out->records = k.records;
    out->skipped = k.skipped;
    out->malformed = k.malformed;
    out->readErrors = r->read_errors();
    out->shortFlushes = r->short_flushes();
}

CannAvailability attach() {
    std::lock_guard<std::mutex> lock(g_mutex);
    attach_locked();
    return CannAvailability{g_profapi, g_hal};
}

void attach_lazily() {
    if (!g_attached.load(std::memory_order_relaxed)) attach();
}

bool kind_available(int kind, const char **why) {
    CannAvailability a;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (!g_profapi || !g_hal) attach_locked();
        a = CannAvailability{g_profapi, g_hal};
    }
    bool needs_profapi = false, needs_hal = false;
    switch (kind) {
    case MSPTI_ACTIVITY_KIND_API:
    case MSPTI_ACTIVITY_KIND_ACL_API:
    case MSPTI_ACTIVITY_KIND_NODE_API:
    case MSPTI_ACTIVITY_KIND_RUNTIME_API: needs_profapi = true; break;
    case MSPTI_ACTIVITY_KIND_KERNEL:
    case MSPTI_ACTIVITY_KIND_COMMUNICATION: needs_profapi = needs_hal = true; break;
    case MSPTI_ACTIVITY_KIND_HCCL: needs_hal = true; break;
    default: break;
    }
    if ((needs_profapi && !a.profapi) || (needs_hal && !a.hal)) {
        std::lock_guard<std::mutex> lock(g_mutex);
        say_missing_once();
    }
    if (needs_profapi && !a.profapi) {
        *why = "libprofapi.so was not found (in $ASCEND_HOME_PATH/lib64 or the library path)";
        return false;
    }
    if (needs_hal && !a.hal) {
        *why = "libascend_hal.so was not found (in $ASCEND_HOME_PATH/lib64 or the library path)";
        return false;
    }
    return true;
}

bool is_device_kind(int kind) {
    return kind == MSPTI_ACTIVITY_KIND_KERNEL || kind == MSPTI_ACTIVITY_KIND_COMMUNICATION ||
           kind == MSPTI_ACTIVITY_KIND_MARKER || kind == MSPTI_ACTIVITY_KIND_HCCL;
}

int stream_trace(void *stream, uint64_t markId, uint32_t flag) { return trace_through_runtime(stream, markId, flag); }

void flush_device() { flush_device_channels(); }

namespace {
void flush_device_channels() {
    if (HalChannelReader *r = collector().reader_ready.load(std::memory_order_acquire)) r->flush();
}
}  // namespace

void fork_prepare() {
    g_mutex.lock();
    Collector &c = collector();
    c.reports.hashes().fork_prepare();
    c.reports.types().fork_prepare();
    if (c.reader != nullptr) c.reader->fork_prepare();
}

void fork_parent() {
    Collector &c = collector();
    if (c.reader != nullptr) c.reader->fork_parent();
    c.reports.types().fork_release();
    c.reports.hashes().fork_release();
    g_mutex.unlock();
}

void fork_child() {
    Collector &c = collector();
    if (c.reader != nullptr) c.reader->forget_after_fork();  // renews its locks
    c.open_devices.store(0, std::memory_order_relaxed);  // the child opens its own
    c.staging = nullptr;  // freed by the engine with the parent's threads' stagings
    c.forget_tasks();
    c.reports.types().fork_release();
    c.reports.hashes().fork_release();
    g_mutex.unlock();
}

}  // namespace mspti::device
