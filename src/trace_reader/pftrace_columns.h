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

/** Special values of MsptiPftColumns::slice_comm (a string id otherwise). */
enum MsptiPftComm { MSPTI_PFT_COMM_NONE = -1, MSPTI_PFT_COMM_FROM_ROW = -2, MSPTI_PFT_COMM_NOT_STRING = -3 };

/**
 * What one .pftrace holds, as columns. Strings (names, categories, track names, annotation keys
 * and string values) are ids into one table: string i is string_data[string_offsets[i] ..
 * string_offsets[i + 1]), raw bytes (not checked as UTF-8). A string id of -1 means none.
 *
 * Slices are BEGIN/END pairs: per track, events sorted by timestamp (file order for equal ones),
 * an END closing the innermost open BEGIN; an END with nothing open and BEGINs left open are left
 * out, and so are pairs with a time past INT64_MAX (a damaged varint; counted in n_bad_times).
 * Slices are listed track by track (tracks in the order their first BEGIN or END came, the
 * "groups"), each in the order its END came. A slice's name and category are string ids always:
 * the id of "?" for a name never interned, of "" for no category. Annotations (args) are decoded
 * only for the events whose category or name the caller asked for; an event's args are
 * arg_first[i] .. + arg_count[i] in the args table.
 *
 * The slices of the asked-for categories (the collectives) also get bytes, bandwidth and
 * communicator from their args, as the Python reader's reader_common.extras() reads them: the
 * last arg of a key wins; "bytes" an integer (a double truncated; out of int64 range, a string or
 * none: 0), "bandwidth_gbps" a number (else NaN), "comm" a string id, or MSPTI_PFT_COMM_FROM_ROW
 * (no "comm" arg, or one without a value: the row's name after "comm ", if it is one) or
 * MSPTI_PFT_COMM_NOT_STRING (a number: the caller formats it). Other slices: 0, NaN, NONE.
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

    uint64_t n_groups; /**< the tracks the slices are on, in the order the slices list them */
    const uint64_t *group_track;
    const uint8_t *group_has_track; /**< 0: the events named no track */

    uint64_t n_slices;
    uint64_t n_bad_times; /**< pairs left out: a time past INT64_MAX */
    const int64_t *slice_start;
    const int64_t *slice_end;
    const int32_t *slice_group; /**< index into group_track */
    const int32_t *slice_name;
    const int32_t *slice_cat; /**< the first category */
    const int64_t *slice_arg_first;
    const int32_t *slice_arg_count;
    const int64_t *slice_bytes;
    const double *slice_bw; /**< NaN: none */
    const int32_t *slice_comm; /**< a string id or an MsptiPftComm */

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

/**
 * Durations grouped by a pair of keys: for each distinct (a[i], b[i]) over the rows i < n with
 * sel[i] != 0, its count, the sum, minimum and maximum of end[i] - start[i], and the sum of
 * bytes[i]. Groups come in the order of their first row. a, sel and bytes may be NULL (all 0,
 * all selected, all 0). Sums wrap as int64 arithmetic does in numpy. The out_ arrays must have
 * room for as many groups as rows are selected. Returns the number of groups, or -1 when memory
 * runs out.
 */
int64_t mspti_pft_group(size_t n, const int32_t *a, const int32_t *b, const int64_t *start, const int64_t *end,
                        const int64_t *bytes, const uint8_t *sel, int32_t *out_a, int32_t *out_b, int64_t *out_count,
                        int64_t *out_total, int64_t *out_min, int64_t *out_max, int64_t *out_bytes);

/**
 * The union of the intervals [start[i], end[i]) over the rows i < n with sel[i] != 0 (sel may be
 * NULL: all) and end[i] > start[i]: sorted, disjoint intervals (touching ones joined) written to
 * out_start/out_end, which must have room for as many as rows are selected. Returns how many, or
 * -1 when memory runs out.
 */
int64_t mspti_pft_union(size_t n, const int64_t *start, const int64_t *end, const uint8_t *sel, int64_t *out_start,
                        int64_t *out_end);

/**
 * Clears sel[i] for each row of category drop_cat that has a twin of category keep_cat: the same
 * name, start and end (msPTI reports an operator call as both an API and a NODE_API record).
 * Returns how many were cleared, or -1 when memory runs out (sel is then unchanged).
 */
int64_t mspti_pft_drop_twins(size_t n, const int32_t *cat, const int32_t *name, const int64_t *start,
                             const int64_t *end, int32_t keep_cat, int32_t drop_cat, uint8_t *sel);

#ifdef __cplusplus
}
#endif
