// Protobuf wire-format encoding, just what a Perfetto TracePacket stream needs: varints,
// fixed64, doubles, strings and nested messages (one byte is reserved for the length, and the
// rare message of 128 bytes or more is moved up to make room for a longer varint).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace mspti_trace::proto {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLength = 2 };

class Writer {
public:
    explicit Writer(std::string &out) : out_(out) {}

    void varint(uint64_t v) {
        while (v >= 0x80) {
            out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
            v >>= 7;
        }
        out_.push_back(static_cast<char>(v));
    }
    void tag(uint32_t field, WireType type) { varint((static_cast<uint64_t>(field) << 3) | type); }
    void uint(uint32_t field, uint64_t v) {
        tag(field, kVarint);
        varint(v);
    }
    void sint(uint32_t field, int64_t v) { uint(field, static_cast<uint64_t>(v)); }  // int64: two's complement
    void fixed64(uint32_t field, uint64_t v) {
        tag(field, kFixed64);
        char b[8];
        std::memcpy(b, &v, 8);  // little-endian hosts only (x86-64, aarch64)
        out_.append(b, 8);
    }
    void dbl(uint32_t field, double v) {
        uint64_t bits;
        std::memcpy(&bits, &v, 8);
        fixed64(field, bits);
    }
    void str(uint32_t field, std::string_view s) {
        tag(field, kLength);
        varint(s.size());
        out_.append(s.data(), s.size());
    }
    // Opens a nested message; returns the position to hand to end().
    size_t begin(uint32_t field) {
        tag(field, kLength);
        size_t at = out_.size();
        out_.push_back('\0');
        return at;
    }
    void end(size_t at) {
        size_t len = out_.size() - at - 1;
        if (len < 0x80) {
            out_[at] = static_cast<char>(len);
            return;
        }
        char b[10];
        size_t n = 0;
        for (size_t v = len; ; v >>= 7) {
            b[n++] = static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
            if (v < 0x80) break;
        }
        out_.replace(at, 1, b, n);
    }

private:
    std::string &out_;
};

// Field numbers from perfetto's protos/perfetto/trace/ (public proto definitions).
namespace field {
constexpr uint32_t kTracePacket = 1;            // Trace.packet
constexpr uint32_t kTimestamp = 8;              // TracePacket
constexpr uint32_t kSequenceId = 10;
constexpr uint32_t kTrackEvent = 11;
constexpr uint32_t kInternedData = 12;
constexpr uint32_t kSequenceFlags = 13;
constexpr uint32_t kTrackDescriptor = 60;
constexpr uint32_t kEventCategories = 1;        // InternedData
constexpr uint32_t kEventNames = 2;
constexpr uint32_t kDebugAnnotationNames = 3;
constexpr uint32_t kIid = 1;                    // EventName / EventCategory / DebugAnnotationName
constexpr uint32_t kInternedName = 2;
constexpr uint32_t kTdUuid = 1;                 // TrackDescriptor
constexpr uint32_t kTdName = 2;
constexpr uint32_t kTdProcess = 3;
constexpr uint32_t kTdThread = 4;
constexpr uint32_t kTdParentUuid = 5;
constexpr uint32_t kTdCounter = 8;
constexpr uint32_t kPdPid = 1;                  // ProcessDescriptor
constexpr uint32_t kPdProcessName = 6;
constexpr uint32_t kThPid = 1;                  // ThreadDescriptor
constexpr uint32_t kThTid = 2;
constexpr uint32_t kThThreadName = 5;
constexpr uint32_t kCdUnit = 3;                 // CounterDescriptor (UNIT_SIZE_BYTES = 3)
constexpr uint32_t kTeCategoryIids = 3;         // TrackEvent
constexpr uint32_t kTeDebugAnnotations = 4;
constexpr uint32_t kTeType = 9;
constexpr uint32_t kTeNameIid = 10;
constexpr uint32_t kTeTrackUuid = 11;
constexpr uint32_t kTeCounterValue = 30;
constexpr uint32_t kTeFlowIds = 47;
constexpr uint32_t kDaNameIid = 1;              // DebugAnnotation
constexpr uint32_t kDaUintValue = 3;
constexpr uint32_t kDaIntValue = 4;
constexpr uint32_t kDaDoubleValue = 5;
constexpr uint32_t kDaStringValue = 6;
}  // namespace field

enum EventType : uint64_t { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounter = 4 };
enum SequenceFlags : uint64_t { kIncrementalStateCleared = 1, kNeedsIncrementalState = 2 };

}  // namespace mspti_trace::proto
