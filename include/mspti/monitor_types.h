/**
 * @file monitor_types.h
 * @brief Value types of the C++ Monitor API: result and kind enums, and the records monitors deliver.
 *
 * Enum values equal msPTI's. Records are owned values (strings are copied), so they stay valid
 * after the callback returns. Ids that do not apply to a record are -1.
 */
#ifndef MSPTI_MONITOR_TYPES_H
#define MSPTI_MONITOR_TYPES_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace mspti {

/** @brief Result of a Monitor call (values of msptiResult). */
enum class MsptiResult : int32_t {
    MSPTI_SUCCESS = 0,                                  /**< Success. */
    MSPTI_ERROR_INVALID_PARAMETER = 1,                  /**< Bad argument; nothing was changed. */
    MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 2, /**< Another subscriber holds the Callback API. */
    MSPTI_ERROR_MAX_LIMIT_REACHED = 3,                  /**< A limit was reached. */
    MSPTI_ERROR_DEVICE_OFFLINE = 4,                     /**< The device is not available. */
    MSPTI_ERROR_QUEUE_EMPTY = 5,                        /**< Nothing to pop. */
    MSPTI_ERROR_WITHOUT_LD_PRELOAD = 6,                 /**< Needs libmspti.so interposing the runtime (LD_PRELOAD). */
    MSPTI_ERROR_INNER = 999,                            /**< Internal error. */
    MSPTI_ERROR_FORCE_INT = 0x7fffffff                  /**< Forces 32 bits. */
};

/** @brief Activity kinds (values of msptiActivityKind). */
enum class MsptiActivityKind : int32_t {
    MSPTI_ACTIVITY_KIND_INVALID = 0,
    MSPTI_ACTIVITY_KIND_MARKER = 1,
    MSPTI_ACTIVITY_KIND_KERNEL = 2,
    MSPTI_ACTIVITY_KIND_API = 3,
    MSPTI_ACTIVITY_KIND_HCCL = 4,
    MSPTI_ACTIVITY_KIND_MEMORY = 5,
    MSPTI_ACTIVITY_KIND_MEMSET = 6,
    MSPTI_ACTIVITY_KIND_MEMCPY = 7,
    MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION = 8,
    MSPTI_ACTIVITY_KIND_COMMUNICATION = 9,
    MSPTI_ACTIVITY_KIND_ACL_API = 10,
    MSPTI_ACTIVITY_KIND_NODE_API = 11,
    MSPTI_ACTIVITY_KIND_RUNTIME_API = 12,
    MSPTI_ACTIVITY_KIND_COUNT = 13,
    MSPTI_ACTIVITY_KIND_FORCE_INT = 0x7fffffff
};

/** @brief Marker flags (values of msptiActivityFlag). */
enum class MsptiActivityFlag : int32_t {
    MSPTI_ACTIVITY_FLAG_NONE = 0,
    MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS = 1,
    MSPTI_ACTIVITY_FLAG_MARKER_START = 2,
    MSPTI_ACTIVITY_FLAG_MARKER_END = 4,
    MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE = 8,
    MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE = 16,
    MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE = 32
};

/** @brief Where a marker was observed (values of msptiActivitySourceKind). */
enum class MsptiActivitySourceKind : int32_t {
    MSPTI_ACTIVITY_SOURCE_KIND_HOST = 0,
    MSPTI_ACTIVITY_SOURCE_KIND_DEVICE = 1
};

/** @brief Element type of a collective (values of msptiCommunicationDataType; 13 is unused). */
enum class MsptiCommunicationDataType : int32_t {
    MSPTI_ACTIVITY_COMMUNICATION_INT8 = 0,
    MSPTI_ACTIVITY_COMMUNICATION_INT16 = 1,
    MSPTI_ACTIVITY_COMMUNICATION_INT32 = 2,
    MSPTI_ACTIVITY_COMMUNICATION_FP16 = 3,
    MSPTI_ACTIVITY_COMMUNICATION_FP32 = 4,
    MSPTI_ACTIVITY_COMMUNICATION_INT64 = 5,
    MSPTI_ACTIVITY_COMMUNICATION_UINT64 = 6,
    MSPTI_ACTIVITY_COMMUNICATION_UINT8 = 7,
    MSPTI_ACTIVITY_COMMUNICATION_UINT16 = 8,
    MSPTI_ACTIVITY_COMMUNICATION_UINT32 = 9,
    MSPTI_ACTIVITY_COMMUNICATION_FP64 = 10,
    MSPTI_ACTIVITY_COMMUNICATION_BFP16 = 11,
    MSPTI_ACTIVITY_COMMUNICATION_INT128 = 12,
    MSPTI_ACTIVITY_COMMUNICATION_HIF8 = 14,
    MSPTI_ACTIVITY_COMMUNICATION_FP8E4M3 = 15,
    MSPTI_ACTIVITY_COMMUNICATION_FP8E5M2 = 16,
    MSPTI_ACTIVITY_COMMUNICATION_FP8E8M0 = 17,
    MSPTI_ACTIVITY_COMMUNICATION_INVALID_TYPE = 0x0000FFFF
};

/** @brief Who a marker belongs to: host process and thread, or device and stream; -1 where not applicable. */
struct MsptiObjectId {
    int64_t process_id = -1; /**< Process id (host records), else -1. */
    int64_t thread_id = -1;  /**< Thread id (host records), else -1. */
    int64_t device_id = -1;  /**< Device id (device records), else -1. */
    int64_t stream_id = -1;  /**< Stream id (device records), else -1. */
    /** @brief Field-wise equality. */
    bool operator==(const MsptiObjectId &other) const = default;
};

/** @brief A kernel executed on a device (KERNEL record). */
struct KernelData {
    MsptiActivityKind kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_KERNEL; /**< Always KERNEL. */
    uint64_t start = 0;          /**< Start on the device, ns since the Unix epoch. */
    uint64_t end = 0;            /**< End on the device, ns since the Unix epoch. */
    int64_t device_id = -1;      /**< Device. */
    int64_t stream_id = -1;      /**< Stream. */
    uint64_t correlation_id = 0; /**< Joins the API call that launched it. */
    std::string type;            /**< Kernel type, e.g. "KERNEL_AIVEC". */
    std::string name;            /**< Kernel name. */
    /** @brief Field-wise equality. */
    bool operator==(const KernelData &other) const = default;
};

/** @brief An HCCL operation with its bandwidth (HCCL record). */
struct HcclData {
    MsptiActivityKind kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_HCCL; /**< Always HCCL. */
    uint64_t start = 0;     /**< Start on the device, ns since the Unix epoch. */
    uint64_t end = 0;       /**< End on the device, ns since the Unix epoch. */
    int64_t device_id = -1; /**< Device. */
    int64_t stream_id = -1; /**< Stream. */
    double bandwidth = 0;   /**< GB/s (1 GB = 1e9 bytes); 0 when unknown. */
    std::string name;       /**< Operation, e.g. "HcclAllReduce". */
    std::string comm_name;  /**< Communicator name. */
    /** @brief Field-wise equality. */
    bool operator==(const HcclData &other) const = default;
};

/** @brief A collective as executed on a device (COMMUNICATION record). */
struct CommunicationData {
    MsptiActivityKind kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_COMMUNICATION; /**< Always COMMUNICATION. */
    MsptiCommunicationDataType data_type = MsptiCommunicationDataType::MSPTI_ACTIVITY_COMMUNICATION_INVALID_TYPE; /**< Element type. */
    uint64_t count = 0;          /**< Element count. */
    int64_t device_id = -1;      /**< Device. */
    int64_t stream_id = -1;      /**< Stream. */
    uint64_t start = 0;          /**< Start on the device, ns since the Unix epoch. */
    uint64_t end = 0;            /**< End on the device, ns since the Unix epoch. */
    std::string alg_type;        /**< Algorithm. */
    std::string name;            /**< Operation, e.g. "hcom_allReduce_". */
    std::string comm_name;       /**< Communicator (group) name. */
    uint64_t correlation_id = 0; /**< Joins the API record of the launch. */
    /** @brief Field-wise equality. */
    bool operator==(const CommunicationData &other) const = default;
};

/** @brief One marker record: a mark, or one end of a range, on the host or a device. */
struct MarkerData {
    MsptiActivityKind kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_MARKER; /**< Always MARKER. */
    MsptiActivityFlag flag = MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS; /**< Which half, with or without device. */
    MsptiActivitySourceKind source_kind = MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_HOST; /**< Host or device. */
    uint64_t timestamp = 0; /**< ns since the Unix epoch. */
    uint64_t id = 0;        /**< Marker id; a range's start and end share it. */
    MsptiObjectId object_id; /**< Process/thread (host) or device/stream (device). */
    std::string name;       /**< Message ("" on end and device records). */
    std::string domain;     /**< Domain ("default" for the non-domain API; "" on end and device records). */
    /** @brief Field-wise equality. */
    bool operator==(const MarkerData &other) const = default;
};

/** @brief A range: its start and end records paired (host and device halves separately). */
struct RangeMarkerData {
    MsptiActivityKind kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_MARKER; /**< Always MARKER. */
    MsptiActivitySourceKind source_kind = MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_HOST; /**< Host or device half. */
    uint64_t id = 0;         /**< Range id. */
    MsptiObjectId object_id; /**< From the start record. */
    std::string name;        /**< From the start record. */
    std::string domain;      /**< From the start record. */
    uint64_t start = 0;      /**< Start timestamp, ns since the Unix epoch. */
    uint64_t end = 0;        /**< End timestamp, ns since the Unix epoch. */
    /** @brief Field-wise equality. */
    bool operator==(const RangeMarkerData &other) const = default;
};

/**
 * @brief A block of records of one kind, as laid out by msPTI (packed structs, see mspti_activity.h).
 *
 * A read-only view valid only during the batch callback. String fields are pointers to
 * NUL-terminated strings owned by the library: a marker's name (the mstx message) is valid during
 * the callback only (it is reclaimed once delivered); the other strings until the process exits.
 */
struct RecordBatch {
    MsptiActivityKind kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_INVALID; /**< Kind of every record. */
    const void *data = nullptr; /**< First record. */
    size_t count = 0;           /**< Number of records. */
    size_t stride = 0;          /**< Bytes from one record to the next (the struct's size). */
    /** @brief Bytes covered by the batch. */
    size_t size_bytes() const { return count * stride; }
};

/** @brief Counters of one monitor since it was created. */
struct MonitorStats {
    uint64_t delivered = 0;        /**< Records handed to the callback (batch records included). */
    uint64_t callback_errors = 0;  /**< Callback calls that raised an exception (reported, delivery went on). */
    uint64_t unpaired_dropped = 0; /**< MstxMonitor: range halves evicted unpaired from its bounded open-range table (kept across restarts). */
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

}  // namespace mspti

#endif  // MSPTI_MONITOR_TYPES_H
