// The pftrace decoder behind `mspti-trace summary` and `analyze` (python/mspti_trace/reader_native.py):
// a C ABI for ctypes that reads a .pftrace in chunks and hands back columns, with BEGIN/END already
// paired per track the way Perfetto pairs them.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Track kinds in MsptiPftColumns::track_kind. */
enum MsptiPftTrackKind { MSPTI_PFT_TRACK = 0, MSPTI_PFT_PROCESS = 1, MSPTI_PFT_THREAD = 2 };

/** Debug annotation value types in MsptiPftColumns::arg_type. */
enum MsptiPftArgType {
    MSPTI_PFT_ARG_NONE = 0, /**< no value (or a bool, which the analysis does not use) */
    MSPTI_PFT_ARG_UINT = 1, /**< arg_int holds a uint64 */
    MSPTI_PFT_ARG_INT = 2, /**< arg_int holds an int64 */
    MSPTI_PFT_ARG_DOUBLE = 3, /**< arg_double */
    MSPTI_PFT_ARG_STRING = 4 /**< arg_str: a string id */
};

/**
 * What one .pftrace holds, as columns. Strings (names, categories, track names, annotation keys
 * and string values) are ids into one table: string i is string_data[string_offsets[i] ..
 * string_offsets[i + 1]), raw bytes (not checked as UTF-8). A string id of -1 means none.
 *
 * Slices are BEGIN/END pairs: per track, events sorted by timestamp (file order for equal ones),
 * an END closing the innermost open BEGIN; an END with nothing open and BEGINs left open are left
 * out. Slices are listed track by track (tracks in the order their first BEGIN or END came), each
 * in the order its END came. Annotations (args) are decoded only for the events whose category or
 * name the caller asked for; an event's args are arg_first[i] .. + arg_count[i] in the args table.
 *
 * A file cut short ends at its last whole packet, silently. A damaged packet ends the read:
 * damage_offset is where that packet starts and damage_why says why (else -1 and "").
 */
typedef struct MsptiPftColumns {
    uint64_t file_size;
    int64_t damage_offset;
    const char *damage_why;
    int32_t io_errno; /**< errno of a failed open or read (0: none); what was read before is kept */
    int32_t reserved;

    uint64_t n_strings;
    const char *string_data;
    const uint64_t *string_offsets; /**< n_strings + 1 entries */

    uint64_t n_tracks; /**< track descriptors, the last one per uuid */
    const uint64_t *track_uuid;
    const uint64_t *track_parent;
    const uint8_t *track_has_parent;
    const int32_t *track_kind; /**< MsptiPftTrackKind */
    const int32_t *track_name;

    uint64_t n_slices;
    const uint64_t *slice_start;
    const uint64_t *slice_end;
    const uint64_t *slice_track;
    const uint8_t *slice_has_track; /**< 0: the events named no track */
    const int32_t *slice_name;
    const int32_t *slice_cat; /**< the first category */
    const int64_t *slice_arg_first;
    const int32_t *slice_arg_count;

    uint64_t n_instants; /**< INSTANT events, file order */
    const int32_t *instant_name;
    const int32_t *instant_cat;
    const int64_t *instant_arg_first;
    const int32_t *instant_arg_count;

    uint64_t n_counters; /**< COUNTER events, file order */
    const uint64_t *counter_ts;
    const uint64_t *counter_track;
    const uint8_t *counter_has_track;
    const int64_t *counter_value;
    const uint8_t *counter_has_value;

    uint64_t n_args;
    const int32_t *arg_key;
    const int32_t *arg_type; /**< MsptiPftArgType */
    const int64_t *arg_int;
    const double *arg_double;
    const int32_t *arg_str;
} MsptiPftColumns;

/**
 * Reads the .pftrace at path. arg_cats / arg_names: the categories and event names (n of each)
 * whose events get their annotations decoded. Returns NULL only when memory runs out; free the
 * result with mspti_pft_free().
 */
MsptiPftColumns *mspti_pft_read(const char *path, const char *const *arg_cats, size_t n_arg_cats,
                                const char *const *arg_names, size_t n_arg_names);

/** Frees what mspti_pft_read() returned (NULL is ignored). */
void mspti_pft_free(MsptiPftColumns *columns);

#ifdef __cplusplus
}
#endif
