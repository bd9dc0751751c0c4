/**
 * @file mspti_ext.h
 * @brief Extensions of this implementation beyond Ascend msPTI.
 *
 * Nothing here changes the meaning of an msPTI call. Programs that use these
 * functions need this library; everything in mspti.h stays portable.
 */
#ifndef MSPTI_EXT_H
#define MSPTI_EXT_H

#include <stddef.h>
#include <stdint.h>

#include "mspti_result.h"
#include "mspti_activity.h"

#if defined(__GNUC__) && defined(MSPTI_LIB)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Major version of this library. */
#define MSPTI_EXT_VERSION_MAJOR 0
/** @brief Minor version of this library. */
#define MSPTI_EXT_VERSION_MINOR 1
/** @brief Patch version of this library. */
#define MSPTI_EXT_VERSION_PATCH 0

/* msptiExtRecordSize(kind): generated from the record table (schema/records.py), installed
 * next to this header, so that a new kind needs no edit here. */
#include "mspti_ext_record_size.h"

/**
 * @brief Per-kind record counters.
 *
 * Once msptiActivityFlushAll() has returned and no thread is recording,
 * `produced == delivered + dropped` holds exactly.
 */
typedef struct {
    uint64_t produced;  /**< Records accepted while the kind was enabled. */
    /** Records copied into a client buffer. The buffer reaches the complete callback when it is
     *  full, at the next flush period, or at msptiActivityFlushAll(); so between flushes this may
     *  count records the client has not seen yet, and after FlushAll returns it counts exactly the
     *  records handed back. Records are never counted twice, nor a buffer handed back empty. */
    uint64_t delivered;
    uint64_t dropped;   /**< Records lost: buffer declined (NULL, size 0, not 8-byte aligned, smaller than a record), staging full, or the limit of buffers in flight reached. */
} msptiExtActivityStats;

/**
 * @brief Reads the counters of one kind, accumulated since the process started.
 * @param kind A kind in 1..12.
 * @param[out] stats Receives the counters.
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for a bad kind or NULL stats.
 */
msptiResult msptiExtActivityGetStats(msptiActivityKind kind, msptiExtActivityStats *stats);

/**
 * @brief Number of records of `kind` dropped since the process started (CUPTI's cuptiActivityGetNumDroppedRecords).
 * @param kind A kind in 1..12.
 * @param[out] dropped Receives the count.
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for a bad kind or NULL dropped.
 */
msptiResult msptiExtActivityGetNumDroppedRecords(msptiActivityKind kind, uint64_t *dropped);

/** @brief What happens to records when every client buffer allowed in flight is out. */
typedef enum {
    /** Records that find no buffer are dropped and counted (per kind, in `dropped`). The default. */
    MSPTI_EXT_BUFFER_LIMIT_DROP = 0,
    /** Lossless: a thread whose staging is full waits for a buffer to come back, at most the wait
     *  bound; past it the record is dropped (counted), and threads stop waiting until a buffer is
     *  handed back, so a complete callback that never returns cannot stall the program for long.
     *  Threads inside the request or complete callbacks never wait. */
    MSPTI_EXT_BUFFER_LIMIT_WAIT = 1
} msptiExtBufferLimitPolicy;

/**
 * @brief Limits the client buffers in flight: requested through the request callback and not yet
 *        handed back through the complete callback.
 *
 * This bounds the memory held by buffers however fast threads record and however slow the
 * complete callback is. The limit counts bytes (msptiExtActivitySetBufferBytesLimit, 256 MiB by
 * default, so that a client of 4 KB buffers gets the same room as one of 8 MB buffers) and, when
 * set here, buffers: whichever is reached first applies. A buffer being filled, buffers waiting
 * for delivery and the one in the complete callback all count. A flush (msptiActivityFlushAll)
 * never drops for the limit: it hands buffers back and asks for more. Buffers requested from
 * inside a complete callback (a nested flush) are not held to the limit.
 * The environment sets the values at load: MSPTI_MAX_BYTES_IN_FLIGHT (default 268435456),
 * MSPTI_MAX_BUFFERS_IN_FLIGHT (default 1048576: no count), MSPTI_BUFFER_LIMIT_POLICY (`drop`, the
 * default, or `wait`), MSPTI_BUFFER_WAIT_MS (default 1000).
 *
 * @param maxBuffersInFlight 1 .. 1048576 (1048576: the bytes alone decide).
 * @param policy MSPTI_EXT_BUFFER_LIMIT_DROP or MSPTI_EXT_BUFFER_LIMIT_WAIT.
 * @param waitMs Under MSPTI_EXT_BUFFER_LIMIT_WAIT, how long a thread waits for a buffer before
 *        dropping its record: 0 .. 3600000 ms. Ignored under DROP (but checked).
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for a value out of range (nothing changes).
 */
msptiResult msptiExtActivitySetBufferLimit(size_t maxBuffersInFlight, msptiExtBufferLimitPolicy policy,
                                           uint32_t waitMs);

/**
 * @brief Reads the limit set by msptiExtActivitySetBufferLimit() or the environment.
 * @param[out] maxBuffersInFlight Receives the limit (may be NULL).
 * @param[out] policy Receives the policy (may be NULL).
 * @param[out] waitMs Receives the wait bound in ms (may be NULL).
 * @return MSPTI_SUCCESS.
 */
msptiResult msptiExtActivityGetBufferLimit(size_t *maxBuffersInFlight, msptiExtBufferLimitPolicy *policy,
                                           uint32_t *waitMs);

/**
 * @brief Limits the bytes of client buffers in flight (see msptiExtActivitySetBufferLimit()).
 * A request may pass the limit by one buffer: its size is known once the client made it.
 * @param maxBytesInFlight 4096 .. 2^40 (default 256 MiB, or MSPTI_MAX_BYTES_IN_FLIGHT).
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for a value out of range (nothing changes).
 */
msptiResult msptiExtActivitySetBufferBytesLimit(size_t maxBytesInFlight);

/**
 * @brief Reads the byte limit set by msptiExtActivitySetBufferBytesLimit() or the environment.
 * @param[out] maxBytesInFlight Receives the limit.
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for NULL.
 */
msptiResult msptiExtActivityGetBufferBytesLimit(size_t *maxBytesInFlight);

/**
 * @brief Tells the library that the client discarded `count` records of `kind` it had been handed
 *        by the complete callback without processing them (for example a bounded shutdown that
 *        ran out of time). They are counted as dropped instead of delivered, so that
 *        `produced == delivered + dropped` still holds and the loss shows in
 *        msptiExtActivityGetNumDroppedRecords().
 * @param kind A kind in 1..12.
 * @param count Records discarded; at most the records of `kind` delivered so far are moved.
 * @return MSPTI_SUCCESS; MSPTI_ERROR_INVALID_PARAMETER for a bad kind, or when `count` exceeds the
 *         records delivered (then those are moved).
 */
msptiResult msptiExtActivityReportDiscarded(msptiActivityKind kind, uint64_t count);

/**
 * @brief Counters of the table that pairs mstx range ends with their starts.
 *
 * The table has a fixed size. A range is forgotten when it ends, whether or not MARKER (or its
 * domain) is enabled at that moment. A range that is never ended stays until room is needed near
 * its slot; then the oldest open range there is evicted and counted here, and its end, if it
 * still comes, produces no record. mstxRangeEnd() of 0, of an id never started, of a range
 * already ended or of an evicted range produces no record.
 */
typedef struct {
    uint64_t open;     /**< Ranges started and neither ended nor evicted. */
    uint64_t evicted;  /**< Open ranges evicted to make room, since the process started. */
    uint64_t capacity; /**< Open ranges the table can hold at most. */
} msptiExtRangeStats;

/**
 * @brief Reads the open-range counters (scans the table: not for hot paths).
 * @param[out] stats Receives the counters.
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for NULL stats.
 */
msptiResult msptiExtMarkerGetRangeStats(msptiExtRangeStats *stats);

/**
 * @brief Kept for clients written against it; no client needs it.
 *
 * Every string a delivered record points to stays valid, unchanged, for as long as the client
 * keeps the buffer that holds the record: kernel, API, HCCL and communication names and mstx
 * domain names live until the process exits, and the `name` of a MARKER record (the mstx
 * message) is copied into the record's own buffer, past its last record (beyond `validSize`),
 * so it goes with the buffer, whichever thread reads it and however late. A hold therefore
 * changes nothing; it is still checked, and ended by msptiExtActivityReleaseBuffer().
 *
 * @param buffer The buffer being handed back by the complete callback this thread is running.
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER if this thread is not running the
 *         complete callback of `buffer`.
 */
msptiResult msptiExtActivityHoldBuffer(uint8_t *buffer);

/**
 * @brief Ends a hold taken by msptiExtActivityHoldBuffer().
 * @param buffer A buffer held before (holds of the same address end in the order taken).
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER if `buffer` is not held.
 */
msptiResult msptiExtActivityReleaseBuffer(uint8_t *buffer);

/** @brief Counters of the reclaimable marker names (mstx messages). */
typedef struct {
    uint64_t live;      /**< Names cached by a recording thread (each thread caches at most 64). */
    uint64_t retired;   /**< Names no longer cached, kept until the staged records referring to them are copied to buffers. */
    uint64_t reclaimed; /**< Names freed since the process started. */
    uint64_t bytes;     /**< Memory of live and retired names, bookkeeping included. */
} msptiExtNameStats;

/**
 * @brief Reads the marker-name counters.
 * @param[out] stats Receives the counters.
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for NULL stats.
 */
msptiResult msptiExtMarkerGetNameStats(msptiExtNameStats *stats);

/**
 * @brief Counters of what libmspti read from the device's profiling channels (libascend_hal.so),
 * accumulated since the process started.
 *
 * A device record that yields no activity record is counted here: `unmatched` counts a task's
 * begin or end record whose task track (the runtime's report at its launch) never came or found no
 * room in libmspti's table (the latter is also counted as a dropped KERNEL or COMMUNICATION
 * record). All zero where no driver was found.
 */
typedef struct {
    uint64_t bytes;        /**< Bytes read from the channels and parsed. */
    uint64_t records;      /**< Whole records decoded and handed on. */
    uint64_t skipped;      /**< Whole records of types libmspti does not read. */
    uint64_t malformed;    /**< Whole records whose fields contradict their type (no activity record). */
    uint64_t unmatched;    /**< Task begin or end records with no task track (no activity record). */
    uint64_t readErrors;   /**< Failed polls or reads of a channel. */
    uint64_t shortFlushes; /**< Flushes that gave up waiting (1 s) for bytes the driver said it held. */
} msptiExtDeviceStats;

/**
 * @brief Reads the device-channel counters (takes the channel reader's lock: not for hot paths).
 * @param[out] stats Receives the counters.
 * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for NULL stats.
 */
msptiResult msptiExtDeviceGetStats(msptiExtDeviceStats *stats);

/**
 * @brief Reads this library's version.
 * @param[out] major Receives MSPTI_EXT_VERSION_MAJOR (may be NULL).
 * @param[out] minor Receives MSPTI_EXT_VERSION_MINOR (may be NULL).
 * @param[out] patch Receives MSPTI_EXT_VERSION_PATCH (may be NULL).
 * @return MSPTI_SUCCESS.
 */
msptiResult msptiExtGetVersion(uint32_t *major, uint32_t *minor, uint32_t *patch);

/** @brief The version as "major.minor.patch"; static storage. */
const char *msptiExtGetVersionString(void);

/** @brief The name of a result code, e.g. "MSPTI_ERROR_INVALID_PARAMETER"; "MSPTI_ERROR_UNKNOWN" for others. */
const char *msptiExtResultString(msptiResult result);

/**
 * @brief Why the calling thread's last failed msPTI call failed.
 *
 * Every function that returns an error sets a message saying what was wrong
 * (for example "msptiActivityEnable: kind 13 is not an activity kind (1..12)").
 * The text stays valid until the thread's next failing call. "" if none failed.
 * Set MSPTI_LOG_LEVEL=error (or warning, info) to also have messages printed to stderr.
 */
const char *msptiExtGetLastError(void);

/**
 * @brief Whether libmspti.so is interposing the device runtime (loaded by LD_PRELOAD or linked first).
 *
 * Decides MSPTI_ERROR_WITHOUT_LD_PRELOAD; checked by symbol resolution, not by reading the variable.
 */
bool msptiExtIsInterposing(void);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__) && defined(MSPTI_LIB)
#pragma GCC visibility pop
#endif

#endif /* MSPTI_EXT_H */
