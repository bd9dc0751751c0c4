// The virtual CANN's libprofapi.so: how the runtime, aclnn and HCCL report host-side profiling data to a
// profiler that registered callbacks (CANN's profapi interface, as msPTI's libmspti reads it). Layouts
// and values are those of docs/architecture.md "CANN profiling interfaces"; sizes are checked below.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace vnpu::profapi {

constexpr uint16_t kMagic = 0x5a5a;

/// Callback types of MsprofRegisterProfileCallback (the C variants are the ones profilers register).
enum CallbackType : int32_t {
    kCtrl = 0,
    kDeviceState = 1,
    kReportApi = 2,
    kReportEvent = 3,
    kReportCompact = 4,
    kReportAdditional = 5,
    kRegTypeInfo = 6,
    kGetHashId = 7,
    kHostFreqIsEnable = 8,
    kReportApiC = 9,
    kReportEventC = 10,
    kRegTypeInfoC = 11,
    kGetHashIdC = 12,
    kHostFreqIsEnableC = 13,
    kRegDataFormat = 14,
    kRegDataFormatC = 15,
    kDeviceStateC = 16,
    kCallbackTypeCount = 17,
};

/// Bits of CommandHandle::profSwitch that decide which reports are built.
constexpr uint64_t kSwitchAclApi = 0x1ULL;  ///< ACL APIs (level 20000) and node launches (10000)
constexpr uint64_t kSwitchHcclTrace = 0x20ULL;  ///< HCCL APIs (5500) and op info (10000/10)
constexpr uint64_t kSwitchRuntimeApi = 0x100ULL;  ///< runtime APIs (5000)
constexpr uint64_t kSwitchTaskTime = 0x800ULL;  ///< task tracks (compact 5000/802)
constexpr uint64_t kSwitchRuntimeTrace = 0x4000000ULL;  ///< task tracks as well

/// Report levels.
constexpr uint16_t kLevelRuntime = 5000;
constexpr uint16_t kLevelHccl = 5500;
constexpr uint16_t kLevelNode = 10000;
constexpr uint16_t kLevelAcl = 20000;
/// Report types.
constexpr uint32_t kTypeNodeLaunch = 5;  ///< level 10000: an operator launch
constexpr uint32_t kTypeHcclOpInfo = 10;  ///< level 10000 compact: MsprofHcclOPInfo
constexpr uint32_t kTypeTaskTrack = 802;  ///< level 5000 compact: MsprofRuntimeTrack
constexpr uint32_t kTypeRuntimeApiBase = 1000;  ///< level 5000 API types start here

constexpr uint32_t kCommandStart = 1;
constexpr uint32_t kCommandStop = 2;
constexpr uint32_t kMaxDevices = 64;

/// An API span (MsprofApi, 40 bytes).
struct MsprofApi {
    uint16_t magicNumber = kMagic;
    uint16_t level = 0;
    uint32_t type = 0;
    uint32_t threadId = 0;
    uint32_t reserve = 0;
    uint64_t beginTime = 0;
    uint64_t endTime = 0;
    uint64_t itemId = 0;
};
static_assert(sizeof(MsprofApi) == 40, "MsprofApi is 40 bytes");

/// A runtime task track: which kernel became which task on which stream.
struct MsprofRuntimeTrack {
    uint16_t deviceId;
    uint16_t streamId;
    uint32_t taskInfo;
    uint64_t taskType;  ///< a type id registered at level 5000; the name starts with "KERNEL" for kernels
    uint64_t kernelName;  ///< hash id of the kernel name
};

#pragma pack(push, 1)
/// HCCL op info (26 bytes, packed).
struct MsprofHcclOPInfo {
    uint8_t relay : 1;
    uint8_t retry : 1;
    uint8_t dataType;
    uint64_t algType;  ///< hash id
    uint64_t count;
    uint64_t groupName;  ///< hash id
};
#pragma pack(pop)
static_assert(sizeof(MsprofHcclOPInfo) == 26, "MsprofHcclOPInfo is 26 bytes");

/// A compact report (MsprofCompactInfo, 64 bytes).
struct MsprofCompactInfo {
    uint16_t magicNumber = kMagic;
    uint16_t level = 0;
    uint32_t type = 0;
    uint32_t threadId = 0;
    uint32_t dataLen = 0;
    uint64_t timeStamp = 0;
    union {
        uint8_t info[40];
        MsprofRuntimeTrack runtimeTrack;
        MsprofHcclOPInfo hcclopInfo;
    } data{};
};
static_assert(sizeof(MsprofCompactInfo) == 64, "MsprofCompactInfo is 64 bytes");
static_assert(offsetof(MsprofCompactInfo, data) == 24, "compact payload at +24");

/// profSetProfCommand's argument (5424 bytes).
struct CommandHandle {
    uint64_t profSwitch;
    uint64_t profSwitchHi;
    uint32_t devNums;
    uint32_t devIdList[kMaxDevices];
    uint32_t modelId;
    uint32_t type;
    uint32_t cacheFlag;
    struct {
        uint32_t pathLen;
        uint32_t storageLimit;
        uint32_t profDataLen;
        char path[1024];
        char profData[4096];
    } params;
};
static_assert(sizeof(CommandHandle) == 5424, "CommandHandle is 5424 bytes");

/// Device state handed to the device-state callbacks (12 bytes).
struct ProfSetDevPara {
    uint32_t chipId;
    uint32_t devId;
    bool isOpen;
};
static_assert(sizeof(ProfSetDevPara) == 12, "ProfSetDevPara is 12 bytes");

/// Which reports are wanted now: the command's switch where the matching callback is registered, else 0.
struct Gate {
    std::atomic<uint64_t> api{0};  ///< for MsprofReportApi (callback 9)
    std::atomic<uint64_t> compact{0};  ///< for MsprofReportCompactInfo (callback 4)
    /// Goes up with every callback registration: a hash id the runtime kept from MsprofGetHashId is
    /// the profiler's answer only while this is what it was when the id was asked for.
    std::atomic<uint64_t> callbacks{0};
};

}  // namespace vnpu::profapi

extern "C" {
int32_t MsprofRegisterProfileCallback(int32_t callbackType, void *callback, uint32_t len);
int32_t profSetProfCommand(void *command, uint32_t len);
int32_t profRegDeviceStateCallback(int32_t (*handle)(void *deviceState, uint32_t len));
uint64_t MsprofGetHashId(const char *hashInfo, size_t length);
int32_t MsprofRegTypeInfo(uint16_t level, uint32_t typeId, const char *typeName);
int32_t MsprofReportApi(uint32_t agingFlag, const vnpu::profapi::MsprofApi *api);
int32_t MsprofReportCompactInfo(uint32_t agingFlag, const void *data, uint32_t length);
int32_t MsprofNotifySetDevice(uint32_t chipId, uint32_t deviceId, bool isOpen);
uint64_t MsprofSysCycleTime(void);
/// The virtual CANN's own: the gate the runtime reads before building any report (never null).
const vnpu::profapi::Gate *vnpuProfapiGate(void);
}
