#include "device/profapi_reports.h"

#include <cstring>

#include "device/cann_layouts.h"

namespace mspti::device {

using namespace cann;

namespace {
void bump(std::atomic<uint64_t> &c) { c.fetch_add(1, std::memory_order_relaxed); }

// Whether a task type's name starts with "KERNEL": compared in line, a byte at a time, so a shorter
// name stops at its NUL (every track report asks, and a library call cost more than the rest).
bool kernel_type(const char *t) {
    return t != nullptr && t[0] == 'K' && t[1] == 'E' && t[2] == 'R' && t[3] == 'N' && t[4] == 'E' && t[5] == 'L';
}

// The last task type this thread's track reports named, with its name and whether it is a kernel's:
// a launch loop names the same type again and again. Valid while the type table's generation is the
// one it was read under (a registration or another table changes it; 0 is never one).
struct TaskType {
    uint64_t generation = 0;
    uint32_t id = 0;
    const char *name = nullptr;
    bool kernel = false;
};
constinit thread_local TaskType t_task_type;

// A fixed-size report with msprof's magic at `magic_at`: false (and counted) otherwise.
bool well_formed(const void *report, size_t length, size_t size, size_t magic_at, ReportCounts &counts) {
    if (report == nullptr || length != size) {
        bump(counts.bad_length);
        return false;
    }
    if (load<uint16_t>(report, magic_at) != kReportMagic) {
        bump(counts.bad_magic);
        return false;
    }
    return true;
}
}  // namespace

int32_t ReportDecoder::api(const void *report, size_t length) {
    if (!well_formed(report, length, ApiLayout::kSize, ApiLayout::kMagic, counts_)) return 1;
    ApiReport r;
    r.level = load<uint16_t>(report, ApiLayout::kLevel);
    r.type = load<uint32_t>(report, ApiLayout::kType);
    r.thread = load<uint32_t>(report, ApiLayout::kThreadId);
    r.begin = load<uint64_t>(report, ApiLayout::kBegin);
    r.end = load<uint64_t>(report, ApiLayout::kEnd);
    // ACL and runtime spans are named by their registered type; node launches and HCCL by their item.
    if (r.level == kLevelAcl || r.level == kLevelRuntime)
        r.name = types_.name(r.level, r.type);
    else
        r.name = hashes_.name(load<uint64_t>(report, ApiLayout::kItemId));
    sink_.on_api(r);
    return 0;
}

int32_t ReportDecoder::compact(const void *report, size_t length) {
    if (!well_formed(report, length, CompactLayout::kSize, CompactLayout::kMagic, counts_)) return 1;
    const uint16_t level = load<uint16_t>(report, CompactLayout::kLevel);
    const uint32_t type = load<uint32_t>(report, CompactLayout::kType);
    const uint32_t data_len = load<uint32_t>(report, CompactLayout::kDataLen);
    const auto *data = static_cast<const unsigned char *>(report) + CompactLayout::kData;
    if (level == kLevelRuntime && type == kTypeTaskTrack) {
        if (data_len != 0 && data_len < TrackLayout::kSize) {
            bump(counts_.bad_length);
            return 1;
        }
        TrackReport r;
        r.thread = load<uint32_t>(report, CompactLayout::kThreadId);
        r.time = load<uint64_t>(report, CompactLayout::kTimeStamp);
        r.device = load<uint16_t>(data, TrackLayout::kDevice);
        r.stream = load<uint16_t>(data, TrackLayout::kStream);
        r.task = load<uint32_t>(data, TrackLayout::kTaskInfo);
        // The task type is a type id registered at level 5000.
        const auto type_id = static_cast<uint32_t>(load<uint64_t>(data, TrackLayout::kTaskType));
        const uint64_t generation = types_.generation();
        TaskType &cached = t_task_type;
        if (cached.generation != generation || cached.id != type_id) {
            const char *name = types_.name(kLevelRuntime, type_id);
            cached = TaskType{generation, type_id, name, kernel_type(name)};
        }
        r.task_type = cached.name;
        r.kernel = cached.kernel;
        r.name = hashes_.name(load<uint64_t>(data, TrackLayout::kKernelName));
        sink_.on_track(r);
        return 0;
    }
    if (level == kLevelNode && type == kTypeHcclOpInfo) {
        if (data_len != 0 && data_len < HcclOpInfoLayout::kSize) {
            bump(counts_.bad_length);
            return 1;
        }
        HcclOpReport r;
        r.thread = load<uint32_t>(report, CompactLayout::kThreadId);
        r.data_type = data[HcclOpInfoLayout::kDataType];
        r.count = load<uint64_t>(data, HcclOpInfoLayout::kCount);
        r.alg_type = hashes_.name(load<uint64_t>(data, HcclOpInfoLayout::kAlgType));
        r.group = hashes_.name(load<uint64_t>(data, HcclOpInfoLayout::kGroupName));
        sink_.on_hccl_op(r);
        return 0;
    }
    bump(counts_.other_type);
    return 0;
}

int32_t ReportDecoder::device_state(const void *para, size_t length) {
    if (para == nullptr || length < DevParaLayout::kSize) {
        bump(counts_.bad_length);
        return 1;
    }
    DeviceStateReport r;
    r.chip = load<uint32_t>(para, DevParaLayout::kChipId);
    r.device = load<uint32_t>(para, DevParaLayout::kDevId);
    r.open = static_cast<const unsigned char *>(para)[DevParaLayout::kIsOpen] != 0;
    sink_.on_device_state(r);
    return 0;
}

int32_t ReportDecoder::reg_type_info(uint16_t level, uint32_t type, const char *name, size_t length) {
    if (name == nullptr) {
        bump(counts_.bad_length);
        return 1;
    }
    types_.add(level, type, name, length);
    return 0;
}

}  // namespace mspti::device
