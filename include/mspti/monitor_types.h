/**
 * @file monitor_types.h
 * @brief Value types of the C++ Monitor API: result and kind enums, and the records monitors deliver.
 *
 * The enums and records (mspti/monitor_records.h) are generated from the record schema
 * (schema/records.py); batches and counters are here. Enum values equal msPTI's. Records are
 * owned values (strings are copied), so they stay valid after the callback returns. Ids that do
 * not apply to a record are -1.
 */
#ifndef MSPTI_MONITOR_TYPES_H
#define MSPTI_MONITOR_TYPES_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mspti/monitor_records.h"

namespace mspti {

/**
 * @brief A block of records of one kind, as laid out by msPTI (packed structs, see mspti_activity.h).
 *
 * A read-only view valid only during the batch callback. String fields are pointers to
 * NUL-terminated strings: a marker's name (the mstx message) lies in the library's buffer beside
 * its record, so it is valid during the callback only; keep a RecordBatchCopy made during the
 * callback to read records and their strings later.
 */
struct RecordBatch {
    MsptiActivityKind kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_INVALID; /**< Kind of every record. */
    const void *data = nullptr; /**< First record. */
    size_t count = 0; /**< Number of records. */
    size_t stride = 0; /**< Bytes from one record to the next (the struct's size). */
    /** @brief Bytes covered by the batch. */
    size_t size_bytes() const { return count * stride; }
};

#ifndef SWIG  // C++ only: Python and Java copy batches their own way (numpy, RecordBatch.snapshot)
/**
 * @brief An owned copy of a RecordBatch: the records, and every string they point to, copied
 *        when it is made (during the batch callback). batch() views the copy, whose string fields
 *        point into it, so it stays valid for as long as the RecordBatchCopy lives.
 */
class RecordBatchCopy {
public:
    /** @brief Copies `batch` and its strings; call it during the batch callback. */
    explicit RecordBatchCopy(const RecordBatch &batch);
    /** @brief Copies `other`; the copy's string fields point into the copy. */
    RecordBatchCopy(const RecordBatchCopy &other);
    /** @brief Copies `other`; the copy's string fields point into the copy. */
    RecordBatchCopy &operator=(const RecordBatchCopy &other);
    /** @brief Moves: the records keep pointing into the storage they moved with. */
    RecordBatchCopy(RecordBatchCopy &&) noexcept = default;
    /** @brief Moves: the records keep pointing into the storage they moved with. */
    RecordBatchCopy &operator=(RecordBatchCopy &&) noexcept = default;

    /** @brief The copied records (with the original kind, count and stride). */
    const RecordBatch &batch() const { return view_; }

private:
    void repoint(const char *old_strings);
    // Vectors, not strings: a moved vector keeps its storage, so the records' pointers stay right.
    std::vector<char> records_;  // the records' bytes (operator new's alignment, enough for them)
    std::vector<char> strings_;  // every distinct string once, NUL-terminated
    RecordBatch view_;
};
#endif

/** @brief Counters of one monitor since it was created. */
struct MonitorStats {
    uint64_t delivered = 0; /**< Records handed to the callback (batch records included). */
    uint64_t callback_errors = 0; /**< Callback calls that raised an exception (reported, delivery went on). */
    uint64_t unpaired_dropped =
        0; /**< MstxMonitor: range halves evicted unpaired from its bounded open-range table (kept across restarts). */
    /**
     * Records collected for this monitor and never handed to it. The records of its kind that
     * libmspti dropped since the monitor was created (buffer declined or too small, staging full,
     * and the undelivered backlog of a stop() that reached its time bound
     * (Monitor::set_stop_timeout) or of the process exit, which monitors report to libmspti):
     * counted per kind, so monitors of one kind share them. Plus the records this monitor left
     * undelivered that another monitor of its kind did receive (libmspti counts those as
     * delivered). Each record counts once. With a libmspti.so that has no
     * msptiExtActivityGetNumDroppedRecords, only the monitor's own undelivered records.
     */
    uint64_t dropped = 0;
};

/**
 * @brief What libmspti read from the device's profiling channels since the process started
 *        (device_stats()). A device record that gave no activity record is counted here.
 */
struct DeviceStats {
    /** False where the libmspti.so in use has no msptiExtDeviceGetStats (msPTI's own): all counts 0. */
    bool available = false;
    uint64_t bytes = 0; /**< Bytes read from the channels and parsed. */
    uint64_t records = 0; /**< Whole device records decoded and handed on. */
    uint64_t skipped = 0; /**< Whole records of types libmspti does not read. */
    uint64_t malformed = 0; /**< Whole records whose fields contradict their type (no activity record). */
    uint64_t unmatched = 0; /**< Task begin or end records with no task track from the runtime (no activity record). */
    uint64_t read_errors = 0; /**< Failed polls or reads of a channel. */
    uint64_t short_flushes = 0; /**< Flushes that gave up waiting (1 s) for bytes the driver said it held. */
};

}  // namespace mspti

#endif  // MSPTI_MONITOR_TYPES_H
