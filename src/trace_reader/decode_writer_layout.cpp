// A TracePacket read in the one layout our writer gives its events (src/trace/pftrace_sink.cpp:
// event_fast, end, counter), field after field without the general walk's dispatch: about every
// packet of a trace but its tracks and the first use of each interned name. Anything else
// (another order, a field twice or unknown, a key in more bytes than needed, damage) is left to
// the general walk, which then reads the packet as it reads any other file's.
#include "decoder.h"
#include "protobuf_read.h"
#include "proto.h"

namespace mspti_trace::reader {

namespace {

namespace field = mspti_trace::proto::field;
using mspti_trace::proto::kFixed64;
using mspti_trace::proto::kLength;
using mspti_trace::proto::kVarint;

// A field's key as one byte (fields below 16).
constexpr uint8_t key1(uint32_t num, uint32_t wt) { return static_cast<uint8_t>(num << 3 | wt); }
// The two bytes of a key's varint (fields 16 to 2047).
constexpr uint8_t key2_lo(uint32_t num, uint32_t wt) { return static_cast<uint8_t>(((num << 3 | wt) & 0x7F) | 0x80); }
constexpr uint8_t key2_hi(uint32_t num, uint32_t wt) { return static_cast<uint8_t>((num << 3 | wt) >> 7); }

static_assert(field::kTimestamp < 16 && field::kSequenceId < 16 && field::kSequenceFlags < 16 &&
              field::kTrackEvent < 16 && field::kTeType < 16 && field::kTeTrackUuid < 16 && field::kTeNameIid < 16 &&
              field::kTeCategoryIids < 16 && field::kTeDebugAnnotations < 16);
static_assert(key2_lo(47, 1) == 0xF9 && key2_hi(47, 1) == 0x02);  // as the writer writes a flow id's key
static_assert(field::kTeFlowIds >= 16 && field::kTeFlowIds < 2048 && field::kTeCounterValue >= 16 &&
              field::kTeCounterValue < 2048);

constexpr uint8_t kTimestamp = key1(field::kTimestamp, kVarint);
constexpr uint8_t kSequenceId = key1(field::kSequenceId, kVarint);
constexpr uint8_t kFlags = key1(field::kSequenceFlags, kVarint);
constexpr uint8_t kTrackEvent = key1(field::kTrackEvent, kLength);
constexpr uint8_t kType = key1(field::kTeType, kVarint);
constexpr uint8_t kTrackUuid = key1(field::kTeTrackUuid, kVarint);
constexpr uint8_t kNameIid = key1(field::kTeNameIid, kVarint);
constexpr uint8_t kCategoryIid = key1(field::kTeCategoryIids, kVarint);
constexpr uint8_t kAnnotation = key1(field::kTeDebugAnnotations, kLength);
constexpr uint8_t kFlowLo = key2_lo(field::kTeFlowIds, kFixed64), kFlowHi = key2_hi(field::kTeFlowIds, kFixed64);
constexpr uint8_t kCounterLo = key2_lo(field::kTeCounterValue, kVarint),
                  kCounterHi = key2_hi(field::kTeCounterValue, kVarint);

// True when the next byte is the one-byte key k.
inline bool at(const uint8_t *p, const uint8_t *end, uint8_t k) { return p < end && *p == k; }

}  // namespace

// TracePacket: timestamp, sequence id (the current sequence's), flags (not clearing it), then
// the track event, last. TrackEvent: type, track uuid, name iid, one category iid, annotations,
// flow ids, counter value, each optional but in that order and once. A field read here holds
// what the general walk would keep for it: with each field once there is no "last one wins" or
// "first non-empty category" to differ on.
bool Decoder::writer_layout(const uint8_t *p, const uint8_t *end) {
    if (state_ == nullptr || !at(p, end, kTimestamp)) return false;
    EventFields e;
    bool want = false;
    try {  // a damaged varint: the general walk reads the packet and says where
        e.ts = varint(++p, end);
        if (!at(p, end, kSequenceId) || varint(++p, end) != state_seq_) return false;
        if (!at(p, end, kFlags) || (varint(++p, end) & mspti_trace::proto::kIncrementalStateCleared)) return false;
        if (!at(p, end, kTrackEvent)) return false;
        const uint64_t len = varint(++p, end);
        if (len != static_cast<uint64_t>(end - p)) return false;  // the track event ends the packet
        if (at(p, end, kType)) e.type = static_cast<int64_t>(varint(++p, end));
        if (at(p, end, kTrackUuid)) {
            e.track = varint(++p, end);
            e.has_track = true;
        }
        if (at(p, end, kNameIid)) e.name = lookup(state_->names, varint(++p, end));
        if (at(p, end, kCategoryIid)) e.cat = lookup(state_->cats, varint(++p, end));
        want = wanted(e.cat, e.name);
        anns_.clear();
        while (at(p, end, kAnnotation)) {
            const uint64_t n = varint(++p, end);
            if (n > static_cast<uint64_t>(end - p)) return false;
            if (want) anns_.emplace_back(p, p + n);  // decoded only for the events asked for
            p += n;
        }
        while (end - p >= 10 && p[0] == kFlowLo && p[1] == kFlowHi) p += 10;  // key and fixed64: not kept
        if (end - p >= 2 && p[0] == kCounterLo && p[1] == kCounterHi) {
            p += 2;
            e.counter = static_cast<int64_t>(varint(p, end));
            e.has_counter = true;
        }
        if (p != end) return false;
    } catch (const Bad &) {
        return false;
    }
    record(*state_, e, want);
    return true;
}

}  // namespace mspti_trace::reader
