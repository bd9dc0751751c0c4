// Decodes libprofapi's reports (the callbacks libmspti registers with MsprofRegisterProfileCallback)
// into host facts: API spans, task tracks (which kernel became which device task), HCCL op info and
// device states, with their names resolved through the hash-id and type tables. Reports whose length
// or magic is wrong are counted, never read. Called on the reporting application threads: no lock,
// no allocation (names come from report_names).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "device/report_names.h"

namespace mspti::device {

/// An API span (MsprofApi). `name`: the type's registered name (ACL, runtime), or the hash name of
/// the item (node launch, HCCL); nullptr when unknown. Times as the report carries them.
struct ApiReport {
    uint16_t level = 0;
    uint32_t type = 0;
    uint32_t thread = 0;
    uint64_t begin = 0;
    uint64_t end = 0;
    const char *name = nullptr;
};

/// A task track (compact 5000/802): `kernel` is true when the task type's name starts with "KERNEL".
struct TrackReport {
    uint32_t device = 0;
    uint32_t stream = 0;
    uint32_t task = 0;
    uint32_t thread = 0;
    uint64_t time = 0;
    const char *task_type = nullptr;
    const char *name = nullptr;
    bool kernel = false;
};

/// HCCL op info (compact 10000/10).
struct HcclOpReport {
    uint32_t thread = 0;
    uint32_t data_type = 0;
    uint64_t count = 0;
    const char *alg_type = nullptr;
    const char *group = nullptr;
};

/// A device opened or closed (ProfSetDevPara).
struct DeviceStateReport {
    uint32_t chip = 0;
    uint32_t device = 0;
    bool open = false;
};

class ReportSink {
public:
    virtual ~ReportSink() = default;
    virtual void on_api(const ApiReport &r) = 0;
    virtual void on_track(const TrackReport &r) = 0;
    virtual void on_hccl_op(const HcclOpReport &r) = 0;
    virtual void on_device_state(const DeviceStateReport &r) = 0;
};

// Reports not read, by reason. Reports read are not counted: a shared counter bumped on every launch
// thread's track report was a locked add on a contended line, and nothing read it.
struct ReportCounts {
    std::atomic<uint64_t> bad_length{0};
    std::atomic<uint64_t> bad_magic{0};
    std::atomic<uint64_t> other_type{0};  ///< well-formed reports of types not read here
};

class ReportDecoder {
public:
    explicit ReportDecoder(ReportSink &sink) : sink_(sink) {}

    // The callbacks' bodies; each returns 0, or non-zero for a report it could not read.
    int32_t api(const void *report, size_t length);
    int32_t compact(const void *report, size_t length);
    int32_t device_state(const void *para, size_t length);
    int32_t reg_type_info(uint16_t level, uint32_t type, const char *name, size_t length);
    uint64_t hash_id(const char *text, size_t length) { return hashes_.id(text, length); }

    HashNames &hashes() { return hashes_; }
    TypeNames &types() { return types_; }
    const ReportCounts &counts() const { return counts_; }

private:
    ReportSink &sink_;
    HashNames hashes_;
    TypeNames types_;
    ReportCounts counts_;
};

}  // namespace mspti::device
