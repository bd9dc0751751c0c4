// The byte layouts libmspti reads from Ascend's profiling interfaces: libprofapi's reports and
// libascend_hal's channel records (facts: shared/reference/ascend-profiling-protocol.md). Fields
// are read at their byte offsets with memcpy (little-endian, as every Ascend host), never through
// a cast: channel data arrives at any alignment, and a report's bytes are the reporter's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mspti::device::cann {

/// Reads a little-endian field of type T at `offset` of `bytes`.
template <typename T>
inline T load(const void *bytes, size_t offset) {
    T value;
    std::memcpy(&value, static_cast<const unsigned char *>(bytes) + offset, sizeof value);
    return value;
}

// ---- libprofapi.so ----

/// MsprofRegisterProfileCallback types that libmspti registers (the C variants).
enum CallbackType : int32_t {
    kCbReportCompact = 4,
    kCbReportAdditional = 5,
    kCbReportApi = 9,
    kCbReportEvent = 10,
    kCbRegTypeInfo = 11,
    kCbGetHashId = 12,
    kCbHostFreqIsEnable = 13,
    kCbDeviceState = 16,
};

constexpr uint16_t kReportMagic = 0x5a5a;
constexpr uint16_t kLevelRuntime = 5000;
constexpr uint16_t kLevelHccl = 5500;
constexpr uint16_t kLevelNode = 10000;
constexpr uint16_t kLevelAcl = 20000;
constexpr uint32_t kTypeNodeLaunch = 5;  ///< level 10000 API: itemId is the op name's hash id
constexpr uint32_t kTypeHcclOpInfo = 10;  ///< level 10000 compact
constexpr uint32_t kTypeTaskTrack = 802;  ///< level 5000 compact

/// MsprofApi: 40 bytes.
struct ApiLayout {
    static constexpr size_t kSize = 40, kMagic = 0, kLevel = 2, kType = 4, kThreadId = 8, kBegin = 16, kEnd = 24,
                            kItemId = 32;
};
/// MsprofCompactInfo: 64 bytes, the payload at +24.
struct CompactLayout {
    static constexpr size_t kSize = 64, kMagic = 0, kLevel = 2, kType = 4, kThreadId = 8, kDataLen = 12,
                            kTimeStamp = 16, kData = 24;
};
/// MsprofRuntimeTrack (the compact payload of 5000/802).
struct TrackLayout {
    static constexpr size_t kSize = 24, kDevice = 0, kStream = 2, kTaskInfo = 4, kTaskType = 8, kKernelName = 16;
};
/// MsprofHcclOPInfo (packed, 26 bytes; the compact payload of 10000/10).
struct HcclOpInfoLayout {
    static constexpr size_t kSize = 26, kFlags = 0, kDataType = 1, kAlgType = 2, kCount = 10, kGroupName = 18;
};
/// ProfSetDevPara: 12 bytes.
struct DevParaLayout {
    static constexpr size_t kSize = 12, kChipId = 0, kDevId = 4, kIsOpen = 8;
};

/// profSetProfCommand's CommandHandle: 5424 bytes.
struct CommandLayout {
    static constexpr size_t kSize = 5424, kSwitch = 0, kSwitchHi = 8, kDevNums = 16, kDevIdList = 20, kMaxDevices = 64,
                            kModelId = 276, kType = 280;
};
constexpr uint32_t kCommandStart = 1;
constexpr uint32_t kCommandStop = 2;
/// CommandHandle::profSwitch bits.
constexpr uint64_t kSwitchAclApi = 0x1ULL;
constexpr uint64_t kSwitchHcclTrace = 0x20ULL;
constexpr uint64_t kSwitchRuntimeApi = 0x100ULL;
constexpr uint64_t kSwitchTaskTime = 0x800ULL;
constexpr uint64_t kSwitchRuntimeTrace = 0x4000000ULL;

// ---- libascend_hal.so ----

constexpr uint32_t kChannelTsFw = 44;
constexpr uint32_t kChannelStarsSocLog = 50;

/// Chip ids (halGetDeviceInfo VERSION, bits 8-15) whose device tasks are read.
constexpr uint32_t kChip910B = 5;
constexpr uint32_t kChip310B = 7;
constexpr uint32_t kChipV6 = 15;

constexpr int32_t kInfoVersion = 1;
constexpr int32_t kInfoSysCount = 13;
constexpr int32_t kInfoHostOscFreq = 24;
constexpr int32_t kInfoDevOscFreq = 25;
constexpr int32_t kApiVersionWithHostFreq = 0x071905;

/// ChannelList (6408 bytes): chipType, channelNum, then 160 ChannelInfo {name[32], type, id}.
struct ChannelListLayout {
    static constexpr size_t kSize = 6408, kChannelNum = 4, kFirst = 8, kInfoSize = 40, kInfoId = 36, kMax = 160;
};
/// ProfStartPara (32 bytes): channelType, samplePeriod, realTime, userData, userDataSize.
struct ProfStartPara {
    int channelType;
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

/// STARS SoC-log record, 910B/310B (64 bytes; the FFTS+ variant too) and V6 (32 bytes). The first
/// 16 bits: funcType (bits 0-5), cnt (6-9), taskType (10-15).
struct SocLogLayout {
    static constexpr size_t kSize = 64, kHeader = 0, kStream = 4, kTask = 6, kTimestamp = 8, kSubTaskId = 18;
};
struct SocLogV6Layout {
    static constexpr size_t kSize = 32, kHeader = 0, kTask = 4, kTimestamp = 8;
};
constexpr uint16_t kFuncBegin = 0b000000;
constexpr uint16_t kFuncEnd = 0b000001;
constexpr uint16_t kFuncFftsStart = 0b100010;
constexpr uint16_t kFuncFftsEnd = 0b100011;

/// TS-FW records (40 bytes): mode, rptType, bufSize, then per type. Step trace (rptType 10):
/// timestamp +8, indexId +16, modelId +24; 910B/310B: streamId +32, taskId (16 bits) +34, tagId +36;
/// V6: tagId +32, streamId +34, taskId (32 bits) +36.
struct StepTraceLayout {
    static constexpr size_t kSize = 40, kRptType = 1, kBufSize = 2, kTimestamp = 8, kIndexId = 16, kModelId = 24;
    static constexpr size_t kStream = 32, kTask = 34, kTag = 36;  // 910B/310B
    static constexpr size_t kV6Tag = 32, kV6Stream = 34, kV6Task = 36;
};
constexpr uint8_t kRptStepTrace = 10;
constexpr uint8_t kRptTsMemcpy = 11;
constexpr uint8_t kRptTaskType = 12;
constexpr uint8_t kRptFlipInfo = 14;
constexpr uint16_t kTagMarkEx = 11;  ///< a step trace enqueued by aclrtProfTrace for a marker

}  // namespace mspti::device::cann
