// The virtual CANN's libascend_hal.so: device count and info, the device clock, and the profiling
// channels that the virtual NPU's stream workers write (STARS SoC log, TS-FW step trace) and a profiler
// polls and reads, with the layouts of the driver's interface (docs/architecture.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vnpu::hal {

constexpr uint32_t kChannelTsFw = 44;
constexpr uint32_t kChannelStarsSocLog = 50;
constexpr uint32_t kChannelMax = 160;

/// Chip ids (halGetDeviceInfo VERSION, bits 8-15).
constexpr uint32_t kChip910B = 5;
constexpr uint32_t kChip310B = 7;
constexpr uint32_t kChipV6 = 15;

/// halGetDeviceInfo info types used here.
constexpr int32_t kInfoVersion = 1;
constexpr int32_t kInfoSysCount = 13;
constexpr int32_t kInfoHostOscFreq = 24;
constexpr int32_t kInfoDevOscFreq = 25;

constexpr int kDrvErrorNone = 0;
constexpr int kDrvErrorNoDevice = 1;
constexpr int kDrvErrorInvalidValue = 2;
constexpr int kDrvErrorNotSupport = 0xfffe;
constexpr int kProfError = -1;
constexpr int kProfStoppedAlready = -4;

/// Device clock by default: 50 MHz, i.e. this many ticks per millisecond (DEV_OSC_FREQUE);
/// VNPU_DEVICE_TICKS_PER_MS and VNPU_DEVICE_CLOCK_OFFSET change the rate and the counter's start.
constexpr uint64_t kTicksPerMs = 50000;

struct ChannelInfo {
    char channelName[32];
    unsigned int channelType;
    unsigned int channelId;
};
struct ChannelList {
    unsigned int chipType;
    unsigned int channelNum;
    ChannelInfo channel[kChannelMax];
};
static_assert(sizeof(ChannelList) == 6408, "ChannelList is 6408 bytes");

struct ProfStartPara {
    int channelType;  ///< 0: TS, 1: peripheral
    unsigned int samplePeriod;
    unsigned int realTime;
    void *userData;
    unsigned int userDataSize;
};
static_assert(sizeof(ProfStartPara) == 32, "ProfStartPara is 32 bytes");

struct ProfPollInfo {
    unsigned int deviceId;
    unsigned int channelId;
};

/// STARS SoC-log record of 910B/310B (64 bytes): task begin (funcType 0) or end (1).
struct StarsSocLog {
    uint16_t funcType : 6;
    uint16_t cnt : 4;
    uint16_t taskType : 6;
    uint16_t resv0;
    uint16_t streamId;
    uint16_t taskId;
    uint64_t timestamp;
    uint16_t resv1;
    uint16_t accIdAcsqId;
    uint32_t resv2[11];
};
static_assert(sizeof(StarsSocLog) == 64, "StarsSocLog is 64 bytes");

/// STARS SoC-log record of V6 chips (32 bytes): a 32-bit task id and no stream.
struct StarsSocLogV6 {
    uint16_t funcType : 6;
    uint16_t cnt : 4;
    uint16_t taskType : 6;
    uint16_t resv0;
    uint32_t taskId;
    uint64_t timestamp;
    uint16_t resv1;
    uint16_t accIdAcsqId;
    uint32_t resv2[3];
};
static_assert(sizeof(StarsSocLogV6) == 32, "StarsSocLogV6 is 32 bytes");

#pragma pack(push, 4)
/// TS-FW step-trace record (40 bytes) of 910B/310B.
struct StepTrace {
    uint8_t mode;
    uint8_t rptType;  ///< 10: step trace
    uint16_t bufSize;
    uint8_t reserved1[4];
    uint64_t timestamp;
    uint64_t indexId;
    uint64_t modelId;
    uint16_t streamId;
    uint16_t taskId;
    uint16_t tagId;
    uint8_t reserved2[2];
};
/// TS-FW step-trace record (40 bytes) of V6 chips.
struct StepTraceV6 {
    uint8_t mode;
    uint8_t rptType;
    uint16_t bufSize;
    uint8_t reserved1[4];
    uint64_t timestamp;
    uint64_t indexId;
    uint64_t modelId;
    uint16_t tagId;
    uint16_t streamId;
    uint32_t taskId;
};
#pragma pack(pop)
static_assert(sizeof(StepTrace) == 40 && sizeof(StepTraceV6) == 40, "step traces are 40 bytes");

constexpr uint8_t kRptTypeStepTrace = 10;

}  // namespace vnpu::hal

extern "C" {
int drvGetDevNum(uint32_t *count);
int drvGetDevIDs(uint32_t *devices, uint32_t len);
int halGetDeviceInfo(uint32_t deviceId, int32_t moduleType, int32_t infoType, int64_t *value);
int halGetAPIVersion(int32_t *apiVersion);
int prof_drv_get_channels(unsigned int deviceId, vnpu::hal::ChannelList *channelList);
int prof_drv_start(unsigned int deviceId, unsigned int channelId, vnpu::hal::ProfStartPara *startPara);
int prof_stop(unsigned int deviceId, unsigned int channelId);
int prof_channel_poll(vnpu::hal::ProfPollInfo *outBuf, int num, int timeout);
int prof_channel_read(unsigned int deviceId, unsigned int channelId, char *outBuf, unsigned int bufSize);
int halProfDataFlush(unsigned int deviceId, unsigned int channelId, unsigned int *dataLen);

// The virtual NPU's side (not part of the driver's interface).
/** Chip id of every virtual device: VNPU_CHIP=910B (default), 310B or V6. */
uint32_t vnpuHalChipId(void);
/** The device counter (DEV_OSC_FREQUE ticks per ms, from VNPU_DEVICE_CLOCK_OFFSET) at CLOCK_MONOTONIC time monoNs. */
uint64_t vnpuHalTicks(uint64_t monoNs);
/** Whether the channel of the device is started: when not, writers build nothing. */
int vnpuHalChannelOn(uint32_t deviceId, uint32_t channelId);
/** Writes a STARS task begin (funcType 0) or end (1) record in the chip's layout. 0, or -1 when dropped. */
int vnpuHalWriteTaskLog(uint32_t deviceId, uint32_t streamId, uint32_t taskId, uint32_t funcType, uint64_t ticks);
/**
 * Writes a task's STARS begin and end records (at CLOCK_MONOTONIC times beginNs and endNs) in the chip's
 * layout, next to each other with one lock: the bytes of vnpuHalWriteTaskLog's two calls, at the cost
 * of one. Both, or neither (-1) when the ring has no room for both or the channel is stopped; 0 else.
 */
int vnpuHalWriteTaskSpan(uint32_t deviceId, uint32_t streamId, uint32_t taskId, uint64_t beginNs, uint64_t endNs);
/** Writes a TS-FW step-trace record in the chip's layout. 0, or -1 when dropped. */
int vnpuHalWriteStepTrace(uint32_t deviceId, uint32_t streamId, uint32_t taskId, uint64_t indexId, uint64_t modelId,
                          uint16_t tagId, uint64_t ticks);
/**
 * Delivers what the device's started channels hold before it closes: reports them to poll and waits,
 * at most timeoutMs, until the profiler has read them and come back for more. 1 if it did, else 0.
 */
int vnpuHalDrain(uint32_t deviceId, uint32_t timeoutMs);
/** Records dropped so far on a channel because its ring was full. */
uint64_t vnpuHalChannelDropped(uint32_t deviceId, uint32_t channelId);
}
