// What the virtual NPU reports through libprofapi.so and libascend_hal.so, checked with a recording
// profiler registered as msPTI registers (callback types and sizes of the interface) and an independent
// reader of the device records.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "../vnpu/test_support.h"
#include "aclnnop/aclnn_add.h"
#include "ascend_hal.h"
#include "profapi.h"
#include "vnpu/vnpu_stream.h"

namespace {

using namespace vnpu::profapi;
using vnpu_test::DeviceBuffer;
using vnpu_test::DeviceTest;

struct Captured {
    std::mutex mu;
    std::vector<MsprofApi> apis;
    std::vector<MsprofCompactInfo> compacts;
    std::map<uint64_t, std::string> names;  // hash id -> name
    std::map<std::pair<uint16_t, uint32_t>, std::string> types;  // (level, type) -> name
    std::vector<ProfSetDevPara> states;
    std::atomic<int> calls{0};  // every callback but device state
};
Captured g;

uint64_t onHash(const char *text, size_t len) {
    std::string s(text, len);
    const uint64_t id = std::hash<std::string>()(s);
    std::lock_guard<std::mutex> lock(g.mu);
    g.names[id] = s;
    ++g.calls;
    return id;
}
int32_t onType(uint16_t level, uint32_t type, const char *name, size_t len) {
    std::lock_guard<std::mutex> lock(g.mu);
    g.types[{level, type}] = std::string(name, len);
    ++g.calls;
    return 0;
}
int32_t onApi(uint32_t, const MsprofApi *api) {
    std::lock_guard<std::mutex> lock(g.mu);
    g.apis.push_back(*api);
    ++g.calls;
    return 0;
}
int32_t onCompact(uint32_t, const void *data, uint32_t len) {
    EXPECT_EQ(len, 64U);
    std::lock_guard<std::mutex> lock(g.mu);
    MsprofCompactInfo c;
    std::memcpy(&c, data, sizeof c);
    g.compacts.push_back(c);
    ++g.calls;
    return 0;
}
int32_t onState(void *state, uint32_t len) {
    EXPECT_EQ(len, 12U);
    std::lock_guard<std::mutex> lock(g.mu);
    g.states.push_back(*static_cast<ProfSetDevPara *>(state));
    return 0;
}

// The registered name of a type (caller holds g.mu).
std::string type_name(uint16_t level, uint64_t type) {
    return g.types[std::make_pair(level, static_cast<uint32_t>(type))];
}

void reg(int32_t type, void *fn) { ASSERT_EQ(MsprofRegisterProfileCallback(type, fn, sizeof(void *)), 0); }

void command(uint32_t type, uint64_t profSwitch) {
    CommandHandle cmd{};
    cmd.profSwitch = profSwitch;
    cmd.devNums = 1;
    cmd.devIdList[0] = 0;
    cmd.modelId = 0xFFFFFFFF;
    cmd.type = type;
    ASSERT_EQ(profSetProfCommand(&cmd, sizeof cmd), 0);
}

void startChannel(uint32_t ch) {
    uint32_t config[11] = {1};
    vnpu::hal::ProfStartPara para{};
    para.userData = config;
    para.userDataSize = sizeof config;
    ASSERT_EQ(prof_drv_start(0, ch, &para), 0);
}

std::vector<char> drain(uint32_t ch) {
    std::vector<char> all;
    char buf[4096];
    int n = 0;
    while ((n = prof_channel_read(0, ch, buf, sizeof buf)) > 0) all.insert(all.end(), buf, buf + n);
    return all;
}

template <class T>
T at(const std::vector<char> &b, size_t offset) {
    T v;
    std::memcpy(&v, b.data() + offset, sizeof v);
    return v;
}

uint64_t raw_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

class ProfReports : public DeviceTest {
protected:
    void SetUp() override {
        DeviceTest::SetUp();
        std::lock_guard<std::mutex> lock(g.mu);
        g.apis.clear();
        g.compacts.clear();
        g.states.clear();
        g.calls = 0;
    }
    void TearDown() override {
        command(kCommandStop, ~0ULL);
        for (int32_t type : {kReportApiC, kReportCompact, kDeviceStateC, kGetHashIdC, kRegTypeInfoC}) {
            reg(type, nullptr);
        }
        prof_stop(0, vnpu::hal::kChannelStarsSocLog);
        prof_stop(0, vnpu::hal::kChannelTsFw);
        DeviceTest::TearDown();
    }

    void runAdd() {
        DeviceBuffer a(16), out(16);
        int64_t n = 4, stride = 1;
        aclTensor *ta = aclCreateTensor(&n, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &n, 1, a.get());
        aclTensor *to = aclCreateTensor(&n, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &n, 1, out.get());
        float alpha = 2.0f;
        aclScalar *s = aclCreateScalar(&alpha, ACL_FLOAT);
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        ASSERT_EQ(aclnnAddGetWorkspaceSize(ta, ta, s, to, &ws, &ex), ACL_SUCCESS);
        ASSERT_EQ(aclnnAdd(nullptr, ws, ex, stream_), ACL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
        aclDestroyTensor(ta);
        aclDestroyTensor(to);
        aclDestroyScalar(s);
    }
};

// The property a process without profiling relies on: no report is built (no hash id asked for, no type
// registered, no callback called) unless callbacks are registered AND the command switched reports on.
TEST_F(ProfReports, NothingIsBuiltUnlessRegisteredAndSwitchedOn) {
    runAdd();
    EXPECT_EQ(g.calls.load(), 0);
    reg(kGetHashIdC, reinterpret_cast<void *>(&onHash));  // what msPTI registers at load
    reg(kRegTypeInfoC, reinterpret_cast<void *>(&onType));
    const int afterLoad = g.calls.load();  // type names registered earlier in the process, replayed
    runAdd();
    EXPECT_EQ(g.calls.load(), afterLoad);
    reg(kReportApiC, reinterpret_cast<void *>(&onApi));  // what it registers at msptiSubscribe
    reg(kReportCompact, reinterpret_cast<void *>(&onCompact));
    runAdd();
    EXPECT_EQ(g.calls.load(), afterLoad);
    EXPECT_TRUE(drain(vnpu::hal::kChannelStarsSocLog).empty());
    command(kCommandStart, 0x4000921);
    runAdd();
    EXPECT_GT(g.calls.load(), afterLoad);
    command(kCommandStop, 0x4000921);
    const int afterStop = g.calls.load();
    runAdd();
    EXPECT_EQ(g.calls.load(), afterStop);
}

// A kernel's task track (host) and its STARS begin/end (device) name the same stream and task; the
// node launch around it covers the track, and the device times lie within the run in device ticks.
TEST_F(ProfReports, KernelTrackMatchesDeviceRecords) {
    reg(kGetHashIdC, reinterpret_cast<void *>(&onHash));
    reg(kRegTypeInfoC, reinterpret_cast<void *>(&onType));
    reg(kReportApiC, reinterpret_cast<void *>(&onApi));
    reg(kReportCompact, reinterpret_cast<void *>(&onCompact));
    command(kCommandStart, 0x4000801);
    startChannel(vnpu::hal::kChannelStarsSocLog);
    int64_t ticksBefore = 0, ticksAfter = 0;
    ASSERT_EQ(halGetDeviceInfo(0, 0, vnpu::hal::kInfoSysCount, &ticksBefore), 0);
    const uint64_t hostBefore = raw_ns();
    runAdd();
    const uint64_t hostAfter = raw_ns();
    ASSERT_EQ(halGetDeviceInfo(0, 0, vnpu::hal::kInfoSysCount, &ticksAfter), 0);
    uint32_t dev = 0, streamId = 0;
    ASSERT_EQ(vnpuStreamGetIds(stream_, &dev, &streamId), 0);

    std::lock_guard<std::mutex> lock(g.mu);
    std::vector<MsprofCompactInfo> tracks;
    for (const auto &c : g.compacts)
        if (c.level == kLevelRuntime && c.type == kTypeTaskTrack) tracks.push_back(c);
    ASSERT_EQ(tracks.size(), 1U);
    const MsprofRuntimeTrack &t = tracks[0].data.runtimeTrack;
    EXPECT_EQ(t.deviceId, 0);
    EXPECT_EQ(t.streamId, streamId);
    EXPECT_EQ(type_name(kLevelRuntime, t.taskType), "KERNEL_AIVEC");
    EXPECT_EQ(g.names[t.kernelName], "Axpy_233851a3505389e43928a8bba133a74d_high_performance_210000000");
    EXPECT_GE(tracks[0].timeStamp, hostBefore);
    EXPECT_LE(tracks[0].timeStamp, hostAfter);

    std::vector<MsprofApi> launches;
    for (const auto &a : g.apis)
        if (a.level == kLevelNode && a.type == kTypeNodeLaunch) launches.push_back(a);
    ASSERT_EQ(launches.size(), 1U);
    EXPECT_EQ(g.names[launches[0].itemId], "aclnnAdd_AxpyAiCore_Axpy");
    EXPECT_LE(launches[0].beginTime, tracks[0].timeStamp);
    EXPECT_GE(launches[0].endTime, tracks[0].timeStamp);

    const std::vector<char> soc = drain(vnpu::hal::kChannelStarsSocLog);
    ASSERT_EQ(soc.size(), 128U);
    EXPECT_EQ(at<uint16_t>(soc, 0) & 0x3f, 0);
    EXPECT_EQ(at<uint16_t>(soc, 64) & 0x3f, 1);
    for (size_t o : {0, 64}) {
        EXPECT_EQ(at<uint16_t>(soc, o + 4), streamId);
        EXPECT_EQ(at<uint16_t>(soc, o + 6), static_cast<uint16_t>(t.taskInfo));
        EXPECT_GE(at<uint64_t>(soc, o + 8), static_cast<uint64_t>(ticksBefore));
        EXPECT_LE(at<uint64_t>(soc, o + 8), static_cast<uint64_t>(ticksAfter));
    }
    EXPECT_LE(at<uint64_t>(soc, 8), at<uint64_t>(soc, 72));
}

// A kernel's name is hashed once per thread (as CANN's runtime keeps the id with the kernel), and
// again by the profiler registered since: every track carries the id the current callback gave.
std::atomic<int> g_otherHashCalls{0};
uint64_t onOtherHash(const char *text, size_t len) {
    ++g_otherHashCalls;
    return onHash(text, len) ^ 0x5a5a5a5aULL;
}

TEST_F(ProfReports, AKernelNameIsHashedOncePerProfiler) {
    reg(kGetHashIdC, reinterpret_cast<void *>(&onOtherHash));
    reg(kRegTypeInfoC, reinterpret_cast<void *>(&onType));
    reg(kReportCompact, reinterpret_cast<void *>(&onCompact));
    command(kCommandStart, 0x4000800);
    g_otherHashCalls = 0;
    for (int i = 0; i < 3; ++i) runAdd();
    EXPECT_EQ(g_otherHashCalls.load(), 1);  // the runs' one kernel name, on this thread
    reg(kGetHashIdC, reinterpret_cast<void *>(&onHash));  // another profiler's ids from now on
    for (int i = 0; i < 2; ++i) runAdd();
    EXPECT_EQ(g_otherHashCalls.load(), 1);
    const std::string axpy = "Axpy_233851a3505389e43928a8bba133a74d_high_performance_210000000";
    const uint64_t first = std::hash<std::string>()(axpy) ^ 0x5a5a5a5aULL, second = std::hash<std::string>()(axpy);
    std::lock_guard<std::mutex> lock(g.mu);
    std::vector<uint64_t> ids;
    for (const auto &c : g.compacts)
        if (c.level == kLevelRuntime && c.type == kTypeTaskTrack) ids.push_back(c.data.runtimeTrack.kernelName);
    EXPECT_EQ(ids, (std::vector<uint64_t>{first, first, first, second, second}));
}

TEST_F(ProfReports, AclAndRuntimeApisCarryRegisteredTypes) {
    reg(kGetHashIdC, reinterpret_cast<void *>(&onHash));
    reg(kRegTypeInfoC, reinterpret_cast<void *>(&onType));
    reg(kReportApiC, reinterpret_cast<void *>(&onApi));
    reg(kReportCompact, reinterpret_cast<void *>(&onCompact));
    command(kCommandStart, 0x4000921);
    runAdd();
    std::lock_guard<std::mutex> lock(g.mu);
    bool sawSync = false, sawLaunch = false;
    for (const auto &a : g.apis) {
        EXPECT_EQ(a.magicNumber, kMagic);
        EXPECT_LE(a.beginTime, a.endTime);
        const std::string name = type_name(a.level, a.type);
        if (a.level == kLevelAcl && name == "aclrtSynchronizeStream") sawSync = true;
        if (a.level == kLevelRuntime) {
            EXPECT_GE(a.type, kTypeRuntimeApiBase);
            if (name == "rtKernelLaunch") sawLaunch = true;
        }
    }
    EXPECT_TRUE(sawSync);
    EXPECT_TRUE(sawLaunch);
}

// A profiler that subscribes after the device was opened still learns of it.
TEST_F(ProfReports, AnOpenDeviceReachesALateDeviceStateCallback) {
    reg(kDeviceStateC, reinterpret_cast<void *>(&onState));
    std::lock_guard<std::mutex> lock(g.mu);
    ASSERT_FALSE(g.states.empty());
    EXPECT_EQ(g.states[0].devId, 0U);
    EXPECT_EQ(g.states[0].chipId, vnpuHalChipId());
    EXPECT_TRUE(g.states[0].isOpen);
}

// aclrtProfTrace's 18-byte payload comes back as a TS-FW step trace when the stream reaches it.
TEST_F(ProfReports, ProfTraceIsDecodedOntoTheTsFwChannel) {
    startChannel(vnpu::hal::kChannelTsFw);
    unsigned char payload[18] = {};
    const uint64_t index = 77, model = 3;
    const uint16_t tag = 11;
    std::memcpy(payload, &index, 8);
    std::memcpy(payload + 8, &model, 8);
    std::memcpy(payload + 16, &tag, 2);
    ASSERT_EQ(aclrtProfTrace(payload, sizeof payload, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    uint32_t dev = 0, streamId = 0;
    ASSERT_EQ(vnpuStreamGetIds(stream_, &dev, &streamId), 0);
    const std::vector<char> ts = drain(vnpu::hal::kChannelTsFw);
    ASSERT_EQ(ts.size(), 40U);
    EXPECT_EQ(at<uint8_t>(ts, 1), 10);
    EXPECT_EQ(at<uint64_t>(ts, 16), 77U);
    EXPECT_EQ(at<uint64_t>(ts, 24), 3U);
    EXPECT_EQ(at<uint16_t>(ts, 32), streamId);
    EXPECT_EQ(at<uint16_t>(ts, 36), 11);
}

TEST(ProfApi, BadSizesAndTypesAreRejected) {
    MsprofCompactInfo c;
    EXPECT_NE(MsprofReportCompactInfo(1, &c, 63), 0);
    CommandHandle cmd{};
    EXPECT_NE(profSetProfCommand(&cmd, sizeof cmd - 1), 0);
    cmd.type = kCommandStart;
    cmd.devNums = 65;
    EXPECT_NE(profSetProfCommand(&cmd, sizeof cmd), 0);
    EXPECT_NE(MsprofRegisterProfileCallback(17, nullptr, sizeof(void *)), 0);
    EXPECT_NE(MsprofRegisterProfileCallback(4, nullptr, 4), 0);
}

}  // namespace
