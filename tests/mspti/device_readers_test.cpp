// The device readers of libmspti (src/mspti/device): channel decoders per chip id, the HAL channel
// reader (poll thread, reads split anywhere, flush), the clock conversion and the profapi report
// decoder. The byte streams are built here from msPTI's documented record layouts written as C
// structs with bitfields (shared/reference/ascend-profiling-protocol.md), an encoding independent of
// the readers' offset-based decoding.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "device/cann_layouts.h"
#include "device/channel_decoder.h"
#include "device/device_clock.h"
#include "device/hal_channel_reader.h"
#include "device/profapi_reports.h"

using namespace mspti::device;

namespace {

uint64_t mono_now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// ---- the oracle's encoding: the layouts as structs ----
#pragma pack(push, 4)
struct SocLog910 {
    uint16_t funcType : 6;
    uint16_t cnt : 4;
    uint16_t taskType : 6;
    uint16_t resv0;
    uint16_t streamId;
    uint16_t taskId;
    uint64_t timestamp;
    uint16_t resv1;
    uint16_t accId : 6;
    uint16_t acsqId : 10;
    uint32_t resv2[11];
};
struct FftsLog910 {
    uint16_t funcType : 6;
    uint16_t cnt : 4;
    uint16_t taskType : 6;
    uint16_t resv2;
    uint16_t streamId;
    uint16_t taskId;
    uint64_t timestamp;
    uint16_t subTaskType : 8;
    uint16_t resv3 : 8;
    uint16_t subTaskId;
    uint16_t resv4 : 13;
    uint16_t fftsType : 3;
    uint16_t threadId;
    uint32_t resv5[10];
};
struct SocLogV6 {
    uint16_t funcType : 6;
    uint16_t cnt : 4;
    uint16_t taskType : 6;
    uint16_t resv0;
    uint32_t taskId;
    uint64_t timestamp;
    uint16_t resv1;
    uint16_t accId : 6;
    uint16_t acsqId : 10;
    uint32_t resv2[3];
};
struct Step910 {
    uint8_t mode, rptType;
    uint16_t bufSize;
    uint8_t reserved1[4];
    uint64_t timestamp, indexId, modelId;
    uint16_t streamId, taskId, tagId;
    uint8_t reserved2[2];
};
struct StepV6 {
    uint8_t mode, rptType;
    uint16_t bufSize;
    uint8_t reserved1[4];
    uint64_t timestamp, indexId, modelId;
    uint16_t tagId, streamId;
    uint32_t taskId;
};
#pragma pack(pop)
static_assert(sizeof(SocLog910) == 64 && sizeof(FftsLog910) == 64 && sizeof(SocLogV6) == 32, "layouts");
static_assert(sizeof(Step910) == 40 && sizeof(StepV6) == 40, "layouts");

template <typename T>
void append(std::string &out, const T &r) {
    out.append(reinterpret_cast<const char *>(&r), sizeof r);
}

std::string soc_record(uint32_t chip, uint16_t func, uint32_t stream, uint32_t task, uint64_t ticks) {
    std::string out;
    if (chip == cann::kChipV6) {
        SocLogV6 r{};
        r.funcType = func;
        r.cnt = 3;
        r.taskType = 17;
        r.taskId = task;
        r.timestamp = ticks;
        r.acsqId = 1023;
        append(out, r);
    } else {
        SocLog910 r{};
        r.funcType = func;
        r.cnt = 5;
        r.taskType = 63;
        r.streamId = static_cast<uint16_t>(stream);
        r.taskId = static_cast<uint16_t>(task);
        r.timestamp = ticks;
        r.accId = 9;
        append(out, r);
    }
    return out;
}

std::string step_record(uint32_t chip, uint32_t stream, uint32_t task, uint64_t index, uint64_t model, uint16_t tag,
                        uint64_t ticks, uint8_t rpt = 10) {
    std::string out;
    if (chip == cann::kChipV6) {
        StepV6 r{};
        r.rptType = rpt;
        r.bufSize = 40;
        r.timestamp = ticks;
        r.indexId = index;
        r.modelId = model;
        r.tagId = tag;
        r.streamId = static_cast<uint16_t>(stream);
        r.taskId = task;
        append(out, r);
    } else {
        Step910 r{};
        r.rptType = rpt;
        r.bufSize = 40;
        r.timestamp = ticks;
        r.indexId = index;
        r.modelId = model;
        r.streamId = static_cast<uint16_t>(stream);
        r.taskId = static_cast<uint16_t>(task);
        r.tagId = tag;
        append(out, r);
    }
    return out;
}

// What a sink saw, as comparable tuples.
using Time = std::tuple<uint32_t, uint32_t, uint32_t, bool, bool, uint64_t, bool, uint32_t>;
using Step = std::tuple<uint32_t, uint32_t, uint32_t, uint64_t, uint64_t, uint16_t, uint64_t>;

struct Collector : ChannelSink {
    std::mutex mu;
    std::vector<Time> times;
    std::vector<Step> steps;
    void on_task_time(const TaskTime &t) override {
        std::lock_guard<std::mutex> lock(mu);
        times.emplace_back(t.device, t.stream, t.task, t.has_stream, t.begin, t.ticks, t.ffts, t.sub_task);
    }
    void on_step_trace(const StepTrace &s) override {
        std::lock_guard<std::mutex> lock(mu);
        steps.emplace_back(s.device, s.stream, s.task, s.index_id, s.model_id, s.tag, s.ticks);
    }
    size_t size() {
        std::lock_guard<std::mutex> lock(mu);
        return times.size() + steps.size();
    }
};

const uint32_t kChips[] = {cann::kChip910B, cann::kChip310B, cann::kChipV6};

std::string chip_name(uint32_t chip) { return chip == 5 ? "910B" : chip == 7 ? "310B" : "V6"; }

}  // namespace

// The poll thread's wait: it grows to 16 ms while reads are small, and shrinks, down to 1 ms, while
// one channel gives a quarter of the virtual driver's 2 MiB SoC-log ring a round.
TEST(HalChannelReader, TheWaitBetweenReadsGrowsWhileReadsAreSmallAndShrinksWhileOneIsLarge) {
    using std::chrono::milliseconds;
    milliseconds wait = HalChannelReader::kMinReadInterval;
    std::vector<long> seen;
    for (int i = 0; i < 6; ++i) seen.push_back((wait = next_read_interval(wait, 64 * 1024)).count());
    EXPECT_EQ(seen, (std::vector<long>{2, 4, 8, 16, 16, 16}));
    seen.clear();
    for (int i = 0; i < 6; ++i) seen.push_back((wait = next_read_interval(wait, 512 * 1024)).count());
    EXPECT_EQ(seen, (std::vector<long>{8, 4, 2, 1, 1, 1}));
    EXPECT_EQ(next_read_interval(milliseconds(8), 512 * 1024 - 1), milliseconds(16));
}

TEST(ChannelDecoder, SocLogOfEveryChipDecodesBeginAndEnd) {
    for (uint32_t chip : kChips) {
        SCOPED_TRACE(chip_name(chip));
        std::string bytes = soc_record(chip, 0, 7, 4242, 1000) + soc_record(chip, 1, 7, 4242, 2500);
        Collector c;
        ChannelDecoder d(3, chip, cann::kChannelStarsSocLog);
        d.feed(bytes.data(), bytes.size(), c);
        bool v6 = chip == cann::kChipV6;
        ASSERT_EQ(c.times.size(), 2u);
        EXPECT_EQ(c.times[0], Time(3, v6 ? 0 : 7, 4242, !v6, true, 1000, false, 0));
        EXPECT_EQ(c.times[1], Time(3, v6 ? 0 : 7, 4242, !v6, false, 2500, false, 0));
        EXPECT_EQ(d.counts().records, 2u);
        EXPECT_EQ(d.pending(), 0u);
    }
}

TEST(ChannelDecoder, V6TaskIdsKeepAll32Bits) {
    std::string bytes = soc_record(cann::kChipV6, 1, 0, 0x12345678u, 9);
    Collector c;
    ChannelDecoder d(0, cann::kChipV6, cann::kChannelStarsSocLog);
    d.feed(bytes.data(), bytes.size(), c);
    ASSERT_EQ(c.times.size(), 1u);
    EXPECT_EQ(std::get<2>(c.times[0]), 0x12345678u);
}

TEST(ChannelDecoder, FftsPlusVariantGivesSubTaskTimes) {
    FftsLog910 r{};
    r.funcType = 0b100010;
    r.streamId = 12;
    r.taskId = 99;
    r.timestamp = 777;
    r.subTaskId = 31;
    r.fftsType = 5;
    std::string bytes;
    append(bytes, r);
    r.funcType = 0b100011;
    r.timestamp = 888;
    append(bytes, r);
    Collector c;
    ChannelDecoder d(1, cann::kChip910B, cann::kChannelStarsSocLog);
    d.feed(bytes.data(), bytes.size(), c);
    ASSERT_EQ(c.times.size(), 2u);
    EXPECT_EQ(c.times[0], Time(1, 12, 99, true, true, 777, true, 31));
    EXPECT_EQ(c.times[1], Time(1, 12, 99, true, false, 888, true, 31));
}

TEST(ChannelDecoder, OtherSocLogTypesAreSkipped) {
    std::string bytes = soc_record(cann::kChip910B, 0b000101, 1, 1, 1) + soc_record(cann::kChip910B, 1, 1, 2, 5) +
                        soc_record(cann::kChipV6, 0b100010, 0, 1, 1);  // FFTS+ is not a V6 log
    Collector c;
    ChannelDecoder d(0, cann::kChip910B, cann::kChannelStarsSocLog);
    d.feed(bytes.data(), 128, c);
    EXPECT_EQ(c.times.size(), 1u);
    EXPECT_EQ(d.counts().skipped, 1u);
    ChannelDecoder v6(0, cann::kChipV6, cann::kChannelStarsSocLog);
    v6.feed(bytes.data() + 128, 32, c);
    EXPECT_EQ(v6.counts().skipped, 1u);
}

TEST(ChannelDecoder, StepTraceOfEveryChipDecodesMarkIdsAndIds) {
    for (uint32_t chip : kChips) {
        SCOPED_TRACE(chip_name(chip));
        uint32_t task = chip == cann::kChipV6 ? 0x10002u : 0x2u;
        std::string bytes = step_record(chip, 44, task, 0xABCDEF0123ull, 2, 11, 123456789);
        Collector c;
        ChannelDecoder d(6, chip, cann::kChannelTsFw);
        d.feed(bytes.data(), bytes.size(), c);
        ASSERT_EQ(c.steps.size(), 1u);
        EXPECT_EQ(c.steps[0], Step(6, 44, task, 0xABCDEF0123ull, 2, 11, 123456789));
    }
}

TEST(ChannelDecoder, OtherTsFwReportsAreSkippedAndUnknownOnesCounted) {
    std::string bytes = step_record(5, 1, 1, 1, 1, 11, 1, 11) + step_record(5, 1, 1, 1, 1, 11, 1, 12) +
                        step_record(5, 1, 1, 1, 1, 11, 1, 99) + step_record(5, 1, 2, 3, 4, 11, 5);
    Collector c;
    ChannelDecoder d(0, 5, cann::kChannelTsFw);
    d.feed(bytes.data(), bytes.size(), c);
    EXPECT_EQ(c.steps.size(), 1u);
    EXPECT_EQ(d.counts().skipped, 2u);
    EXPECT_EQ(d.counts().malformed, 1u);
}

// The same stream cut into reads at every size from 1 byte up gives the same records, in order.
TEST(ChannelDecoder, RecordsSplitAcrossReadsAreReassembled) {
    std::mt19937 rng(24);
    for (uint32_t chip : kChips) {
        for (uint32_t channel : {cann::kChannelStarsSocLog, cann::kChannelTsFw}) {
            SCOPED_TRACE(chip_name(chip) + " channel " + std::to_string(channel));
            std::string bytes;
            for (uint32_t i = 0; i < 200; ++i)
                bytes += channel == cann::kChannelTsFw ? step_record(chip, i % 7, i, i * 3, i % 4, 11, 1000 + i)
                                                       : soc_record(chip, i % 2, i % 7, i / 2, 1000 + i);
            Collector whole;
            ChannelDecoder a(2, chip, channel);
            a.feed(bytes.data(), bytes.size(), whole);
            ASSERT_EQ(whole.size(), 200u);
            for (size_t step : {1ul, 3ul, 39ul, 41ul, 63ul, 65ul, 100ul, 0ul}) {
                Collector cut;
                ChannelDecoder b(2, chip, channel);
                for (size_t at = 0; at < bytes.size();) {
                    size_t n = step != 0 ? step : 1 + rng() % 150;  // 0: random sizes
                    n = std::min(n, bytes.size() - at);
                    b.feed(bytes.data() + at, n, cut);
                    at += n;
                }
                EXPECT_EQ(cut.times, whole.times) << "reads of " << step;
                EXPECT_EQ(cut.steps, whole.steps) << "reads of " << step;
                EXPECT_EQ(b.pending(), 0u);
            }
        }
    }
}

// A begin followed by its own end comes as one span; any other order, one record at a time. The sink
// sees the same times either way (the default span is its two records).
struct SpanCollector : Collector {
    std::vector<std::pair<Time, Time>> spans;
    void on_task_span(const TaskTime &b, const TaskTime &e) override {
        std::lock_guard<std::mutex> lock(mu);
        spans.emplace_back(Time(b.device, b.stream, b.task, b.has_stream, b.begin, b.ticks, b.ffts, b.sub_task),
                           Time(e.device, e.stream, e.task, e.has_stream, e.begin, e.ticks, e.ffts, e.sub_task));
    }
};

TEST(ChannelDecoder, ABeginNextToItsEndIsOneSpan) {
    for (uint32_t chip : kChips) {
        SCOPED_TRACE(chip_name(chip));
        const bool v6 = chip == cann::kChipV6;
        const uint32_t s = v6 ? 0 : 7;
        std::string bytes = soc_record(chip, 0, 7, 1, 10) + soc_record(chip, 1, 7, 1, 20) +  // a span
                            soc_record(chip, 0, 7, 2, 30) + soc_record(chip, 0, 7, 3, 31) +  // interleaved
                            soc_record(chip, 1, 7, 2, 40) + soc_record(chip, 1, 7, 3, 41) +
                            soc_record(chip, 1, 7, 5, 50) + soc_record(chip, 0, 7, 5, 51) +  // end before begin
                            soc_record(chip, 0, 7, 6, 60) + soc_record(chip, 1, 8, 6, 61);  // another stream
        SpanCollector c;
        ChannelDecoder d(4, chip, cann::kChannelStarsSocLog);
        d.feed(bytes.data(), bytes.size(), c);
        const Time b1(4, s, 1, !v6, true, 10, false, 0), e1(4, s, 1, !v6, false, 20, false, 0);
        std::vector<std::pair<Time, Time>> spans{{b1, e1}};
        if (v6) spans.emplace_back(Time(4, 0, 6, false, true, 60, false, 0), Time(4, 0, 6, false, false, 61, false, 0));
        EXPECT_EQ(c.spans, spans);
        EXPECT_EQ(c.times.size(), v6 ? 6u : 8u);
        EXPECT_EQ(d.counts().records, 10u);
        // The same bytes cut between a begin and its end: two records, the same times.
        SpanCollector cut;
        ChannelDecoder d2(4, chip, cann::kChannelStarsSocLog);
        const size_t one = record_size(chip, cann::kChannelStarsSocLog);
        d2.feed(bytes.data(), one, cut);
        d2.feed(bytes.data() + one, bytes.size() - one, cut);
        EXPECT_TRUE(cut.spans.empty() || cut.spans.front().first != b1);
        ASSERT_GE(cut.times.size(), 2u);
        EXPECT_EQ(cut.times[0], b1);
        EXPECT_EQ(cut.times[1], e1);
    }
}

TEST(ChannelDecoder, FftsPlusBeginAndEndAreNeverASpan) {
    FftsLog910 r{};
    r.funcType = 0b100010;
    r.streamId = 12;
    r.taskId = 99;
    r.timestamp = 777;
    std::string bytes;
    append(bytes, r);
    r.funcType = 0b100011;
    r.timestamp = 888;
    append(bytes, r);
    SpanCollector c;
    ChannelDecoder d(1, cann::kChip910B, cann::kChannelStarsSocLog);
    d.feed(bytes.data(), bytes.size(), c);
    EXPECT_TRUE(c.spans.empty());
    EXPECT_EQ(c.times.size(), 2u);
}

TEST(ChannelDecoder, ShortInputWaitsAndResetDropsTheRemainder) {
    std::string bytes = soc_record(5, 0, 1, 1, 1);
    Collector c;
    ChannelDecoder d(0, 5, cann::kChannelStarsSocLog);
    d.feed(bytes.data(), 10, c);
    EXPECT_EQ(c.size(), 0u);
    EXPECT_EQ(d.pending(), 10u);
    d.reset();
    d.feed(bytes.data(), bytes.size(), c);
    EXPECT_EQ(c.size(), 1u);
    d.feed(nullptr, 5, c);  // a null read is ignored
    EXPECT_EQ(d.pending(), 0u);
}

TEST(ChannelDecoder, GarbageIsCountedNeverTrusted) {
    std::mt19937_64 rng(7);
    for (uint32_t chip : kChips) {
        for (uint32_t channel : {cann::kChannelStarsSocLog, cann::kChannelTsFw}) {
            std::string bytes(100003, '\0');
            for (char &b : bytes) b = static_cast<char>(rng());
            Collector c;
            ChannelDecoder d(0, chip, channel);
            for (size_t at = 0; at < bytes.size(); at += 997)
                d.feed(bytes.data() + at, std::min<size_t>(997, bytes.size() - at), c);
            size_t size = record_size(chip, channel);
            const DecoderCounts &k = d.counts();
            EXPECT_EQ(k.records + k.skipped + k.malformed, bytes.size() / size);
            EXPECT_EQ(k.records, c.size());
            EXPECT_EQ(d.pending(), bytes.size() % size);
        }
    }
}

TEST(ChannelDecoder, UnsupportedChipsAndChannelsReadNothing) {
    EXPECT_EQ(record_size(1, cann::kChannelStarsSocLog), 0u);  // e.g. 910A: msPTI reads no device tasks
    EXPECT_EQ(record_size(5, 45), 0u);
    EXPECT_FALSE(chip_supported(4));
    std::string bytes = soc_record(5, 0, 1, 1, 1);
    Collector c;
    ChannelDecoder d(0, 4, cann::kChannelStarsSocLog);
    d.feed(bytes.data(), bytes.size(), c);
    EXPECT_EQ(c.size(), 0u);
}

// ---- clock ----

TEST(DeviceClock, TicksConvertWithTheReportedFrequencyAndSync) {
    // 50 MHz, 19.2 MHz, 1 GHz (ticks per ms), each with the counter ahead of and behind the host.
    for (uint64_t freq : {50000ull, 19200ull, 1000000ull}) {
        for (uint64_t offset_ticks : {0ull, 987654321987ull}) {
            DeviceSync sync{freq, offset_ticks + 5 * freq, 1'000'000'000ull};
            EXPECT_EQ(ticks_to_monotonic(sync.sync_ticks, sync), 1'000'000'000ull);
            // 3 ms later, and 1 tick later
            EXPECT_EQ(ticks_to_monotonic(sync.sync_ticks + 3 * freq, sync), 1'003'000'000ull);
            EXPECT_EQ(ticks_to_monotonic(sync.sync_ticks + 1, sync), 1'000'000'000ull + 1'000'000ull / freq);
            // before the sync
            EXPECT_EQ(ticks_to_monotonic(sync.sync_ticks - 2 * freq, sync), 998'000'000ull);
            // a day later, no overflow
            EXPECT_EQ(ticks_to_monotonic(sync.sync_ticks + 86400000ull * freq, sync),
                      1'000'000'000ull + 86400'000'000'000ull);
        }
    }
    EXPECT_EQ(ticks_to_monotonic(1234, DeviceSync{}), 1234u);  // no frequency: taken as ns
}

TEST(DeviceClock, HostReportTimesConvertFromRawNsOrHostTicks) {
    HostSync raw{0, 5'000, 2'000'000};
    EXPECT_EQ(host_to_monotonic(6'000, raw), 2'001'000u);
    EXPECT_EQ(host_to_monotonic(4'000, raw), 1'999'000u);
    HostSync ticks{100000, 1'000'000, 7'000'000'000ull};  // 100 MHz
    EXPECT_EQ(host_to_monotonic(1'000'000 + 100000, ticks), 7'001'000'000ull);
    HostSync now = raw_host_sync();
    timespec a{}, b{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &a);
    uint64_t raw_ns = a.tv_sec * 1000000000ull + a.tv_nsec;
    uint64_t mono = host_to_monotonic(raw_ns, now);
    clock_gettime(CLOCK_MONOTONIC, &b);
    EXPECT_LE(mono, b.tv_sec * 1000000000ull + b.tv_nsec + 1'000'000);  // within NTP slew of 1 ms
}

TEST(DeviceClock, DeviceClocksKeepOneSyncPerDevice) {
    DeviceClocks clocks;
    EXPECT_FALSE(clocks.known(3));
    EXPECT_EQ(clocks.to_monotonic(3, 77), 77u);
    clocks.set(3, DeviceSync{1000, 500, 10'000});
    EXPECT_TRUE(clocks.known(3));
    EXPECT_EQ(clocks.to_monotonic(3, 1500), 1'010'000u);
    EXPECT_EQ(clocks.to_monotonic(64, 1500), 1500u);  // out of range: unchanged
}

// ---- profapi reports ----

namespace {

struct ReportCollector : ReportSink {
    std::mutex mu;
    std::vector<ApiReport> apis;
    std::vector<TrackReport> tracks;
    std::vector<HcclOpReport> ops;
    std::vector<DeviceStateReport> states;
    void on_api(const ApiReport &r) override {
        std::lock_guard<std::mutex> l(mu);
        apis.push_back(r);
    }
    void on_track(const TrackReport &r) override {
        std::lock_guard<std::mutex> l(mu);
        tracks.push_back(r);
    }
    void on_hccl_op(const HcclOpReport &r) override {
        std::lock_guard<std::mutex> l(mu);
        ops.push_back(r);
    }
    void on_device_state(const DeviceStateReport &r) override {
        std::lock_guard<std::mutex> l(mu);
        states.push_back(r);
    }
};

struct Api {
    uint16_t magic = 0x5a5a, level = 0;
    uint32_t type = 0, threadId = 0, reserve = 0;
    uint64_t begin = 0, end = 0, item = 0;
};
#pragma pack(push, 1)
struct HcclOpInfo {
    uint8_t flags, dataType;
    uint64_t algType, count, groupName;
};
#pragma pack(pop)
struct Track {
    uint16_t device, stream;
    uint32_t task;
    uint64_t taskType, kernelName;
};
struct Compact {
    uint16_t magic = 0x5a5a, level = 0;
    uint32_t type = 0, threadId = 0, dataLen = 0;
    uint64_t time = 0;
    union {
        uint8_t info[40];
        Track track;
        HcclOpInfo op;
    } data{};
};
static_assert(sizeof(Api) == 40 && sizeof(Compact) == 64 && sizeof(HcclOpInfo) == 26, "report layouts");

}  // namespace

TEST(ProfapiReports, ApiSpansAreNamedByTypeOrItem) {
    ReportCollector sink;
    ReportDecoder d(sink);
    d.reg_type_info(20000, 3, "aclrtMallocXX", 11);  // the length cuts the name
    d.reg_type_info(5000, 1001, "rtKernelLaunch", 14);
    uint64_t op = d.hash_id("aclnnAdd_AxpyAiCore_Axpy", 24);
    Api a;
    a.level = 20000;
    a.type = 3;
    a.threadId = 77;
    a.begin = 100;
    a.end = 200;
    EXPECT_EQ(d.api(&a, sizeof a), 0);
    a.level = 5000;
    a.type = 1001;
    EXPECT_EQ(d.api(&a, sizeof a), 0);
    a.level = 10000;
    a.type = 5;
    a.item = op;
    EXPECT_EQ(d.api(&a, sizeof a), 0);
    a.item = op + 1000;  // an id this library never gave
    EXPECT_EQ(d.api(&a, sizeof a), 0);
    ASSERT_EQ(sink.apis.size(), 4u);
    EXPECT_STREQ(sink.apis[0].name, "aclrtMalloc");
    EXPECT_EQ(sink.apis[0].thread, 77u);
    EXPECT_EQ(sink.apis[0].begin, 100u);
    EXPECT_EQ(sink.apis[0].end, 200u);
    EXPECT_STREQ(sink.apis[1].name, "rtKernelLaunch");
    EXPECT_STREQ(sink.apis[2].name, "aclnnAdd_AxpyAiCore_Axpy");
    EXPECT_EQ(sink.apis[3].name, nullptr);
}

TEST(ProfapiReports, TracksAndHcclOpInfoResolveTheirNames) {
    ReportCollector sink;
    ReportDecoder d(sink);
    d.reg_type_info(5000, 1, "KERNEL_AIVEC", 12);
    d.reg_type_info(5000, 2, "HCCL", 4);
    Compact c;
    c.level = 5000;
    c.type = 802;
    c.dataLen = sizeof(Track);
    c.time = 55;
    c.data.track = Track{3, 17, 0x1234567, 1, d.hash_id("Axpy", 4)};
    EXPECT_EQ(d.compact(&c, sizeof c), 0);
    c.data.track.taskType = 2;
    EXPECT_EQ(d.compact(&c, sizeof c), 0);
    Compact h;
    h.level = 10000;
    h.type = 10;
    h.dataLen = sizeof(HcclOpInfo);
    h.data.op = HcclOpInfo{0, 4, d.hash_id("RING", 4), 1024, d.hash_id("world_0", 7)};
    EXPECT_EQ(d.compact(&h, sizeof h), 0);
    ASSERT_EQ(sink.tracks.size(), 2u);
    EXPECT_EQ(sink.tracks[0].device, 3u);
    EXPECT_EQ(sink.tracks[0].stream, 17u);
    EXPECT_EQ(sink.tracks[0].task, 0x1234567u);
    EXPECT_STREQ(sink.tracks[0].name, "Axpy");
    EXPECT_TRUE(sink.tracks[0].kernel);
    EXPECT_FALSE(sink.tracks[1].kernel);
    EXPECT_STREQ(sink.tracks[1].task_type, "HCCL");
    ASSERT_EQ(sink.ops.size(), 1u);
    EXPECT_EQ(sink.ops[0].data_type, 4u);
    EXPECT_EQ(sink.ops[0].count, 1024u);
    EXPECT_STREQ(sink.ops[0].alg_type, "RING");
    EXPECT_STREQ(sink.ops[0].group, "world_0");
}

// A thread keeps the last task type its track reports named: a type registered again under another
// name, and another decoder's table with the same type id, are read afresh.
TEST(ProfapiReports, ATaskTypeRegisteredAgainOrOfAnotherTableIsReadAfresh) {
    ReportCollector sink;
    ReportDecoder d(sink);
    d.reg_type_info(5000, 1, "KERNEL_AIVEC", 12);
    Compact c;
    c.level = 5000;
    c.type = 802;
    c.dataLen = sizeof(Track);
    c.data.track = Track{0, 1, 2, 1, d.hash_id("Axpy", 4)};
    EXPECT_EQ(d.compact(&c, sizeof c), 0);
    d.reg_type_info(5000, 1, "HCCL", 4);
    EXPECT_EQ(d.compact(&c, sizeof c), 0);
    ReportCollector other_sink;
    ReportDecoder other(other_sink);
    other.reg_type_info(5000, 1, "KERNEL_AICORE", 13);
    EXPECT_EQ(other.compact(&c, sizeof c), 0);
    EXPECT_EQ(d.compact(&c, sizeof c), 0);
    ASSERT_EQ(sink.tracks.size(), 3u);
    EXPECT_STREQ(sink.tracks[0].task_type, "KERNEL_AIVEC");
    EXPECT_TRUE(sink.tracks[0].kernel);
    EXPECT_STREQ(sink.tracks[1].task_type, "HCCL");
    EXPECT_FALSE(sink.tracks[1].kernel);
    EXPECT_STREQ(sink.tracks[2].task_type, "HCCL");
    EXPECT_FALSE(sink.tracks[2].kernel);
    ASSERT_EQ(other_sink.tracks.size(), 1u);
    EXPECT_STREQ(other_sink.tracks[0].task_type, "KERNEL_AICORE");
    EXPECT_TRUE(other_sink.tracks[0].kernel);
}

TEST(ProfapiReports, BadReportsAreCountedAndNotRead) {
    ReportCollector sink;
    ReportDecoder d(sink);
    Api a;
    EXPECT_NE(d.api(&a, 39), 0);
    EXPECT_NE(d.api(nullptr, 40), 0);
    a.magic = 0x1234;
    EXPECT_NE(d.api(&a, 40), 0);
    Compact c;
    EXPECT_NE(d.compact(&c, 63), 0);
    c.level = 5000;
    c.type = 802;
    c.dataLen = 8;  // a task track cannot be 8 bytes
    EXPECT_NE(d.compact(&c, 64), 0);
    c.type = 999;  // well-formed, not read here
    EXPECT_EQ(d.compact(&c, 64), 0);
    unsigned char para[12] = {};
    EXPECT_NE(d.device_state(para, 8), 0);
    EXPECT_NE(d.reg_type_info(1, 1, nullptr, 0), 0);
    EXPECT_EQ(d.counts().bad_length.load(), 6u);
    EXPECT_EQ(d.counts().bad_magic.load(), 1u);
    EXPECT_EQ(d.counts().other_type.load(), 1u);
    EXPECT_EQ(sink.apis.size() + sink.tracks.size() + sink.states.size(), 0u);
}

TEST(ProfapiReports, DeviceStatesAreDecoded) {
    ReportCollector sink;
    ReportDecoder d(sink);
    struct {
        uint32_t chip, dev;
        bool open;
    } para{15, 6, true};
    static_assert(sizeof para == 12, "ProfSetDevPara");
    EXPECT_EQ(d.device_state(&para, sizeof para), 0);
    ASSERT_EQ(sink.states.size(), 1u);
    EXPECT_EQ(sink.states[0].chip, 15u);
    EXPECT_EQ(sink.states[0].device, 6u);
    EXPECT_TRUE(sink.states[0].open);
}

// 8 threads asking ids for overlapping names, through reused buffers: one id per distinct name.
TEST(ProfapiReports, HashIdsAreOnePerNameAcrossThreads) {
    ReportCollector sink;
    ReportDecoder d(sink);
    constexpr int kThreads = 8, kNames = 500, kRounds = 20;
    std::vector<std::map<std::string, uint64_t>> seen(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            char buf[32];
            for (int r = 0; r < kRounds; ++r)
                for (int i = 0; i < kNames; ++i) {
                    int n = std::snprintf(buf, sizeof buf, "op_%d", (i * 7 + t) % kNames);
                    uint64_t id = d.hash_id(buf, static_cast<size_t>(n));
                    auto [it, fresh] = seen[t].emplace(buf, id);
                    if (!fresh) {
                        ASSERT_EQ(it->second, id) << buf;
                    }
                    ASSERT_STREQ(d.hashes().name(id), buf);
                }
        });
    for (auto &th : threads) th.join();
    for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t], seen[0]);
    EXPECT_EQ(d.hashes().size(), static_cast<uint64_t>(kNames));
}

// ---- the HAL channel reader on a fake driver ----

namespace {

// A driver of 8 devices: rings any thread appends to, reads cut at sizes that split records, poll
// edge-reported as the virtual CANN's and the driver's are.
struct FakeHal {
    static constexpr uint32_t kDevices = 8;
    struct Ring {
        std::string bytes;
        size_t head = 0;
        bool on = false;
        bool pending = false;
        uint32_t starts = 0;
        std::vector<uint32_t> config;
        // Records a flush counts but that reach the ring only after the reader has found it empty
        // kEmptyReadsBeforeArrival times since that flush (the device's data still on its way).
        std::string in_flight;
        bool arriving = false;
        int empty_reads = 0;
    };
    static constexpr int kEmptyReadsBeforeArrival = 3;
    unsigned int flush_extra = 0;  // bytes a flush reports beyond what it will deliver
    std::mutex mu;
    std::condition_variable cv;
    std::map<std::pair<uint32_t, uint32_t>, Ring> rings;
    uint32_t chip = cann::kChip910B;
    uint64_t freq = 50000;  // ticks per ms
    // The counter (kInfoSysCount): 1,000,000 always, or CLOCK_MONOTONIC in ticks; its first
    // `stalled_counter_reads` reads wait 2 ms first (a thread preempted between the clock readings).
    bool counter_from_clock = false;
    int stalled_counter_reads = 0;
    std::mt19937 rng{1};
    int polls_stopped = 0;

    static FakeHal *&current() {
        static FakeHal *f = nullptr;
        return f;
    }
    uint32_t started() {
        uint32_t n = 0;
        for (auto &[k, r] : rings) n += r.on;
        return n;
    }
    // Records the device has finished but that reach the ring only after the next flush (see Ring).
    void hold(uint32_t dev, uint32_t ch, const std::string &rec) {
        std::lock_guard<std::mutex> l(mu);
        rings[{dev, ch}].in_flight += rec;
    }
    void write(uint32_t dev, uint32_t ch, const std::string &rec) {
        std::lock_guard<std::mutex> l(mu);
        Ring &r = rings[{dev, ch}];
        if (!r.on) return;
        r.bytes += rec;
        r.pending = true;
        cv.notify_all();
    }

    static HalApi api() {
        HalApi h;
        h.drvGetDevNum = [](uint32_t *n) {
            *n = kDevices;
            return 0;
        };
        h.halGetDeviceInfo = [](uint32_t dev, int32_t, int32_t info, int64_t *v) {
            FakeHal &f = *current();
            if (dev >= kDevices) return 1;
            if (info == cann::kInfoVersion)
                *v = static_cast<int64_t>(f.chip) << 8;
            else if (info == cann::kInfoDevOscFreq)
                *v = static_cast<int64_t>(f.freq);
            else if (info == cann::kInfoSysCount && f.counter_from_clock) {
                if (f.stalled_counter_reads > 0) {
                    --f.stalled_counter_reads;
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                }
                *v = static_cast<int64_t>(mono_now_ns() / 1000 * f.freq / 1000);
            } else if (info == cann::kInfoSysCount)
                *v = 1'000'000;
            else
                return 0xfffe;
            return 0;
        };
        h.prof_drv_get_channels = [](unsigned int, void *list) {
            std::memset(list, 0, cann::ChannelListLayout::kSize);
            uint32_t n = 2, ids[2] = {44, 50};
            std::memcpy(static_cast<char *>(list) + 4, &n, 4);
            for (int i = 0; i < 2; ++i) std::memcpy(static_cast<char *>(list) + 8 + 40 * i + 36, &ids[i], 4);
            return 0;
        };
        h.prof_drv_start = [](unsigned int dev, unsigned int ch, cann::ProfStartPara *p) {
            FakeHal &f = *current();
            std::lock_guard<std::mutex> l(f.mu);
            Ring &r = f.rings[{dev, ch}];
            r.on = true;
            ++r.starts;
            r.config.assign(static_cast<uint32_t *>(p->userData),
                            static_cast<uint32_t *>(p->userData) + p->userDataSize / 4);
            return 0;
        };
        h.prof_stop = [](unsigned int dev, unsigned int ch) {
            FakeHal &f = *current();
            std::lock_guard<std::mutex> l(f.mu);
            Ring &r = f.rings[{dev, ch}];
            r.on = false;
            r.bytes.clear();
            r.head = 0;
            f.cv.notify_all();
            return 0;
        };
        h.prof_channel_poll = [](cann::ProfPollInfo *out, int num, int timeout) {
            FakeHal &f = *current();
            std::unique_lock<std::mutex> l(f.mu);
            auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
            for (;;) {
                if (f.started() == 0) {
                    ++f.polls_stopped;
                    return -4;
                }
                int n = 0;
                for (auto &[k, r] : f.rings)
                    if (r.on && r.pending && n < num) {
                        r.pending = false;
                        out[n++] = cann::ProfPollInfo{k.first, k.second};
                    }
                if (n > 0) return n;
                if (f.cv.wait_until(l, deadline) == std::cv_status::timeout) return 0;
            }
        };
        h.prof_channel_read = [](unsigned int dev, unsigned int ch, char *out, unsigned int size) {
            FakeHal &f = *current();
            std::lock_guard<std::mutex> l(f.mu);
            Ring &r = f.rings[{dev, ch}];
            size_t avail = r.bytes.size() - r.head;
            if (avail == 0 && r.arriving && ++r.empty_reads >= kEmptyReadsBeforeArrival) {
                r.bytes += r.in_flight;  // arrives now; this read still found nothing
                r.in_flight.clear();
                r.arriving = false;
                f.cv.notify_all();
            }
            // any cut: records split across reads, as a driver's buffer wrap splits them
            size_t n = std::min<size_t>({avail, size, 1 + f.rng() % 300});
            std::memcpy(out, r.bytes.data() + r.head, n);
            r.head += n;
            return static_cast<int>(n);
        };
        h.halProfDataFlush = [](unsigned int dev, unsigned int ch, unsigned int *len) {
            FakeHal &f = *current();
            std::lock_guard<std::mutex> l(f.mu);
            Ring &r = f.rings[{dev, ch}];
            *len = static_cast<unsigned int>(r.bytes.size() - r.head + r.in_flight.size()) + f.flush_extra;
            r.arriving = !r.in_flight.empty();
            r.empty_reads = 0;
            return 0;
        };
        return h;
    }
};

struct FakeHalScope {
    FakeHal hal;
    FakeHalScope() { FakeHal::current() = &hal; }
    ~FakeHalScope() { FakeHal::current() = nullptr; }
};

}  // namespace

TEST(HalChannelReader, StartsChannelsWithMsptisConfigurationAndSyncsTheClock) {
    FakeHalScope f;
    Collector sink;
    {
        HalChannelReader reader(FakeHal::api(), sink);
        EXPECT_EQ(reader.start(2, cann::kChannelTsFw), StartResult::kStarted);
        EXPECT_EQ(reader.start(2, cann::kChannelTsFw), StartResult::kAlreadyStarted);
        EXPECT_EQ(reader.start(2, cann::kChannelStarsSocLog), StartResult::kStarted);
        EXPECT_EQ(reader.start(8, cann::kChannelTsFw), StartResult::kNoDevice);
        EXPECT_EQ(reader.start(2, 45), StartResult::kNoChannel);
        EXPECT_TRUE(reader.started(2, cann::kChannelTsFw));
        EXPECT_TRUE(reader.clocks().known(2));
        // 3 ms after the sync's counter value of 1,000,000 ticks
        uint64_t sync = reader.clocks().to_monotonic(2, 1'000'000);
        EXPECT_EQ(reader.clocks().to_monotonic(2, 1'000'000 + 150000), sync + 3'000'000);
        std::lock_guard<std::mutex> l(f.hal.mu);
        EXPECT_EQ(f.hal.rings[std::make_pair(2u, 44u)].config, (std::vector<uint32_t>{20, 0, 0, 0, 0, 0, 1, 0, 1}));
        EXPECT_EQ(f.hal.rings[std::make_pair(2u, 50u)].config,
                  (std::vector<uint32_t>{1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}));
    }
    std::lock_guard<std::mutex> l(f.hal.mu);
    EXPECT_FALSE(f.hal.rings[std::make_pair(2u, 44u)].on);  // the destructor stops what it started
}

// The counter is read between two host clock readings and given their midpoint. A reading whose
// thread was held up in between (here: 2 ms before the counter is read) would put every device time
// 1 ms off; the sync keeps the narrowest of several readings. (CI saw device times 1-2 us past their
// host spans under load: DevicePath.DeviceTimesLieInsideTheirHostSpans.)
TEST(HalChannelReader, TheClockSyncKeepsItsNarrowestReading) {
    FakeHalScope f;
    f.hal.counter_from_clock = true;
    f.hal.stalled_counter_reads = 1;
    Collector sink;
    HalChannelReader reader(FakeHal::api(), sink);
    ASSERT_EQ(reader.start(1, cann::kChannelStarsSocLog), StartResult::kStarted);
    const uint64_t now = mono_now_ns();
    const uint64_t ticks = now / 1000 * f.hal.freq / 1000;
    const int64_t off = static_cast<int64_t>(reader.clocks().to_monotonic(1, ticks)) - static_cast<int64_t>(now);
    EXPECT_LT(std::llabs(off), 200'000) << "ns off; a stalled reading alone gives about 1,000,000";
}

TEST(HalChannelReader, UnsupportedChipsAreRefused) {
    FakeHalScope f;
    f.hal.chip = 4;
    Collector sink;
    HalChannelReader reader(FakeHal::api(), sink);
    EXPECT_EQ(reader.start(0, cann::kChannelStarsSocLog), StartResult::kChipNotSupported);
    HalChannelReader none(HalApi{}, sink);
    EXPECT_EQ(none.start(0, cann::kChannelStarsSocLog), StartResult::kNoDriver);
}

// 8 producer threads write begin/end records of their tasks on 8 devices' SoC-log channels and
// step traces on their TS-FW channels while the poll thread reads them in cut pieces; a flush at
// the end returns once every record is parsed: each record exactly once, in order per channel.
TEST(HalChannelReader, EightProducersOnEightDevicesEveryRecordOnceAfterFlush) {
    for (uint32_t chip : kChips) {
        SCOPED_TRACE(chip_name(chip));
        FakeHalScope f;
        f.hal.chip = chip;
        Collector sink;
        HalChannelReader reader(FakeHal::api(), sink);
        for (uint32_t dev = 0; dev < FakeHal::kDevices; ++dev) {
            ASSERT_EQ(reader.start(dev, cann::kChannelStarsSocLog), StartResult::kStarted);
            ASSERT_EQ(reader.start(dev, cann::kChannelTsFw), StartResult::kStarted);
        }
        constexpr uint32_t kTasks = 2000;
        std::vector<std::thread> producers;
        for (uint32_t t = 0; t < 8; ++t)
            producers.emplace_back([&, t] {
                for (uint32_t i = 0; i < kTasks; ++i) {
                    f.hal.write(t, 50, soc_record(chip, 0, t, i, 10 * i) + soc_record(chip, 1, t, i, 10 * i + 5));
                    if (i % 10 == 0) f.hal.write(t, 44, step_record(chip, t, i, i, 2, 11, 10 * i + 1));
                }
            });
        for (auto &p : producers) p.join();
        reader.flush();
        // Nothing waited for: the flush itself read and parsed what was left.
        std::vector<Time> times;
        std::vector<Step> steps;
        {
            std::lock_guard<std::mutex> l(sink.mu);
            times = sink.times;
            steps = sink.steps;
        }
        ASSERT_EQ(times.size(), 8u * kTasks * 2);
        ASSERT_EQ(steps.size(), 8u * kTasks / 10);
        bool v6 = chip == cann::kChipV6;
        for (uint32_t dev = 0; dev < 8; ++dev) {
            std::vector<Time> mine;
            for (const Time &t : times)
                if (std::get<0>(t) == dev) mine.push_back(t);
            ASSERT_EQ(mine.size(), kTasks * 2);
            for (uint32_t i = 0; i < kTasks; ++i) {
                ASSERT_EQ(mine[2 * i], Time(dev, v6 ? 0 : dev, i, !v6, true, 10 * i, false, 0));
                ASSERT_EQ(mine[2 * i + 1], Time(dev, v6 ? 0 : dev, i, !v6, false, 10 * i + 5, false, 0));
            }
        }
        DecoderCounts k = reader.counts();
        EXPECT_EQ(k.records, times.size() + steps.size());
        EXPECT_EQ(k.malformed + k.skipped, 0u);
        reader.stop_all();
        EXPECT_FALSE(reader.started(0, cann::kChannelTsFw));
    }
}

// halProfDataFlush's length is what must be read: records the flush counted but that reach the
// channel only after reads that found it empty are read too, before flush() returns. (Reading until
// the first empty read, the flush returned without them.)
TEST(HalChannelReader, FlushReadsTheLengthTheDriverReportsEvenIfItArrivesLate) {
    for (uint32_t chip : kChips) {
        SCOPED_TRACE(chip_name(chip));
        FakeHalScope f;
        f.hal.chip = chip;
        Collector sink;
        HalChannelReader reader(FakeHal::api(), sink);
        ASSERT_EQ(reader.start(3, cann::kChannelStarsSocLog), StartResult::kStarted);
        ASSERT_EQ(reader.start(3, cann::kChannelTsFw), StartResult::kStarted);
        constexpr uint32_t kTasks = 50;
        for (uint32_t i = 0; i < kTasks; ++i) {
            const std::string rec = soc_record(chip, 0, 3, i, 10 * i) + soc_record(chip, 1, 3, i, 10 * i + 5);
            if (i < kTasks / 2)
                f.hal.write(3, 50, rec);
            else
                f.hal.hold(3, 50, rec);
        }
        f.hal.hold(3, 44, step_record(chip, 3, 7, 7, 2, 11, 1));
        reader.flush();
        EXPECT_EQ(sink.size(), 2u * kTasks + 1);
        EXPECT_EQ(reader.short_flushes(), 0u);
        reader.stop_all();
    }
}

// A length one byte over the records (the virtual driver's, for msPTI's sake) is met by the whole
// records; a length the driver never delivers ends the flush after kFlushWait, counted.
TEST(HalChannelReader, FlushLengthsBeyondTheRecords) {
    FakeHalScope f;
    Collector sink;
    HalChannelReader reader(FakeHal::api(), sink);
    ASSERT_EQ(reader.start(0, cann::kChannelStarsSocLog), StartResult::kStarted);
    f.hal.flush_extra = 1;
    for (uint32_t i = 0; i < 10; ++i) f.hal.write(0, 50, soc_record(cann::kChip910B, 0, 0, i, i));
    reader.flush();
    EXPECT_EQ(sink.size(), 10u);
    EXPECT_EQ(reader.short_flushes(), 0u);
    f.hal.flush_extra = 64;  // a whole record more than will come
    f.hal.write(0, 50, soc_record(cann::kChip910B, 0, 0, 10, 10));
    reader.flush();
    EXPECT_EQ(sink.size(), 11u);
    EXPECT_EQ(reader.short_flushes(), 1u);
    f.hal.flush_extra = 0;
    reader.stop_all();
}

// Starting and stopping from several threads while data flows: no deadlock, no record parsed twice.
TEST(HalChannelReader, StartStopAndFlushFromManyThreads) {
    FakeHalScope f;
    Collector sink;
    HalChannelReader reader(FakeHal::api(), sink);
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 50; ++round) {
                reader.start(t, cann::kChannelStarsSocLog);
                for (uint32_t i = 0; i < 20; ++i) f.hal.write(t, 50, soc_record(5, 0, t, i, i));
                if (round % 3 == 0) reader.flush();
                reader.stop(t, cann::kChannelStarsSocLog);
            }
        });
    for (auto &th : threads) th.join();
    // Every record written while a channel was on was parsed before its stop returned.
    EXPECT_EQ(sink.size(), 8u * 50 * 20);
    EXPECT_EQ(reader.counts().records, 8u * 50 * 20);
}
