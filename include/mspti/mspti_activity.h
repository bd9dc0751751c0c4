/**
 * @file mspti_activity.h
 * @brief The Activity API: record kinds, record layouts and the buffer functions.
 *
 * The client hands the library buffers through a request callback; the library
 * fills them with records back to back and hands them back through a complete
 * callback, where msptiActivityGetNextRecord() walks them.
 *
 * Record structs are packed and 8-aligned: members sit at the offsets msPTI
 * uses (a uint64_t may sit at offset 4) and every struct's size is a multiple
 * of 8, so a buffer that starts 8-aligned keeps every record 8-aligned.
 */
#ifndef MSPTI_ACTIVITY_H
#define MSPTI_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "mspti_result.h"

#if defined(__GNUC__) && defined(MSPTI_LIB)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Alignment of every activity record, in bytes. */
#define ACTIVITY_STRUCT_ALIGNMENT 8

#if defined(_WIN32)
#define START_PACKED_ALIGNMENT __pragma(pack(push, 1))
#define PACKED_ALIGNMENT __declspec(align(ACTIVITY_STRUCT_ALIGNMENT))
#define END_PACKED_ALIGNMENT __pragma(pack(pop))
#elif defined(__GNUC__)
#define START_PACKED_ALIGNMENT
#define PACKED_ALIGNMENT __attribute__((__packed__)) __attribute__((aligned(ACTIVITY_STRUCT_ALIGNMENT)))
#define END_PACKED_ALIGNMENT
#else
/** @brief Opens the block of packed record structs (compiler-specific). */
#define START_PACKED_ALIGNMENT
/** @brief Packs a record struct and aligns it to ACTIVITY_STRUCT_ALIGNMENT (compiler-specific). */
#define PACKED_ALIGNMENT
/** @brief Closes the block of packed record structs (compiler-specific). */
#define END_PACKED_ALIGNMENT
#endif

/** @brief Device id of a record that has none. */
#define MSPTI_INVALID_DEVICE_ID ((uint32_t)0xFFFFFFFFU)
/** @brief Stream id of a record that has none. */
#define MSPTI_INVALID_STREAM_ID ((uint32_t)0xFFFFFFFFU)
/** @brief Correlation id of a record that has none. */
#define MSPTI_INVALID_CORRELATION_ID ((uint64_t)0)

/** @brief The kind of an activity record; selects its struct. */
typedef enum {
    MSPTI_ACTIVITY_KIND_INVALID = 0,
    MSPTI_ACTIVITY_KIND_MARKER = 1,               /**< msptiActivityMarker: mstx marks and ranges. */
    MSPTI_ACTIVITY_KIND_KERNEL = 2,               /**< msptiActivityKernel: a kernel run on a device. */
    MSPTI_ACTIVITY_KIND_API = 3,                  /**< msptiActivityApi: an operator-level API call. */
    MSPTI_ACTIVITY_KIND_HCCL = 4,                 /**< msptiActivityHccl: an HCCL op with its bandwidth. */
    MSPTI_ACTIVITY_KIND_MEMORY = 5,               /**< msptiActivityMemory: device allocation or release. */
    MSPTI_ACTIVITY_KIND_MEMSET = 6,               /**< msptiActivityMemset */
    MSPTI_ACTIVITY_KIND_MEMCPY = 7,               /**< msptiActivityMemcpy */
    MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION = 8, /**< msptiActivityExternalCorrelation */
    MSPTI_ACTIVITY_KIND_COMMUNICATION = 9,        /**< msptiActivityCommunication: a collective on a device. */
    MSPTI_ACTIVITY_KIND_ACL_API = 10,             /**< msptiActivityApi: an ACL API call. */
    MSPTI_ACTIVITY_KIND_NODE_API = 11,            /**< msptiActivityApi: a graph-node API call. */
    MSPTI_ACTIVITY_KIND_RUNTIME_API = 12,         /**< msptiActivityApi: a runtime API call. */
    MSPTI_ACTIVITY_KIND_COUNT = 13,               /**< Number of kinds; not a kind. */
    MSPTI_ACTIVITY_KIND_FORCE_INT = 0x7fffffff
} msptiActivityKind;

/** @brief Where a record was observed. */
typedef enum {
    MSPTI_ACTIVITY_SOURCE_KIND_HOST = 0,   /**< On the host. */
    MSPTI_ACTIVITY_SOURCE_KIND_DEVICE = 1  /**< On a device stream. */
} msptiActivitySourceKind;

/** @brief Kinds of external correlation ids (one stack per thread and kind). */
typedef enum {
    MSPTI_EXTERNAL_CORRELATION_KIND_INVALID = 0,
    MSPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN = 1,
    MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 = 2,
    MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1 = 3,
    MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 = 4,
    MSPTI_EXTERNAL_CORRELATION_KIND_SIZE = 5,
    MSPTI_EXTERNAL_CORRELATION_KIND_FORCE_INT = 0x7fffffff
} msptiExternalCorrelationKind;

/** @brief Marker flags; exactly one is set on each marker record. */
typedef enum {
    MSPTI_ACTIVITY_FLAG_NONE = 0,
    MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS = 1 << 0,             /**< Host mark. */
    MSPTI_ACTIVITY_FLAG_MARKER_START = 1 << 1,                     /**< Host range start. */
    MSPTI_ACTIVITY_FLAG_MARKER_END = 1 << 2,                       /**< Host range end. */
    MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE = 1 << 3, /**< Mark on a stream (host and device records). */
    MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE = 1 << 4,         /**< Range start on a stream. */
    MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE = 1 << 5            /**< Range end on a stream. */
} msptiActivityFlag;

/** @brief Memory operation of a msptiActivityMemory record. */
typedef enum {
    MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION = 0,
    MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE = 1
} msptiActivityMemoryOperationType;

/** @brief Memory kind of a msptiActivityMemory record. */
typedef enum {
    MSPTI_ACTIVITY_MEMORY_UNKNOWN = 0,
    MSPTI_ACTIVITY_MEMORY_DEVICE = 1
} msptiActivityMemoryKind;

/** @brief Direction of a msptiActivityMemcpy record. */
typedef enum {
    MSPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN = 0,
    MSPTI_ACTIVITY_MEMCPY_KIND_HTOH = 1,
    MSPTI_ACTIVITY_MEMCPY_KIND_HTOD = 2,
    MSPTI_ACTIVITY_MEMCPY_KIND_DTOH = 3,
    MSPTI_ACTIVITY_MEMCPY_KIND_DTOD = 4,
    MSPTI_ACTIVITY_MEMCPY_KIND_DEFAULT = 5
} msptiActivityMemcpyKind;

/** @brief Data type of a msptiActivityCommunication record (value 13 is unused). */
typedef enum {
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
} msptiCommunicationDataType;

START_PACKED_ALIGNMENT

/* msptiObjectId is 8-aligned yet sits at offset 28 of msptiActivityMarker, as in msPTI. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpacked-not-aligned"
#endif

/** @brief Common header of every record: read `kind`, then cast to the kind's struct. */
typedef struct PACKED_ALIGNMENT {
    msptiActivityKind kind; /**< Kind of the record. */
} msptiActivity;

/** @brief Who a marker belongs to: a host process and thread, or a device stream. */
typedef union PACKED_ALIGNMENT {
    struct {
        uint32_t processId; /**< Process id (host records). */
        uint32_t threadId;  /**< Thread id (host records). */
    } pt;                   /**< Host records: process and thread. */
    struct {
        uint32_t deviceId;  /**< Device id (device records). */
        uint32_t streamId;  /**< Stream id (device records). */
    } ds;                   /**< Device records: device and stream. */
} msptiObjectId;

/** @brief MSPTI_ACTIVITY_KIND_MARKER: one half of a mark or range, host or device. */
typedef struct PACKED_ALIGNMENT {
    msptiActivityKind kind;             /**< MSPTI_ACTIVITY_KIND_MARKER */
    msptiActivityFlag flag;             /**< Mark, range start or range end, with or without device. */
    msptiActivitySourceKind sourceKind; /**< Host or device. */
    uint64_t timestamp;                 /**< Nanoseconds since the Unix epoch. */
    uint64_t id;                        /**< Marker id (range start and end share it); from 1. */
    msptiObjectId objectId;             /**< pt for host records, ds for device records. */
    const char *name;                   /**< Message; "" on end and device records. Lies in the record's buffer (past validSize): valid as long as the buffer. */
    const char *domain;                 /**< Domain name ("default" for the non-domain API); "" on end and device records. */
} msptiActivityMarker;

/** @brief MSPTI_ACTIVITY_KIND_API, ACL_API, NODE_API, RUNTIME_API: an API call on the host. */
typedef struct PACKED_ALIGNMENT {
    msptiActivityKind kind; /**< One of the four API kinds. */
    uint64_t start;         /**< Start, ns since the Unix epoch. */
    uint64_t end;           /**< End, ns since the Unix epoch. */
    struct {
        uint32_t processId; /**< Calling process. */
        uint32_t threadId;  /**< Calling thread. */
    } pt;                   /**< Caller. */
    uint64_t correlationId; /**< Joins the records this call caused. */
    const char *name;       /**< API name. */
} msptiActivityApi;

/** @brief MSPTI_ACTIVITY_KIND_KERNEL: a kernel executed on a device stream. */
typedef struct PACKED_ALIGNMENT {
    msptiActivityKind kind; /**< MSPTI_ACTIVITY_KIND_KERNEL */
    uint64_t start;         /**< Start on the device, ns since the Unix epoch. */
    uint64_t end;           /**< End on the device, ns since the Unix epoch. */
    struct {
        uint32_t deviceId;  /**< Device. */
        uint32_t streamId;  /**< Stream. */
    } ds;                   /**< Where it ran. */
    uint64_t correlationId; /**< Equals the correlationId of the API record that launched it. */
    const char *type;       /**< Kernel type, e.g. "KERNEL_AIVEC", "KERNEL_AICORE". */
    const char *name;       /**< Kernel name. */
} msptiActivityKernel;

/** @brief MSPTI_ACTIVITY_KIND_HCCL: an HCCL operation with its bandwidth. */
typedef struct PACKED_ALIGNMENT {
    msptiActivityKind kind; /**< MSPTI_ACTIVITY_KIND_HCCL */
    uint64_t start;         /**< Start on the device, ns since the Unix epoch. */
    uint64_t end;           /**< End on the device, ns since the Unix epoch. */
    struct {
        uint32_t deviceId;  /**< Device. */
        uint32_t streamId;  /**< Stream. */
    } ds;                   /**< Where it ran. */
    double bandWidth;       /**< Bytes moved per ns (GB/s, 1 GB = 1e9 B); 0 when unknown. */
    const char *name;       /**< HCCL function name, e.g. "HcclAllReduce". */
    const char *commName;   /**< Communicator name. */
} msptiActivityHccl;

/** @brief MSPTI_ACTIVITY_KIND_MEMORY: a device allocation or release (host-side timing). */
typedef struct PACKED_ALIGNMENT {
    msptiActivityKind kind;                              /**< MSPTI_ACTIVITY_KIND_MEMORY */
    msptiActivityMemoryOperationType memoryOperationType; /**< Allocation or release. */
    msptiActivityMemoryKind memoryKind;                  /**< Memory kind. */
    uint64_t correlationId;                              /**< Correlation id of the call. */
    uint64_t start;                                      /**< Call start, ns since the Unix epoch. */
    uint64_t end;                                        /**< Call end, ns since the Unix epoch. */
    uint64_t address;                                    /**< Device address. */
    uint64_t bytes;                                      /**< Size in bytes. */
    uint32_t processId;                                  /**< Process. */
    uint32_t deviceId;                                   /**< Device. */
    uint32_t streamId;                                   /**< Always MSPTI_INVALID_STREAM_ID. */
} msptiActivityMemory;

/** @brief MSPTI_ACTIVITY_KIND_MEMSET: a memset call (host-side timing). */
typedef struct PACKED_ALIGNMENT {
    msptiActivityKind kind; /**< MSPTI_ACTIVITY_KIND_MEMSET */
    uint32_t value;         /**< Byte value written. */
    uint64_t bytes;         /**< Bytes written. */
    uint64_t start;         /**< Call start, ns since the Unix epoch. */
    uint64_t end;           /**< Call end, ns since the Unix epoch. */
    uint32_t deviceId;      /**< Device. */
    uint32_t streamId;      /**< Stream, or MSPTI_INVALID_STREAM_ID when synchronous. */
    uint64_t correlationId; /**< Correlation id of the call. */
    uint8_t isAsync;        /**< 1 for the Async variant. */
} msptiActivityMemset;

/** @brief MSPTI_ACTIVITY_KIND_MEMCPY: a memcpy call (host-side timing). */
typedef struct PACKED_ALIGNMENT {
    msptiActivityKind kind;           /**< MSPTI_ACTIVITY_KIND_MEMCPY */
    msptiActivityMemcpyKind copyKind; /**< Direction. */
    uint64_t bytes;                   /**< Bytes copied. */
    uint64_t start;                   /**< Call start, ns since the Unix epoch. */
    uint64_t end;                     /**< Call end, ns since the Unix epoch. */
    uint32_t deviceId;                /**< Device. */
    uint32_t streamId;                /**< Stream, or MSPTI_INVALID_STREAM_ID when synchronous. */
    uint64_t correlationId;           /**< Correlation id of the call. */
    uint8_t isAsync;                  /**< 1 for the Async variant. */
} msptiActivityMemcpy;

/** @brief MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: ties a correlation id to the client's id. */
typedef struct PACKED_ALIGNMENT {
    msptiActivityKind kind;                    /**< MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION */
    msptiExternalCorrelationKind externalKind; /**< Kind of the external id. */
    uint64_t externalId;                       /**< Top of the calling thread's stack for that kind. */
    uint64_t correlationId;                    /**< The library's correlation id. */
} msptiActivityExternalCorrelation;

/** @brief MSPTI_ACTIVITY_KIND_COMMUNICATION: a collective as executed on a device. */
typedef struct PACKED_ALIGNMENT {
    msptiActivityKind kind;              /**< MSPTI_ACTIVITY_KIND_COMMUNICATION */
    msptiCommunicationDataType dataType; /**< Element type. */
    uint64_t count;                      /**< Element count. */
    struct {
        uint32_t deviceId;  /**< Device. */
        uint32_t streamId;  /**< Stream. */
    } ds;                   /**< Where it ran. */
    uint64_t start;          /**< Start on the device, ns since the Unix epoch. */
    uint64_t end;            /**< End on the device, ns since the Unix epoch. */
    const char *algType;     /**< Algorithm name. */
    const char *name;        /**< Operation name, e.g. "hcom_allReduce_". */
    const char *commName;    /**< Communicator (group) name. */
    uint64_t correlationId;  /**< Equals the correlationId of the API record of the launch. */
} msptiActivityCommunication;

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

END_PACKED_ALIGNMENT

/**
 * @brief Called when the library needs a buffer.
 * @param[out] buffer Set to the buffer (8-aligned), or NULL to decline: records are then dropped and counted.
 * @param[out] size Set to the buffer's size in bytes.
 * @param[out] maxNumRecords Set to 0 (accepted for compatibility; not used).
 */
typedef void (*msptiBuffersCallbackRequestFunc)(uint8_t **buffer, size_t *size, size_t *maxNumRecords);

/**
 * @brief Called when a buffer is handed back. The library no longer touches it afterwards.
 *
 * Runs on the library's worker thread or on a thread calling msptiActivityFlushAll(), with no
 * library lock held, so it may call any msPTI function. Buffers come back one at a time, in the
 * order they were filled (only buffers flushed from inside this callback bypass that order).
 * @param buffer The buffer as requested.
 * @param size Its size as the request callback reported it.
 * @param validSize Bytes of records in it (walk them with msptiActivityGetNextRecord()).
 */
typedef void (*msptiBuffersCallbackCompleteFunc)(uint8_t *buffer, size_t size, size_t validSize);

/**
 * @brief Registers the buffer request and complete callbacks (a later call replaces them).
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER if either is NULL.
 */
msptiResult msptiActivityRegisterCallbacks(msptiBuffersCallbackRequestFunc funcBufferRequested,
                                           msptiBuffersCallbackCompleteFunc funcBufferCompleted);

/**
 * @brief Starts collecting records of one kind.
 * @return MSPTI_SUCCESS; MSPTI_ERROR_INVALID_PARAMETER for a kind outside 1..12;
 *         MSPTI_ERROR_WITHOUT_LD_PRELOAD for HCCL, MEMORY, MEMSET and MEMCPY when
 *         libmspti.so is not interposing the runtime.
 */
msptiResult msptiActivityEnable(msptiActivityKind kind);

/**
 * @brief Stops collecting records of one kind. Records already collected are still delivered.
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for a kind outside 1..12.
 */
msptiResult msptiActivityDisable(msptiActivityKind kind);

/**
 * @brief Whether a kind is being collected.
 * @return true if enabled; false otherwise, and for any kind outside 1..12.
 */
bool msptiActivityIsEnabled(msptiActivityKind kind);

/**
 * @brief Re-enables marker collection for the domain with exactly this name ("default" for the non-domain API).
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER if name is NULL or 255 characters or longer.
 */
msptiResult msptiActivityEnableMarkerDomain(const char *name);

/**
 * @brief Stops marker collection for the domain with exactly this name, now and for domains created later.
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER if name is NULL or 255 characters or longer.
 */
msptiResult msptiActivityDisableMarkerDomain(const char *name);

/**
 * @brief Walks the records of a completed buffer.
 *
 * Pass `*record = NULL` for the first record; each call advances from `*record`.
 * @param buffer The buffer given to the complete callback.
 * @param validBufferSizeBytes The validSize given to the complete callback.
 * @param[in,out] record The previous record (NULL to start); set to the next one.
 * @return MSPTI_SUCCESS with `*record` set; MSPTI_ERROR_MAX_LIMIT_REACHED at the end;
 *         MSPTI_ERROR_INVALID_PARAMETER if buffer or record is NULL or `*record` lies outside
 *         the buffer; MSPTI_ERROR_INNER if the next record has an unknown kind.
 */
msptiResult msptiActivityGetNextRecord(uint8_t *buffer, size_t validBufferSizeBytes, msptiActivity **record);

/**
 * @brief Hands every record collected before this call to the complete callback, partly filled buffers included.
 *
 * Returns after the complete callbacks for those buffers have returned. From inside a complete
 * callback it hands back what it collected without waiting for other deliveries (which could
 * deadlock).
 * @param flag Reserved; ignored.
 * @return MSPTI_SUCCESS.
 */
msptiResult msptiActivityFlushAll(uint32_t flag);

/**
 * @brief Bounds how long a record may wait before it is handed to the complete callback.
 * @param time Period in milliseconds; 0 turns periodic flushing off.
 * @return MSPTI_SUCCESS.
 */
msptiResult msptiActivityFlushPeriod(uint32_t time);

/**
 * @brief Pushes an external correlation id on the calling thread's stack for `kind`.
 *
 * While the stack is not empty and MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION is enabled, every
 * correlation id this thread generates is tied to the top id by a msptiActivityExternalCorrelation record.
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for a kind outside UNKNOWN..CUSTOM2.
 */
msptiResult msptiActivityPushExternalCorrelationId(msptiExternalCorrelationKind kind, uint64_t id);

/**
 * @brief Pops the calling thread's stack for `kind`.
 * @param kind External correlation kind.
 * @param[out] lastId Receives the popped id; may be NULL to discard it.
 * @return MSPTI_SUCCESS; MSPTI_ERROR_QUEUE_EMPTY if nothing was pushed;
 *         MSPTI_ERROR_INVALID_PARAMETER for a kind outside UNKNOWN..CUSTOM2.
 */
msptiResult msptiActivityPopExternalCorrelationId(msptiExternalCorrelationKind kind, uint64_t *lastId);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__) && defined(MSPTI_LIB)
#pragma GCC visibility pop
#endif

#endif /* MSPTI_ACTIVITY_H */
