#include "pftrace_sink.h"

#include <cerrno>
#include <cstring>

#include "loss.h"
#include "proto.h"

namespace mspti_trace {

namespace f = proto::field;

PftraceSink::~PftraceSink() { close(); }

bool PftraceSink::open(const std::string &path, std::string &error) { return file_.open(path, error); }

uint64_t PftraceSink::intern_slow(Interned &table, const char *s, uint32_t field, Source source) {
    Interned::Seen *seen = source != Source::kText ? &table.by_pointer[Interned::slot(s)] : nullptr;
    std::string_view text(s);
    uint64_t iid;
    auto it = table.ids.find(text);
    if (it != table.ids.end()) {
        iid = it->second;
    } else {
        uint64_t &next = &table == &names_ ? next_name_ : &table == &categories_ ? next_category_ : next_annotation_;
        iid = next++;
        table.storage.emplace_back(text);
        table.ids.emplace(table.storage.back(), iid);
        proto::Writer w(interned_);
        size_t m = w.begin(field);
        w.uint(f::kIid, iid);
        w.str(f::kInternedName, text);
        w.end(m);
    }
    if (seen != nullptr) *seen = Interned::Seen{s, iid, table.storage[iid - 1].c_str()};
    return iid;
}

size_t PftraceSink::begin_packet(uint64_t ts) {
    // The packet's key, its length byte (set by end()), timestamp, sequence id and flags at once.
    static_assert(f::kTracePacket < 16 && f::kTimestamp < 16 && f::kSequenceId < 16 && f::kSequenceFlags < 16);
    char *p = out_.room(2 + 11 + 11 + 2);
    *p++ = proto::key(f::kTracePacket, proto::kLength);
    size_t at = static_cast<size_t>(p - out_.data());
    *p++ = '\0';
    if (ts != 0) {
        *p++ = proto::key(f::kTimestamp, proto::kVarint);
        p = proto::put_varint(p, ts);
    }
    *p++ = proto::key(f::kSequenceId, proto::kVarint);
    p = proto::put_varint(p, pid_);
    *p++ = proto::key(f::kSequenceFlags, proto::kVarint);
    *p++ = static_cast<char>(first_ ? proto::kIncrementalStateCleared : proto::kNeedsIncrementalState);
    first_ = false;
    out_.commit(p);
    return at;
}

char *PftraceSink::packet_head(char *p, uint64_t ts, char **length) {
    static_assert(f::kTracePacket < 16 && f::kTimestamp < 16 && f::kSequenceId < 16 && f::kSequenceFlags < 16);
    *p++ = proto::key(f::kTracePacket, proto::kLength);
    *length = p++;
    if (ts != 0) {
        *p++ = proto::key(f::kTimestamp, proto::kVarint);
        p = proto::put_varint(p, ts);
    }
    if (tail_size_ == 0) {
        char *t = tail_;
        *t++ = proto::key(f::kSequenceId, proto::kVarint);
        t = proto::put_varint(t, pid_);
        *t++ = proto::key(f::kSequenceFlags, proto::kVarint);
        *t++ = static_cast<char>(proto::kNeedsIncrementalState);
        tail_size_ = static_cast<size_t>(t - tail_);
    }
    std::memcpy(p, tail_, sizeof tail_);  // the room reserved covers the whole array
    p += tail_size_;
    if (first_) p[-1] = static_cast<char>(proto::kIncrementalStateCleared);
    return p;
}

namespace {

// Sets the one length byte reserved at `at` for what follows it up to `end`; false if it needs more.
bool close_short(char *at, const char *end) {
    size_t len = static_cast<size_t>(end - at - 1);
    *at = static_cast<char>(len);
    return len < 0x80;
}

}  // namespace

bool PftraceSink::event_fast(const Slice &s, uint64_t type, const Arg *args, size_t nargs, uint64_t name,
                             uint64_t category) {
    static_assert(f::kTrackEvent < 16 && f::kTeType < 16 && f::kTeTrackUuid < 16 && f::kTeNameIid < 16 &&
                  f::kTeCategoryIids < 16 && f::kTeDebugAnnotations < 16 && f::kDaNameIid < 16 &&
                  f::kDaStringValue < 16);
    if (!interned_.empty() || nargs > Slice::kMaxArgs) return false;
    size_t lengths[Slice::kMaxArgs];
    size_t need = 16 + 11 * 6 + 10 * size_t{s.nflows};  // keys, varints and the flow ids
    for (size_t i = 0; i < nargs; ++i) {
        lengths[i] = args[i].type == Arg::kString ? std::strlen(args[i].s) : 0;
        if (lengths[i] >= 0x80) return false;
        need += 4 + 11 + 11 + lengths[i];
    }
    char *p = out_.room(need);
    char *packet = nullptr;
    p = packet_head(p, s.start, &packet);
    *p++ = proto::key(f::kTrackEvent, proto::kLength);
    char *te = p++;
    *p++ = proto::key(f::kTeType, proto::kVarint);
    p = proto::put_varint(p, type);
    *p++ = proto::key(f::kTeTrackUuid, proto::kVarint);
    p = proto::put_varint(p, uuid(s.track));
    *p++ = proto::key(f::kTeNameIid, proto::kVarint);
    p = proto::put_varint(p, name);
    *p++ = proto::key(f::kTeCategoryIids, proto::kVarint);
    p = proto::put_varint(p, category);
    for (size_t i = 0; i < nargs; ++i) {
        const Arg &a = args[i];
        *p++ = proto::key(f::kTeDebugAnnotations, proto::kLength);
        char *da = p++;
        *p++ = proto::key(f::kDaNameIid, proto::kVarint);
        p = proto::put_varint(p, arg_ids_[i]);
        switch (a.type) {
        case Arg::kUint:
            *p++ = proto::key(f::kDaUintValue, proto::kVarint);
            p = proto::put_varint(p, a.u);
            break;
        case Arg::kInt:
            *p++ = proto::key(f::kDaIntValue, proto::kVarint);
            p = proto::put_varint(p, static_cast<uint64_t>(a.i));
            break;
        case Arg::kDouble:
            *p++ = proto::key(f::kDaDoubleValue, proto::kFixed64);
            std::memcpy(p, &a.d, 8);
            p += 8;
            break;
        case Arg::kString:
            *p++ = proto::key(f::kDaStringValue, proto::kLength);
            *p++ = static_cast<char>(lengths[i]);
            std::memcpy(p, a.s, lengths[i]);
            p += lengths[i];
            break;
        }
        if (!close_short(da, p)) return false;
    }
    for (uint32_t i = 0; i < s.nflows; ++i) {
        p = proto::put_varint(p, (static_cast<uint64_t>(f::kTeFlowIds) << 3) | proto::kFixed64);
        uint64_t id = s.flow + i;
        std::memcpy(p, &id, 8);  // little-endian hosts only, as proto::Writer
        p += 8;
    }
    if (!close_short(te, p) || !close_short(packet, p)) return false;
    first_ = false;
    out_.commit(p);
    return true;
}

void PftraceSink::track(const Track &t) {
    tracks_.push_back(t);
    encode_track(t);
}

void PftraceSink::encode_track(const Track &t) {
    proto::Writer w(out_);
    size_t p = begin_packet(0);
    size_t d = w.begin(f::kTrackDescriptor);
    w.uint(f::kTdUuid, uuid(t.index));
    if (t.parent != 0) w.uint(f::kTdParentUuid, uuid(t.parent));
    switch (t.kind) {
    case Track::kProcess: {
        size_t pd = w.begin(f::kTdProcess);
        w.uint(f::kPdPid, t.pid);
        w.str(f::kPdProcessName, t.name);
        w.end(pd);
        break;
    }
    case Track::kThread: {
        size_t th = w.begin(f::kTdThread);
        w.uint(f::kThPid, t.pid);
        w.uint(f::kThTid, t.tid);
        w.str(f::kThThreadName, t.name);
        w.end(th);
        break;
    }
    case Track::kCounter: {
        w.str(f::kTdName, t.name);
        size_t c = w.begin(f::kTdCounter);
        if (t.bytes) w.uint(f::kCdUnit, 3);  // UNIT_SIZE_BYTES
        w.end(c);
        break;
    }
    default: w.str(f::kTdName, t.name); break;
    }
    w.end(d);
    w.end(p);
}

// Interned entries go in the packet that first uses them, ahead of its track_event.
void PftraceSink::event(const Slice &s, uint64_t type, const Arg *args, size_t nargs, bool stable_names) {
    interned_.clear();
    uint64_t name = intern(names_, s.name, f::kEventNames, Source::kPointer);
    uint64_t category = intern(categories_, s.category, f::kEventCategories, Source::kLiteral);
    arg_ids_.resize(nargs);
    Source arg_source = stable_names ? Source::kLiteral : Source::kText;
    for (size_t i = 0; i < nargs; ++i)
        arg_ids_[i] = intern(annotations_, args[i].name, f::kDebugAnnotationNames, arg_source);
    if (event_fast(s, type, args, nargs, name, category)) return;
    proto::Writer w(out_);
    size_t p = begin_packet(s.start);
    if (!interned_.empty()) {
        w.bytes(f::kInternedData, interned_.data(), interned_.size());
    }
    size_t e = w.begin(f::kTrackEvent);
    w.uint(f::kTeType, type);
    w.uint(f::kTeTrackUuid, uuid(s.track));
    w.uint(f::kTeNameIid, name);
    w.uint(f::kTeCategoryIids, category);
    for (size_t i = 0; i < nargs; ++i) {
        const Arg &a = args[i];
        size_t d = w.begin(f::kTeDebugAnnotations);
        w.uint(f::kDaNameIid, arg_ids_[i]);
        switch (a.type) {
        case Arg::kUint: w.uint(f::kDaUintValue, a.u); break;
        case Arg::kInt: w.sint(f::kDaIntValue, a.i); break;
        case Arg::kDouble: w.dbl(f::kDaDoubleValue, a.d); break;
        case Arg::kString: w.str(f::kDaStringValue, a.s); break;
        }
        w.end(d);
    }
    for (uint32_t i = 0; i < s.nflows; ++i) w.fixed64(f::kTeFlowIds, s.flow + i);
    w.end(e);
    w.end(p);
}

void PftraceSink::begin(const Slice &s) {
    progressed();
    event(s, proto::kSliceBegin, s.args, s.nargs, true);
}

void PftraceSink::instant(const Slice &s) {
    progressed();
    event(s, proto::kInstant, s.args, s.nargs, true);
}

// END and counter packets are under 128 bytes: written in one pass.
void PftraceSink::end(uint32_t track, uint64_t ts) {
    char *packet = nullptr;
    char *p = packet_head(out_.room(64), ts, &packet);
    *p++ = proto::key(f::kTrackEvent, proto::kLength);
    char *te = p++;
    *p++ = proto::key(f::kTeType, proto::kVarint);
    *p++ = static_cast<char>(proto::kSliceEnd);
    *p++ = proto::key(f::kTeTrackUuid, proto::kVarint);
    p = proto::put_varint(p, uuid(track));
    close_short(te, p);
    close_short(packet, p);
    first_ = false;
    out_.commit(p);
}

void PftraceSink::counter(uint32_t track, const char *, uint64_t ts, int64_t value) {
    char *packet = nullptr;
    char *p = packet_head(out_.room(80), ts, &packet);
    *p++ = proto::key(f::kTrackEvent, proto::kLength);
    char *te = p++;
    *p++ = proto::key(f::kTeType, proto::kVarint);
    *p++ = static_cast<char>(proto::kCounter);
    *p++ = proto::key(f::kTeTrackUuid, proto::kVarint);
    p = proto::put_varint(p, uuid(track));
    p = proto::put_varint(p, (static_cast<uint64_t>(f::kTeCounterValue) << 3) | proto::kVarint);
    p = proto::put_varint(p, static_cast<uint64_t>(value));
    close_short(te, p);
    close_short(packet, p);
    first_ = false;
    out_.commit(p);
}

void PftraceSink::stats(const Stats &st, uint64_t ts, bool final) {
    if (!final) return;  // the dropped-records counter carries the running total
    final_stats_ = st;
    final_ts_ = ts;
    have_final_ = true;
    encode_stats(st, ts);
}

void PftraceSink::encode_stats(const Stats &st, uint64_t ts) {
    std::vector<std::string> keys;
    std::vector<Arg> args;
    auto add = [&](std::string key, uint64_t v) {
        keys.push_back(std::move(key));
        Arg a{};
        a.type = Arg::kUint;
        a.u = v;
        args.push_back(a);
    };
    add("filtered", st.filtered);
    add("unmatched_ranges", st.unmatched_ranges);
    if (st.lost != 0) add("lost_to_write_failures", st.lost);
    if (!st.per_kind) add("per_kind_stats_unavailable", 1);
    for (int k = 1; st.per_kind && k < MSPTI_ACTIVITY_KIND_COUNT; ++k) {
        const char *kn = kind_name(static_cast<msptiActivityKind>(k));
        if (!traced_kind(k)) continue;
        add(std::string("dropped.") + kn, st.kinds[k].dropped);
        add(std::string("produced.") + kn, st.kinds[k].produced);
        add(std::string("delivered.") + kn, st.kinds[k].delivered);
    }
    for (size_t i = 0; i < args.size(); ++i) args[i].name = keys[i].c_str();
    Slice s{};
    s.start = s.end = ts;
    s.name = "mspti-trace stats";
    s.category = "mspti-trace";
    s.track = 1;
    event(s, proto::kInstant, args.data(), args.size(), false);
}

void PftraceSink::restart_sequence(bool all_tracks) {
    out_.clear();
    names_ = Interned();
    categories_ = Interned();
    annotations_ = Interned();
    next_name_ = next_category_ = next_annotation_ = 1;
    first_ = true;
    for (const Track &t : tracks_) {
        encode_track(t);
        if (!all_tracks) break;  // the process track: what the stats need
    }
}

void PftraceSink::flush() {
    if (!file_.is_open()) {
        out_.clear();
        return;
    }
    if (out_.empty()) return;
    if (file_.append(out_.data(), out_.size())) {
        out_.clear();
        return;
    }
    // The window is left out whole: the file ends on the last one written.
    window_lost_ = true;
    final_lost_ = have_final_;
    report_write_failure(file_.path(), std::strerror(file_.error()));
    restart_sequence(true);
}

void PftraceSink::close() {
    if (!file_.is_open()) return;
    if (final_lost_) {
        // The last window, stats included, could not be written: the stats alone, counting that
        // window's records as lost, go into the space held back.
        restart_sequence(false);
        encode_stats(with_window_lost(final_stats_), final_ts_);
        if (!file_.append(out_.data(), out_.size()) && !file_.append_held(out_.data(), out_.size()))
            final_stats_written_ = false;
        out_.clear();
    } else {
        flush();
    }
    file_.close();
}

}  // namespace mspti_trace
