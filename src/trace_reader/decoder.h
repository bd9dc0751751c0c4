// The pftrace decoder's state: the packets' interned names per sequence, the tracks, the BEGIN/END
// events held for pairing, and the columns the result points into (Store). Its rules are those of
// the Python reader (python/mspti_trace/reader_pftrace.py), the oracle it is tested against field
// by field: interned names per packet sequence, cleared by SEQ_INCREMENTAL_STATE_CLEARED; BEGIN/END
// paired per track by timestamp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pftrace_columns.h"

namespace mspti_trace::reader {

// Interned id -> string id. The writer's iids are small and dense: a vector, a map past it.
class IidMap {
public:
    int32_t get(uint64_t iid) const {
        if (iid < dense_.size()) return dense_[iid];
        auto it = sparse_.find(iid);
        return it == sparse_.end() ? -1 : it->second;
    }
    void set(uint64_t iid, int32_t sid) {
        if (iid < kDense) {
            if (iid >= dense_.size()) dense_.resize(iid + 1, -1);
            dense_[iid] = sid;
        } else {
            sparse_[iid] = sid;
        }
    }

private:
    static constexpr uint64_t kDense = 1u << 16;
    std::vector<int32_t> dense_;
    std::unordered_map<uint64_t, int32_t> sparse_;
};

// Interned ids of one packet sequence.
struct SeqState {
    IidMap names, cats, anns;
};

struct Ev {  // a BEGIN or END, kept for pairing (24 bytes: the file's events are all held)
    uint64_t ts;
    int32_t name, cat;
    int32_t args;  // index into Decoder::arg_ranges_, -1 for none
    uint32_t begin;  // 1: BEGIN, 0: END
};

struct TrackKey {
    uint64_t uuid;
    bool has;
    bool operator==(const TrackKey &o) const { return uuid == o.uuid && has == o.has; }
};
struct TrackKeyHash {
    size_t operator()(const TrackKey &k) const { return std::hash<uint64_t>()(k.uuid) * 2 + k.has; }
};

// Everything the result points into.
struct Store {
    std::string string_data;
    std::vector<uint64_t> string_offsets{0};
    std::unordered_map<std::string, int32_t> string_ids;
    std::vector<uint64_t> track_uuid, track_parent;
    std::vector<uint8_t> track_has_parent;
    std::vector<int32_t> track_kind, track_name;
    std::unordered_map<uint64_t, size_t> track_index;
    std::vector<uint64_t> group_track;
    std::vector<uint8_t> group_has_track;
    std::vector<int64_t> slice_start, slice_end, slice_arg_first, slice_bytes;
    std::vector<int32_t> slice_group, slice_name, slice_cat, slice_arg_count, slice_comm;
    std::vector<double> slice_bw;
    uint64_t n_bad_times = 0;
    std::vector<int32_t> instant_name, instant_cat, instant_arg_count;
    std::vector<int64_t> instant_arg_first;
    std::vector<uint64_t> counter_ts, counter_track;
    std::vector<uint8_t> counter_has_track, counter_has_value;
    std::vector<int64_t> counter_value;
    std::vector<int32_t> arg_key, arg_type, arg_str;
    std::vector<int64_t> arg_int;
    std::vector<double> arg_double;
    std::string damage_why;
};

// What a track event says: its fields as the general walk or the writer's layout read them.
struct EventFields {
    uint64_t ts = 0;
    int64_t type = -1;
    uint64_t track = 0;
    int64_t counter = 0;
    int32_t name = -1, cat = -1;
    bool has_track = false, has_counter = false;
};

class Decoder {
public:
    Decoder(Store &s, const char *const *cats, size_t n_cats, const char *const *names, size_t n_names);

    // One TracePacket's payload; throws Bad when it is damaged (decode_packet.cpp).
    void packet(const uint8_t *p, const uint8_t *end);

    // Room for the events of a file of that size (packets of the writer: about 40 bytes each).
    void expect(uint64_t file_size) { evs_.reserve(static_cast<size_t>(std::min<uint64_t>(file_size / 24, 1u << 28))); }

    // BEGIN/END paired per track (see pftrace_columns.h), straight into the slice columns
    // (pair_slices.cpp).
    void pair();

private:
    int32_t intern(const void *data, size_t len);
    bool empty_string(int32_t sid) const { return sid < 0 || s_.string_offsets[sid + 1] == s_.string_offsets[sid]; }
    static int32_t lookup(const IidMap &m, uint64_t iid) { return m.get(iid); }
    void interned(SeqState &st, const uint8_t *p, const uint8_t *end);
    void track(const uint8_t *p, const uint8_t *end);
    void event(const SeqState &st, uint64_t ts, const uint8_t *p, const uint8_t *end);
    // The packet when it is laid out exactly as our writer lays out an event of the sequence
    // already current: decoded, and true; else false, with nothing changed (decode_writer_layout.cpp).
    bool writer_layout(const uint8_t *p, const uint8_t *end);
    // An event's fields into the columns or the events held for pairing; its annotations are in
    // anns_ where `want` (the category or name asked for).
    void record(const SeqState &st, const EventFields &e, bool want);
    bool wanted(int32_t cat, int32_t name) const {
        return (cat >= 0 && std::find(wanted_cats_.begin(), wanted_cats_.end(), cat) != wanted_cats_.end()) ||
               (name >= 0 && std::find(wanted_names_.begin(), wanted_names_.end(), name) != wanted_names_.end());
    }
    void args(const SeqState &st, int64_t &first, int32_t &count);
    void extras(int64_t first, int32_t count);

    Store &s_;
    std::vector<int32_t> wanted_cats_, wanted_names_;
    int32_t unknown_name_ = -1, no_cat_ = -1, key_bytes_ = -1, key_bw_ = -1, key_comm_ = -1;
    std::unordered_map<uint64_t, SeqState> states_;
    SeqState *state_ = nullptr;  // the last packet's sequence
    uint64_t state_seq_ = 0;
    std::unordered_map<TrackKey, size_t, TrackKeyHash> group_index_;
    std::vector<TrackKey> group_keys_;
    std::vector<std::vector<uint32_t>> groups_;  // per track: indices into evs_, file order
    std::vector<Ev> evs_;
    std::vector<std::pair<int64_t, int32_t>> arg_ranges_;  // (first, count) of the BEGINs with args
    struct Recent {
        TrackKey key{0, false};
        size_t group = SIZE_MAX;
    };
    static constexpr size_t kRecent = 16;
    Recent recent_[kRecent];
    std::vector<std::pair<const uint8_t *, const uint8_t *>> interned_, anns_;
};

}  // namespace mspti_trace::reader
