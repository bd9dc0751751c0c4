// The general protobuf field walk of a TracePacket: its interned names, track descriptor and
// track event, fields in any order, as the Python reader reads them.
#include <cstring>
#include <new>

#include "decoder.h"
#include "protobuf_read.h"
#include "proto.h"  // the field numbers the writer uses: one list for both directions

namespace mspti_trace::reader {

namespace field = mspti_trace::proto::field;
// Fields readers take that our writer does not write (perfetto's TrackEvent, DebugAnnotation).
constexpr uint32_t kTeCategories = 22;
constexpr uint32_t kTeName = 23;
constexpr uint32_t kDaName = 10;

Decoder::Decoder(Store &s, const char *const *cats, size_t n_cats, const char *const *names, size_t n_names) : s_(s) {
    for (size_t i = 0; i < n_cats; ++i) wanted_cats_.push_back(intern(cats[i], std::strlen(cats[i])));
    for (size_t i = 0; i < n_names; ++i) wanted_names_.push_back(intern(names[i], std::strlen(names[i])));
    unknown_name_ = intern("?", 1);
    no_cat_ = intern("", 0);
    key_bytes_ = intern("bytes", 5);
    key_bw_ = intern("bandwidth_gbps", 14);
    key_comm_ = intern("comm", 4);
}

void Decoder::packet(const uint8_t *p, const uint8_t *end) {
    if (writer_layout(p, end)) return;  // nearly every packet of our own writer
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

int32_t Decoder::intern(const void *data, size_t len) {
    std::string key(static_cast<const char *>(data), len);
    auto [it, added] = s_.string_ids.try_emplace(std::move(key), static_cast<int32_t>(s_.string_ids.size()));
    if (added) {
        s_.string_data.append(static_cast<const char *>(data), len);
        s_.string_offsets.push_back(s_.string_data.size());
    }
    return it->second;
}

// InternedData: event categories (1), event names (2), annotation names (3), each {iid, name}.
void Decoder::interned(SeqState &st, const uint8_t *p, const uint8_t *end) {
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
void Decoder::track(const uint8_t *p, const uint8_t *end) {
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

void Decoder::event(const SeqState &st, uint64_t ts, const uint8_t *p, const uint8_t *end) {
    EventFields e;
    e.ts = ts;
    anns_.clear();
    Field f;
    while (next_field(p, end, f)) {
        if (f.wt == 0) {
            switch (f.num) {
            case field::kTeNameIid: e.name = lookup(st.names, f.v); break;
            case field::kTeCategoryIids:
                if (empty_string(e.cat)) e.cat = lookup(st.cats, f.v);
                break;
            case field::kTeType: e.type = static_cast<int64_t>(f.v); break;
            case field::kTeTrackUuid:
                e.track = f.v;
                e.has_track = true;
                break;
            case field::kTeCounterValue:
                e.counter = static_cast<int64_t>(f.v);
                e.has_counter = true;
                break;
            default: break;
            }
        } else if (f.wt == 2) {
            if (f.num == field::kTeDebugAnnotations) {
                anns_.emplace_back(f.data, f.data + f.len);
            } else if (f.num == kTeName) {
                e.name = intern(f.data, f.len);
            } else if (f.num == kTeCategories && empty_string(e.cat)) {
                e.cat = intern(f.data, f.len);
            }
        }
    }
    record(st, e, wanted(e.cat, e.name));
}

void Decoder::record(const SeqState &st, const EventFields &e, bool want) {
    switch (e.type) {
    case mspti_trace::proto::kSliceBegin:
    case mspti_trace::proto::kSliceEnd: {
        const TrackKey key{e.track, e.has_track};
        // The writer interleaves a few tracks (threads, streams): a small cache before the map.
        Recent &r = recent_[(e.track ^ (e.track >> 32) ^ e.has_track) & (kRecent - 1)];
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
        Ev ev{e.ts, e.name, e.cat, -1, e.type == mspti_trace::proto::kSliceBegin};
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
        s_.instant_name.push_back(e.name);
        s_.instant_cat.push_back(e.cat);
        s_.instant_arg_first.push_back(first);
        s_.instant_arg_count.push_back(count);
        break;
    }
    case mspti_trace::proto::kCounter:
        s_.counter_ts.push_back(e.ts);
        s_.counter_track.push_back(e.track);
        s_.counter_has_track.push_back(e.has_track);
        s_.counter_value.push_back(e.counter);
        s_.counter_has_value.push_back(e.has_counter);
        break;
    default: break;
    }
}

// The event's debug annotations into the args table. A damaged one ends the list (those
// before it are kept) without ending the read: the analysis uses few of them.
void Decoder::args(const SeqState &st, int64_t &first, int32_t &count) {
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

}  // namespace mspti_trace::reader
