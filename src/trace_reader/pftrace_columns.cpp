// Decodes a .pftrace into columns (pftrace_columns.h). Its rules are those of the Python reader
// (python/mspti_trace/reader_pftrace.py), the oracle it is tested against field by field: interned
// names per packet sequence, cleared by SEQ_INCREMENTAL_STATE_CLEARED; BEGIN/END paired per track
// by timestamp; the read ends at a damaged packet and at the last whole one of a file cut short.
#include "pftrace_columns.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "proto.h"  // the field numbers the writer uses: one list for both directions

namespace {

namespace field = mspti_trace::proto::field;
// Fields readers take that our writer does not write (perfetto's TrackEvent, DebugAnnotation).
constexpr uint32_t kTeCategories = 22;
constexpr uint32_t kTeName = 23;
constexpr uint32_t kDaName = 10;

constexpr size_t kChunk = 8u << 20;  // bytes read at a time

// A damaged message: the read stops at the packet holding it.
struct Bad {
    std::string why;
};

const char *const kPastEnd = "a field runs past the end of its message";

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "varint() reads 8 bytes as one little-endian word");

// The 7-bit groups of the low n bytes of w (n <= 8, continuation bits ignored) as one number.
inline uint64_t join7(uint64_t x) {
    x = ((x & 0x7f007f007f007f00ULL) >> 1) | (x & 0x007f007f007f007fULL);
    x = ((x & 0x3fff00003fff0000ULL) >> 2) | (x & 0x00003fff00003fffULL);
    return ((x & 0x0fffffff00000000ULL) >> 4) | (x & 0x000000000fffffffULL);
}

// A varint. Where 10 bytes are left, a word at a time: the per-byte loop was 40% of the decode
// (a timestamp takes 9 bytes, a track uuid 7).
__attribute__((always_inline)) inline uint64_t varint(const uint8_t *&p, const uint8_t *end) {
    if (end - p >= 10) {
        const uint8_t b0 = p[0];
        if (b0 < 0x80) {
            ++p;
            return b0;
        }
        uint64_t w;
        std::memcpy(&w, p, 8);
        const uint64_t stops = ~w & 0x8080808080808080ULL;  // bytes without the continuation bit
        if (stops != 0) {
            const unsigned n = (static_cast<unsigned>(__builtin_ctzll(stops)) >> 3) + 1;  // 2..8 bytes
            p += n;
            return join7(n == 8 ? w : w & ((1ULL << (8 * n)) - 1));
        }
        uint64_t v = join7(w);  // 56 bits; then the 9th and 10th bytes
        const uint8_t b8 = p[8];
        v |= static_cast<uint64_t>(b8 & 0x7F) << 56;
        if (b8 < 0x80) {
            p += 9;
            return v;
        }
        const uint8_t b9 = p[9];
        v |= static_cast<uint64_t>(b9 & 0x7F) << 63;
        if (b9 < 0x80) {
            p += 10;
            return v;
        }
        throw Bad{"varint too long"};
    }
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (p >= end) throw Bad{kPastEnd};
        const uint8_t b = *p++;
        v |= static_cast<uint64_t>(b & 0x7F) << shift;
        if (b < 0x80) return v;
        if (shift >= 63) throw Bad{"varint too long"};
    }
}

// 1: read; 0: the data ends inside it; -1: longer than 10 bytes.
int try_varint(const uint8_t *&p, const uint8_t *end, uint64_t &v) {
    v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (p >= end) return 0;
        const uint8_t b = *p++;
        v |= static_cast<uint64_t>(b & 0x7F) << shift;
        if (b < 0x80) return 1;
        if (shift >= 63) return -1;
    }
}

// One field of a message: its number, wire type, and value (an integer, or a span of bytes).
struct Field {
    uint32_t num;
    uint32_t wt;
    uint64_t v;
    const uint8_t *data;
    size_t len;
};

// Reads the next field of [p, end); false at the end. A field past the end or of a wire type
// protobuf no longer uses throws Bad.
__attribute__((always_inline)) inline bool next_field(const uint8_t *&p, const uint8_t *end, Field &f) {
    if (p >= end) return false;
    const uint64_t key = varint(p, end);
    f.num = static_cast<uint32_t>(key >> 3);
    f.wt = static_cast<uint32_t>(key & 7);
    f.data = nullptr;
    f.len = 0;
    switch (f.wt) {
    case 0: f.v = varint(p, end); break;
    case 1:
        if (end - p < 8) throw Bad{kPastEnd};
        f.v = 0;
        for (int i = 7; i >= 0; --i) f.v = f.v << 8 | p[i];
        p += 8;
        break;
    case 5:
        if (end - p < 4) throw Bad{kPastEnd};
        f.v = static_cast<uint64_t>(p[0]) | static_cast<uint64_t>(p[1]) << 8 | static_cast<uint64_t>(p[2]) << 16 |
              static_cast<uint64_t>(p[3]) << 24;
        p += 4;
        break;
    case 2: {
        const uint64_t n = varint(p, end);
        if (n > static_cast<uint64_t>(end - p)) throw Bad{"length-delimited field runs past the end"};
        f.data = p;
        f.len = static_cast<size_t>(n);
        f.v = n;
        p += n;
        break;
    }
    default: throw Bad{"wire type " + std::to_string(f.wt) + " not supported"};
    }
    return true;
}

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

// The result handed out: the C struct first, so that its address is the Result's.
struct Result {
    MsptiPftColumns cols;
    Store *store;
};

class Decoder {
public:
    Decoder(Store &s, const char *const *cats, size_t n_cats, const char *const *names, size_t n_names) : s_(s) {
        for (size_t i = 0; i < n_cats; ++i) wanted_cats_.push_back(intern(cats[i], std::strlen(cats[i])));
        for (size_t i = 0; i < n_names; ++i) wanted_names_.push_back(intern(names[i], std::strlen(names[i])));
        unknown_name_ = intern("?", 1);
        no_cat_ = intern("", 0);
        key_bytes_ = intern("bytes", 5);
        key_bw_ = intern("bandwidth_gbps", 14);
        key_comm_ = intern("comm", 4);
    }

    // One TracePacket's payload; throws Bad when it is damaged.
    void packet(const uint8_t *p, const uint8_t *end) {
        bool has_ts = false;
        uint64_t ts = 0, seq = 0, flags = 0;
        const uint8_t *te = nullptr, *te_end = nullptr, *desc = nullptr, *desc_end = nullptr;
        interned_.clear();
        Field f;
        while (next_field(p, end, f)) {
            if (f.wt == 0) {
                if (f.num == field::kTimestamp) {
                    ts = f.v;
                    has_ts = true;
                } else if (f.num == field::kSequenceId) {
                    seq = f.v;
                } else if (f.num == field::kSequenceFlags) {
                    flags = f.v;
                }
            } else if (f.wt == 2) {
                if (f.num == field::kTrackEvent) {
                    te = f.data;
                    te_end = f.data + f.len;
                } else if (f.num == field::kInternedData) {
                    interned_.emplace_back(f.data, f.data + f.len);
                } else if (f.num == field::kTrackDescriptor) {
                    desc = f.data;
                    desc_end = f.data + f.len;
                }
            }
        }
        if (state_ == nullptr || seq != state_seq_ || (flags & mspti_trace::proto::kIncrementalStateCleared)) {
            auto it = states_.find(seq);
            if (it == states_.end() || (flags & mspti_trace::proto::kIncrementalStateCleared)) {
                it = states_.insert_or_assign(seq, SeqState{}).first;
            }
            state_ = &it->second;  // nodes of an unordered_map stay where they are
            state_seq_ = seq;
        }
        SeqState &st = *state_;
        for (auto [b, e] : interned_) interned(st, b, e);
        if (desc != nullptr) track(desc, desc_end);
        if (te == nullptr || !has_ts) return;  // no event, or one without its time
        event(st, ts, te, te_end);
    }

    // Room for the events of a file of that size (packets of the writer: about 40 bytes each).
    void expect(uint64_t file_size) { evs_.reserve(static_cast<size_t>(std::min<uint64_t>(file_size / 24, 1u << 28))); }

    // BEGIN/END paired per track (see pftrace_columns.h), straight into the slice columns. The
    // writer writes each track nearly in time order: a track whose events are in order is not sorted.
    void pair() {
        size_t n = 0;
        for (const auto &g : groups_) n += g.size() / 2;
        for (auto *v : {&s_.slice_start, &s_.slice_end, &s_.slice_arg_first, &s_.slice_bytes}) v->reserve(n);
        for (auto *v : {&s_.slice_group, &s_.slice_name, &s_.slice_cat, &s_.slice_arg_count, &s_.slice_comm}) {
            v->reserve(n);
        }
        s_.slice_bw.reserve(n);
        if (groups_.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) throw std::bad_alloc();
        s_.group_track.reserve(groups_.size());
        s_.group_has_track.reserve(groups_.size());
        for (const TrackKey &k : group_keys_) {
            s_.group_track.push_back(k.uuid);
            s_.group_has_track.push_back(k.has);
        }
        constexpr uint64_t kMaxTime = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        std::vector<uint32_t> stack;
        const auto by_time = [this](uint32_t a, uint32_t b) { return evs_[a].ts < evs_[b].ts; };
        for (size_t g = 0; g < groups_.size(); ++g) {
            std::vector<uint32_t> &idx = groups_[g];
            if (!std::is_sorted(idx.begin(), idx.end(), by_time)) std::stable_sort(idx.begin(), idx.end(), by_time);
            stack.clear();
            for (const uint32_t i : idx) {
                if (evs_[i].begin) {
                    stack.push_back(i);
                    continue;
                }
                if (stack.empty()) continue;
                const Ev &b = evs_[stack.back()];
                stack.pop_back();
                if (b.ts > kMaxTime || evs_[i].ts > kMaxTime) {
                    ++s_.n_bad_times;
                    continue;
                }
                s_.slice_start.push_back(static_cast<int64_t>(b.ts));
                s_.slice_end.push_back(static_cast<int64_t>(evs_[i].ts));
                s_.slice_group.push_back(static_cast<int32_t>(g));
                s_.slice_name.push_back(b.name < 0 ? unknown_name_ : b.name);
                s_.slice_cat.push_back(b.cat < 0 ? no_cat_ : b.cat);
                const int64_t first = b.args < 0 ? -1 : arg_ranges_[b.args].first;
                const int32_t count = b.args < 0 ? 0 : arg_ranges_[b.args].second;
                s_.slice_arg_first.push_back(first);
                s_.slice_arg_count.push_back(count);
                if (b.cat >= 0 && std::find(wanted_cats_.begin(), wanted_cats_.end(), b.cat) != wanted_cats_.end()) {
                    extras(first, count);
                } else {
                    s_.slice_bytes.push_back(0);
                    s_.slice_bw.push_back(std::numeric_limits<double>::quiet_NaN());
                    s_.slice_comm.push_back(MSPTI_PFT_COMM_NONE);
                }
            }
            std::vector<uint32_t>().swap(idx);
        }
        std::vector<Ev>().swap(evs_);
    }

private:
    int32_t intern(const void *data, size_t len) {
        std::string key(static_cast<const char *>(data), len);
        auto [it, added] = s_.string_ids.try_emplace(std::move(key), static_cast<int32_t>(s_.string_ids.size()));
        if (added) {
            s_.string_data.append(static_cast<const char *>(data), len);
            s_.string_offsets.push_back(s_.string_data.size());
        }
        return it->second;
    }

    bool empty_string(int32_t sid) const { return sid < 0 || s_.string_offsets[sid + 1] == s_.string_offsets[sid]; }

    static int32_t lookup(const IidMap &m, uint64_t iid) { return m.get(iid); }

    // InternedData: event categories (1), event names (2), annotation names (3), each {iid, name}.
    void interned(SeqState &st, const uint8_t *p, const uint8_t *end) {
        Field f, g;
        while (next_field(p, end, f)) {
            IidMap *table = f.num == field::kEventCategories        ? &st.cats
                            : f.num == field::kEventNames           ? &st.names
                            : f.num == field::kDebugAnnotationNames ? &st.anns
                                                                    : nullptr;
            if (table == nullptr) continue;
            if (f.wt != 2) throw Bad{"interned entry is not a message"};
            const uint8_t *q = f.data, *qend = f.data + f.len;
            bool has_iid = false;
            uint64_t iid = 0;
            int32_t name = -1;
            while (next_field(q, qend, g)) {
                if (g.num == field::kIid && g.wt != 2) {
                    iid = g.v;
                    has_iid = true;
                } else if (g.num == field::kInternedName) {
                    if (g.wt != 2) throw Bad{"interned name is not a string"};
                    name = intern(g.data, g.len);
                }
            }
            if (has_iid) table->set(iid, name);
        }
    }

    // TrackDescriptor: uuid, parent, name, and the process or thread descriptor's name.
    void track(const uint8_t *p, const uint8_t *end) {
        bool has_uuid = false, has_parent = false;
        uint64_t uuid = 0, parent = 0;
        int32_t kind = MSPTI_PFT_TRACK, name = -1;
        Field f, g;
        while (next_field(p, end, f)) {
            if (f.num == field::kTdUuid && f.wt != 2) {
                uuid = f.v;
                has_uuid = true;
            } else if (f.num == field::kTdParentUuid && f.wt != 2) {
                parent = f.v;
                has_parent = true;
            } else if (f.num == field::kTdName) {
                if (f.wt != 2) throw Bad{"track name is not a string"};
                name = intern(f.data, f.len);
            } else if (f.num == field::kTdProcess || f.num == field::kTdThread) {
                if (f.wt != 2) throw Bad{"process or thread descriptor is not a message"};
                const bool process = f.num == field::kTdProcess;
                kind = process ? MSPTI_PFT_PROCESS : MSPTI_PFT_THREAD;
                const uint32_t name_field = process ? field::kPdProcessName : field::kThThreadName;
                const uint8_t *q = f.data, *qend = f.data + f.len;
                while (next_field(q, qend, g)) {
                    if (g.num != name_field) continue;
                    if (g.wt != 2) throw Bad{"process or thread name is not a string"};
                    name = intern(g.data, g.len);
                }
            }
        }
        if (!has_uuid) return;
        auto [it, added] = s_.track_index.try_emplace(uuid, s_.track_uuid.size());
        if (added) {
            s_.track_uuid.push_back(uuid);
            s_.track_parent.push_back(0);
            s_.track_has_parent.push_back(0);
            s_.track_kind.push_back(0);
            s_.track_name.push_back(-1);
        }
        const size_t i = it->second;
        s_.track_parent[i] = parent;
        s_.track_has_parent[i] = has_parent;
        s_.track_kind[i] = kind;
        s_.track_name[i] = name;
    }

    void event(const SeqState &st, uint64_t ts, const uint8_t *p, const uint8_t *end) {
        int64_t type = -1;
        bool has_track = false, has_counter = false;
        uint64_t track = 0;
        int64_t counter = 0;
        int32_t name = -1, cat = -1;
        anns_.clear();
        Field f;
        while (next_field(p, end, f)) {
            if (f.wt == 0) {
                switch (f.num) {
                case field::kTeNameIid: name = lookup(st.names, f.v); break;
                case field::kTeCategoryIids:
                    if (empty_string(cat)) cat = lookup(st.cats, f.v);
                    break;
                case field::kTeType: type = static_cast<int64_t>(f.v); break;
                case field::kTeTrackUuid:
                    track = f.v;
                    has_track = true;
                    break;
                case field::kTeCounterValue:
                    counter = static_cast<int64_t>(f.v);
                    has_counter = true;
                    break;
                default: break;
                }
            } else if (f.wt == 2) {
                if (f.num == field::kTeDebugAnnotations) {
                    anns_.emplace_back(f.data, f.data + f.len);
                } else if (f.num == kTeName) {
                    name = intern(f.data, f.len);
                } else if (f.num == kTeCategories && empty_string(cat)) {
                    cat = intern(f.data, f.len);
                }
            }
        }
        const bool want = wanted(cat, name);
        switch (type) {
        case mspti_trace::proto::kSliceBegin:
        case mspti_trace::proto::kSliceEnd: {
            const TrackKey key{track, has_track};
            // The writer interleaves a few tracks (threads, streams): a small cache before the map.
            Recent &r = recent_[(track ^ (track >> 32) ^ has_track) & (kRecent - 1)];
            if (r.group == SIZE_MAX || !(r.key == key)) {
                auto [it, added] = group_index_.try_emplace(key, groups_.size());
                if (added) {
                    groups_.emplace_back();
                    group_keys_.push_back(key);
                }
                r = Recent{key, it->second};
            }
            const size_t group = r.group;
            if (evs_.size() >= UINT32_MAX) throw std::bad_alloc();  // indices are 32-bit
            Ev ev{ts, name, cat, -1, type == mspti_trace::proto::kSliceBegin};
            if (ev.begin && want) {
                int64_t first = 0;
                int32_t count = 0;
                args(st, first, count);
                ev.args = static_cast<int32_t>(arg_ranges_.size());
                arg_ranges_.emplace_back(first, count);
            }
            groups_[group].push_back(static_cast<uint32_t>(evs_.size()));
            evs_.push_back(ev);
            break;
        }
        case mspti_trace::proto::kInstant: {
            int64_t first = -1;
            int32_t count = 0;
            if (want) args(st, first, count);
            s_.instant_name.push_back(name);
            s_.instant_cat.push_back(cat);
            s_.instant_arg_first.push_back(first);
            s_.instant_arg_count.push_back(count);
            break;
        }
        case mspti_trace::proto::kCounter:
            s_.counter_ts.push_back(ts);
            s_.counter_track.push_back(track);
            s_.counter_has_track.push_back(has_track);
            s_.counter_value.push_back(counter);
            s_.counter_has_value.push_back(has_counter);
            break;
        default: break;
        }
    }

    bool wanted(int32_t cat, int32_t name) const {
        return (cat >= 0 && std::find(wanted_cats_.begin(), wanted_cats_.end(), cat) != wanted_cats_.end()) ||
               (name >= 0 && std::find(wanted_names_.begin(), wanted_names_.end(), name) != wanted_names_.end());
    }

    // The event's debug annotations into the args table. A damaged one ends the list (those
    // before it are kept) without ending the read: the analysis uses few of them.
    void args(const SeqState &st, int64_t &first, int32_t &count) {
        first = static_cast<int64_t>(s_.arg_key.size());
        count = 0;
        Field f;
        for (auto [p, end] : anns_) {
            int32_t key = -1, type = MSPTI_PFT_ARG_NONE, str = -1;
            bool named = false;
            uint64_t iv = 0;
            try {
                while (next_field(p, end, f)) {
                    switch (f.num) {
                    case field::kDaNameIid:
                        if (f.wt == 2) return;
                        key = lookup(st.anns, f.v);
                        named = key >= 0;
                        break;
                    case kDaName:
                        if (f.wt != 2) return;
                        key = intern(f.data, f.len);
                        named = true;
                        break;
                    case field::kDaUintValue:
                    case field::kDaIntValue:
                    case field::kDaDoubleValue:
                        if (f.wt == 2) return;
                        iv = f.v;
                        type = f.num == field::kDaUintValue  ? MSPTI_PFT_ARG_UINT
                               : f.num == field::kDaIntValue ? MSPTI_PFT_ARG_INT
                                                             : MSPTI_PFT_ARG_DOUBLE;
                        break;
                    case field::kDaStringValue:
                        if (f.wt != 2) return;
                        str = intern(f.data, f.len);
                        type = MSPTI_PFT_ARG_STRING;
                        break;
                    default: break;
                    }
                }
            } catch (const Bad &) {
                return;
            }
            if (!named) continue;
            double d = 0;
            std::memcpy(&d, &iv, sizeof d);
            s_.arg_key.push_back(key);
            s_.arg_type.push_back(type);
            s_.arg_int.push_back(static_cast<int64_t>(iv));
            s_.arg_double.push_back(d);
            s_.arg_str.push_back(str);
            ++count;
        }
    }

    // A collective's bytes, bandwidth and communicator from its args (pftrace_columns.h): the
    // rules of reader_common.extras() and num(), which read them from a dict (the last key wins).
    void extras(int64_t first, int32_t count) {
        int64_t at_bytes = -1, at_bw = -1, at_comm = -1;
        for (int64_t i = first; i >= 0 && i < first + count; ++i) {
            const int32_t k = s_.arg_key[i];
            if (k == key_bytes_) {
                at_bytes = i;
            } else if (k == key_bw_) {
                at_bw = i;
            } else if (k == key_comm_) {
                at_comm = i;
            }
        }
        int64_t nbytes = 0;
        if (at_bytes >= 0) {
            const int64_t v = s_.arg_int[at_bytes];
            switch (s_.arg_type[at_bytes]) {
            case MSPTI_PFT_ARG_UINT: nbytes = v >= 0 ? v : 0; break;  // past INT64_MAX: out of range
            case MSPTI_PFT_ARG_INT: nbytes = v; break;
            case MSPTI_PFT_ARG_DOUBLE: {
                const double t = std::trunc(s_.arg_double[at_bytes]);  // NaN and inf fail both tests
                if (t >= -9223372036854775808.0 && t < 9223372036854775808.0) nbytes = static_cast<int64_t>(t);
                break;
            }
            default: break;
            }
        }
        double bw = std::numeric_limits<double>::quiet_NaN();
        if (at_bw >= 0) {
            switch (s_.arg_type[at_bw]) {
            case MSPTI_PFT_ARG_UINT: bw = static_cast<double>(static_cast<uint64_t>(s_.arg_int[at_bw])); break;
            case MSPTI_PFT_ARG_INT: bw = static_cast<double>(s_.arg_int[at_bw]); break;
            case MSPTI_PFT_ARG_DOUBLE: bw = s_.arg_double[at_bw]; break;
            default: break;
            }
        }
        int32_t comm = MSPTI_PFT_COMM_FROM_ROW;
        if (at_comm >= 0) {
            const int32_t t = s_.arg_type[at_comm];
            comm = t == MSPTI_PFT_ARG_STRING ? s_.arg_str[at_comm]
                   : t == MSPTI_PFT_ARG_NONE ? MSPTI_PFT_COMM_FROM_ROW
                                             : MSPTI_PFT_COMM_NOT_STRING;
        }
        s_.slice_bytes.push_back(nbytes);
        s_.slice_bw.push_back(bw);
        s_.slice_comm.push_back(comm);
    }

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

// Reads the file in chunks, one whole packet at a time; stops at the end, at a packet cut short,
// or at a damaged one (recorded in the store).
void read_file(int fd, uint64_t file_size, Decoder &dec, Store &s, MsptiPftColumns &cols) {
    std::vector<uint8_t> buf(std::min<uint64_t>(kChunk, file_size) + 16);
    size_t len = 0, pos = 0;
    uint64_t base = 0;  // file offset of buf[0]
    bool eof = false;
    auto refill = [&](size_t need) {  // keeps buf[pos..len), reads until need bytes are there or EOF
        if (pos > 0) {
            std::memmove(buf.data(), buf.data() + pos, len - pos);
            len -= pos;
            base += pos;
            pos = 0;
        }
        if (buf.size() < need) buf.resize(need);
        while (!eof && len < buf.size()) {
            const ssize_t n = ::read(fd, buf.data() + len, buf.size() - len);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                if (n < 0) cols.io_errno = errno;
                eof = true;
                break;
            }
            len += static_cast<size_t>(n);
            if (len >= need) break;
        }
    };
    refill(0);
    while (true) {
        if (pos == len) {
            if (eof) return;
            refill(0);
            continue;
        }
        const uint8_t *p = buf.data() + pos, *end = buf.data() + len;
        uint64_t key = 0, n = 0;
        int r = try_varint(p, end, key);
        if (r > 0) r = try_varint(p, end, n);
        if (r < 0) {
            s.damage_why = "varint too long";
            cols.damage_offset = static_cast<int64_t>(base + pos);
            return;
        }
        if (r == 0) {  // the header runs past what is in the buffer
            if (eof) return;
            refill(len - pos + 32);
            continue;
        }
        if (key != (field::kTracePacket << 3 | 2)) {
            s.damage_why = "not a Trace.packet field (key " + std::to_string(key) + ")";
            cols.damage_offset = static_cast<int64_t>(base + pos);
            return;
        }
        const size_t head = static_cast<size_t>(p - (buf.data() + pos));
        if (n > file_size - (base + pos + head)) return;  // runs past the end of the file: cut short
        if (n > static_cast<uint64_t>(end - p)) {
            if (eof) return;
            refill(head + n);
            continue;
        }
        try {
            dec.packet(p, p + n);
        } catch (const Bad &b) {
            s.damage_why = b.why;
            cols.damage_offset = static_cast<int64_t>(base + pos);
            return;
        }
        pos += head + n;
    }
}

template <typename T>
const T *ptr(const std::vector<T> &v) {
    return v.empty() ? nullptr : v.data();
}

void publish(Store &s, MsptiPftColumns &c) {
    c.damage_why = s.damage_why.c_str();
    c.n_strings = s.string_offsets.size() - 1;
    c.string_data = s.string_data.data();
    c.string_offsets = s.string_offsets.data();
    c.n_tracks = s.track_uuid.size();
    c.track_uuid = ptr(s.track_uuid);
    c.track_parent = ptr(s.track_parent);
    c.track_has_parent = ptr(s.track_has_parent);
    c.track_kind = ptr(s.track_kind);
    c.track_name = ptr(s.track_name);
    c.n_groups = s.group_track.size();
    c.group_track = ptr(s.group_track);
    c.group_has_track = ptr(s.group_has_track);
    c.n_slices = s.slice_start.size();
    c.n_bad_times = s.n_bad_times;
    c.slice_start = ptr(s.slice_start);
    c.slice_end = ptr(s.slice_end);
    c.slice_group = ptr(s.slice_group);
    c.slice_name = ptr(s.slice_name);
    c.slice_cat = ptr(s.slice_cat);
    c.slice_arg_first = ptr(s.slice_arg_first);
    c.slice_arg_count = ptr(s.slice_arg_count);
    c.slice_bytes = ptr(s.slice_bytes);
    c.slice_bw = ptr(s.slice_bw);
    c.slice_comm = ptr(s.slice_comm);
    c.n_instants = s.instant_name.size();
    c.instant_name = ptr(s.instant_name);
    c.instant_cat = ptr(s.instant_cat);
    c.instant_arg_first = ptr(s.instant_arg_first);
    c.instant_arg_count = ptr(s.instant_arg_count);
    c.n_counters = s.counter_ts.size();
    c.counter_ts = ptr(s.counter_ts);
    c.counter_track = ptr(s.counter_track);
    c.counter_has_track = ptr(s.counter_has_track);
    c.counter_value = ptr(s.counter_value);
    c.counter_has_value = ptr(s.counter_has_value);
    c.n_args = s.arg_key.size();
    c.arg_key = ptr(s.arg_key);
    c.arg_type = ptr(s.arg_type);
    c.arg_int = ptr(s.arg_int);
    c.arg_double = ptr(s.arg_double);
    c.arg_str = ptr(s.arg_str);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) MsptiPftColumns *mspti_pft_read(const char *path,
                                                                                  const char *const *arg_cats,
                                                                                  size_t n_arg_cats,
                                                                                  const char *const *arg_names,
                                                                                  size_t n_arg_names) {
    Result *r = nullptr;
    try {
        r = new Result{};
        r->store = new Store;
        r->cols.damage_offset = -1;
        Decoder dec(*r->store, arg_cats, n_arg_cats, arg_names, n_arg_names);
        const int fd = path != nullptr ? ::open(path, O_RDONLY | O_CLOEXEC) : -1;
        if (fd < 0) {
            r->cols.io_errno = path != nullptr ? errno : EINVAL;
        } else {
            struct stat st {};
            if (::fstat(fd, &st) == 0) {
                r->cols.file_size = static_cast<uint64_t>(st.st_size);
                dec.expect(r->cols.file_size);
                read_file(fd, r->cols.file_size, dec, *r->store, r->cols);
            } else {
                r->cols.io_errno = errno;
            }
            ::close(fd);
        }
        dec.pair();
        publish(*r->store, r->cols);
        return &r->cols;
    } catch (const std::bad_alloc &) {
        if (r != nullptr) delete r->store;
        delete r;
        return nullptr;
    }
}

extern "C" __attribute__((visibility("default"))) void mspti_pft_free(MsptiPftColumns *columns) {
    if (columns == nullptr) return;
    Result *r = reinterpret_cast<Result *>(columns);  // cols is Result's first member
    delete r->store;
    delete r;
}

namespace {

// (a, b) -> group index: open addressing, linear probing, kept at most half full.
class PairIndex {
public:
    // The group of key, added as `next` when new (throws std::bad_alloc when memory runs out).
    int64_t find_or_add(uint64_t key, int64_t next, bool &added) {
        if ((used_ + 1) * 2 > slots_.size()) grow();
        size_t i = mix(key) & (slots_.size() - 1);
        while (slots_[i].group >= 0) {
            if (slots_[i].key == key) {
                added = false;
                return slots_[i].group;
            }
            i = (i + 1) & (slots_.size() - 1);
        }
        slots_[i] = Slot{key, next};
        ++used_;
        added = true;
        return next;
    }

private:
    struct Slot {
        uint64_t key;
        int64_t group;
    };
    static size_t mix(uint64_t k) {
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        return static_cast<size_t>(k);
    }
    void grow() {
        std::vector<Slot> old(std::max<size_t>(64, slots_.size() * 2), Slot{0, -1});
        old.swap(slots_);
        for (const Slot &s : old) {
            if (s.group < 0) continue;
            size_t i = mix(s.key) & (slots_.size() - 1);
            while (slots_[i].group >= 0) i = (i + 1) & (slots_.size() - 1);
            slots_[i] = s;
        }
    }
    std::vector<Slot> slots_;
    size_t used_ = 0;
};

}  // namespace

extern "C" __attribute__((visibility("default"))) int64_t mspti_pft_group(
    size_t n, const int32_t *a, const int32_t *b, const int64_t *start, const int64_t *end, const int64_t *bytes,
    const uint8_t *sel, int32_t *out_a, int32_t *out_b, int64_t *out_count, int64_t *out_total, int64_t *out_min,
    int64_t *out_max, int64_t *out_bytes) {
    try {
        PairIndex index;
        int64_t groups = 0;
        for (size_t i = 0; i < n; ++i) {
            if (sel != nullptr && sel[i] == 0) continue;
            const int32_t ka = a != nullptr ? a[i] : 0;
            const uint64_t key = static_cast<uint64_t>(static_cast<uint32_t>(ka)) << 32 | static_cast<uint32_t>(b[i]);
            // Unsigned arithmetic: wraps as numpy's int64 does, without undefined behaviour.
            const int64_t dur = static_cast<int64_t>(static_cast<uint64_t>(end[i]) - static_cast<uint64_t>(start[i]));
            const int64_t nb = bytes != nullptr ? bytes[i] : 0;
            bool added = false;
            const int64_t g = index.find_or_add(key, groups, added);
            if (added) {
                ++groups;
                out_a[g] = ka;
                out_b[g] = b[i];
                out_count[g] = 1;
                out_total[g] = dur;
                out_min[g] = out_max[g] = dur;
                out_bytes[g] = nb;
                continue;
            }
            ++out_count[g];
            out_total[g] = static_cast<int64_t>(static_cast<uint64_t>(out_total[g]) + static_cast<uint64_t>(dur));
            out_min[g] = std::min(out_min[g], dur);
            out_max[g] = std::max(out_max[g], dur);
            out_bytes[g] = static_cast<int64_t>(static_cast<uint64_t>(out_bytes[g]) + static_cast<uint64_t>(nb));
        }
        return groups;
    } catch (const std::bad_alloc &) {
        return -1;
    }
}

extern "C" __attribute__((visibility("default"))) int64_t mspti_pft_drop_twins(size_t n, const int32_t *cat,
                                                                               const int32_t *name,
                                                                               const int64_t *start, const int64_t *end,
                                                                               int32_t keep_cat, int32_t drop_cat,
                                                                               uint8_t *sel) {
    try {
        // The keep_cat rows, by (name, start, end): open addressing over row indices, half full at most.
        size_t kept = 0;
        for (size_t i = 0; i < n; ++i) kept += cat[i] == keep_cat;
        if (kept == 0) return 0;
        size_t size = 64;
        while (size < kept * 2) size *= 2;
        std::vector<int64_t> slots(size, -1);
        const auto hash = [&](size_t i) {
            uint64_t h = static_cast<uint64_t>(static_cast<uint32_t>(name[i])) * 0x9E3779B97F4A7C15ULL;
            h ^= static_cast<uint64_t>(start[i]) + 0x7F4A7C15ULL + (h << 6) + (h >> 2);
            h ^= static_cast<uint64_t>(end[i]) + 0x9E3779B9ULL + (h << 6) + (h >> 2);
            h ^= h >> 33;
            h *= 0xff51afd7ed558ccdULL;
            h ^= h >> 33;
            return static_cast<size_t>(h) & (size - 1);
        };
        const auto same = [&](size_t i, size_t j) {
            return name[i] == name[j] && start[i] == start[j] && end[i] == end[j];
        };
        for (size_t i = 0; i < n; ++i) {
            if (cat[i] != keep_cat) continue;
            size_t h = hash(i);
            while (slots[h] >= 0 && !same(static_cast<size_t>(slots[h]), i)) h = (h + 1) & (size - 1);
            if (slots[h] < 0) slots[h] = static_cast<int64_t>(i);
        }
        int64_t dropped = 0;
        for (size_t i = 0; i < n; ++i) {
            if (cat[i] != drop_cat || sel[i] == 0) continue;
            size_t h = hash(i);
            while (slots[h] >= 0) {
                if (same(static_cast<size_t>(slots[h]), i)) {
                    sel[i] = 0;
                    ++dropped;
                    break;
                }
                h = (h + 1) & (size - 1);
            }
        }
        return dropped;
    } catch (const std::bad_alloc &) {
        return -1;
    }
}

extern "C" __attribute__((visibility("default"))) int64_t mspti_pft_union(size_t n, const int64_t *start,
                                                                          const int64_t *end, const uint8_t *sel,
                                                                          int64_t *out_start, int64_t *out_end) {
    try {
        std::vector<std::pair<int64_t, int64_t>> iv;
        iv.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            if ((sel == nullptr || sel[i] != 0) && end[i] > start[i]) iv.emplace_back(start[i], end[i]);
        }
        const auto by_start = [](const auto &a, const auto &b) { return a.first < b.first; };
        if (!std::is_sorted(iv.begin(), iv.end(), by_start)) std::sort(iv.begin(), iv.end(), by_start);
        int64_t m = -1;
        for (const auto &[s, e] : iv) {
            if (m >= 0 && s <= out_end[m]) {  // touching or overlapping: one interval
                out_end[m] = std::max(out_end[m], e);
            } else {
                ++m;
                out_start[m] = s;
                out_end[m] = e;
            }
        }
        return m + 1;
    } catch (const std::bad_alloc &) {
        return -1;
    }
}
