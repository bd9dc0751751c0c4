// Protobuf wire-format encoding, just what a Perfetto TracePacket stream needs: varints,
// fixed64, doubles, strings and nested messages (one byte is reserved for the length, and the
// rare message of 128 bytes or more is moved up to make room for a longer varint).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

namespace mspti_trace::proto {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLength = 2 };

// A growable byte buffer kept across windows: appends check capacity once and write through a
// pointer (std::string's push_back per byte was half of the writer's time).
class Buffer {
public:
    Buffer() = default;
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    ~Buffer() { std::free(data_); }

    const char *data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void clear() { size_ = 0; }
    // Room for n more bytes; write them at the returned pointer, then commit().
    char *room(size_t n) {
        if (capacity_ - size_ < n) grow(n);
        return data_ + size_;
    }
    void commit(char *end) { size_ = static_cast<size_t>(end - data_); }
    void append(const void *p, size_t n) {
        if (n == 0) return;
        std::memcpy(room(n), p, n);
        size_ += n;
    }
    char &operator[](size_t i) { return data_[i]; }
    // Replaces the n bytes at `at` with the m >= n bytes at `with`; what follows moves up.
    void replace(size_t at, size_t n, const char *with, size_t m) {
        room(m - n);
        std::memmove(data_ + at + m, data_ + at + n, size_ - at - n);
        std::memcpy(data_ + at, with, m);
        size_ += m - n;
    }

private:
    void grow(size_t n) {
        size_t want = capacity_ * 2 > size_ + n ? capacity_ * 2 : size_ + n;
        if (want < 4096) want = 4096;
        char *p = static_cast<char *>(std::realloc(data_, want));
        if (p == nullptr) throw std::bad_alloc();
        data_ = p;
        capacity_ = want;
    }

    char *data_ = nullptr;
    size_t size_ = 0, capacity_ = 0;
};

// Writes a varint at p; returns the end. Needs 10 bytes of room whatever the value: the low 8
// bytes are stored at once (a timestamp takes 9 bytes, and a byte-at-a-time loop was an eighth
// of the writer's time).
inline char *put_varint(char *p, uint64_t v) {
    if (v < 0x80) {
        *p = static_cast<char>(v);
        return p + 1;
    }
    // The low 56 bits spread into 8 groups of 7, one per byte.
    uint64_t x = v & ((1ull << 56) - 1);
    x = (x & 0x000000000FFFFFFFull) | ((x & 0x00FFFFFFF0000000ull) << 4);
    x = (x & 0x00003FFF00003FFFull) | ((x & 0x0FFFC0000FFFC000ull) << 2);
    x = (x & 0x007F007F007F007Full) | ((x & 0x3F803F803F803F80ull) << 1);
    unsigned bits = 64u - static_cast<unsigned>(__builtin_clzll(v));
    unsigned n = (bits + 6) / 7;  // 2..10 bytes
    if (n <= 8) {
        x |= 0x8080808080808080ull >> (64 - 8 * (n - 1));  // a continuation bit on all but the last
        std::memcpy(p, &x, 8);  // little-endian hosts only (x86-64, aarch64)
        return p + n;
    }
    x |= 0x8080808080808080ull;
    std::memcpy(p, &x, 8);
    p[8] = static_cast<char>((v >> 56) & 0x7f);
    if (n == 9) return p + 9;
    p[8] = static_cast<char>(p[8] | 0x80);
    p[9] = static_cast<char>(v >> 63);
    return p + 10;
}

// The key byte of a field below 16: a constant.
constexpr char key(uint32_t field, WireType type) { return static_cast<char>((field << 3) | type); }

class Writer {
public:
    explicit Writer(Buffer &out) : out_(out) {}

    void varint(uint64_t v) { out_.commit(put_varint(out_.room(10), v)); }
    void tag(uint32_t field, WireType type) { varint((static_cast<uint64_t>(field) << 3) | type); }
    void uint(uint32_t field, uint64_t v) {
        char *p = out_.room(20);
        p = put_varint(p, (static_cast<uint64_t>(field) << 3) | kVarint);
        out_.commit(put_varint(p, v));
    }
    void sint(uint32_t field, int64_t v) { uint(field, static_cast<uint64_t>(v)); }  // int64: two's complement
    void fixed64(uint32_t field, uint64_t v) {
        char *p = put_varint(out_.room(18), (static_cast<uint64_t>(field) << 3) | kFixed64);
        std::memcpy(p, &v, 8);  // little-endian hosts only (x86-64, aarch64)
        out_.commit(p + 8);
    }
    void dbl(uint32_t field, double v) {
        uint64_t bits;
        std::memcpy(&bits, &v, 8);
        fixed64(field, bits);
    }
    void str(uint32_t field, std::string_view s) { bytes(field, s.data(), s.size()); }
    void bytes(uint32_t field, const void *data, size_t size) {
        char *p = out_.room(20 + size);
        p = put_varint(p, (static_cast<uint64_t>(field) << 3) | kLength);
        p = put_varint(p, size);
        if (size != 0) std::memcpy(p, data, size);
        out_.commit(p + size);
    }
    // Opens a nested message; returns the position to hand to end().
    size_t begin(uint32_t field) {
        char *p = put_varint(out_.room(11), (static_cast<uint64_t>(field) << 3) | kLength);
        *p = '\0';
        out_.commit(p + 1);
        return static_cast<size_t>(p - out_.data());
    }
    void end(size_t at) {
        size_t len = out_.size() - at - 1;
        if (len < 0x80) {
            out_[at] = static_cast<char>(len);
            return;
        }
        char b[10];
        size_t n = static_cast<size_t>(put_varint(b, len) - b);
        out_.replace(at, 1, b, n);
    }

private:
    Buffer &out_;
};

// Field numbers from perfetto's protos/perfetto/trace/ (public proto definitions).
namespace field {
constexpr uint32_t kTracePacket = 1;  // Trace.packet
constexpr uint32_t kTimestamp = 8;  // TracePacket
constexpr uint32_t kSequenceId = 10;
constexpr uint32_t kTrackEvent = 11;
constexpr uint32_t kInternedData = 12;
constexpr uint32_t kSequenceFlags = 13;
constexpr uint32_t kTrackDescriptor = 60;
constexpr uint32_t kEventCategories = 1;  // InternedData
constexpr uint32_t kEventNames = 2;
constexpr uint32_t kDebugAnnotationNames = 3;
constexpr uint32_t kIid = 1;  // EventName / EventCategory / DebugAnnotationName
constexpr uint32_t kInternedName = 2;
constexpr uint32_t kTdUuid = 1;  // TrackDescriptor
constexpr uint32_t kTdName = 2;
constexpr uint32_t kTdProcess = 3;
constexpr uint32_t kTdThread = 4;
constexpr uint32_t kTdParentUuid = 5;
constexpr uint32_t kTdCounter = 8;
constexpr uint32_t kPdPid = 1;  // ProcessDescriptor
constexpr uint32_t kPdProcessName = 6;
constexpr uint32_t kThPid = 1;  // ThreadDescriptor
constexpr uint32_t kThTid = 2;
constexpr uint32_t kThThreadName = 5;
constexpr uint32_t kCdUnit = 3;  // CounterDescriptor (UNIT_SIZE_BYTES = 3)
constexpr uint32_t kTeCategoryIids = 3;  // TrackEvent
constexpr uint32_t kTeDebugAnnotations = 4;
constexpr uint32_t kTeType = 9;
constexpr uint32_t kTeNameIid = 10;
constexpr uint32_t kTeTrackUuid = 11;
constexpr uint32_t kTeCounterValue = 30;
constexpr uint32_t kTeFlowIds = 47;
constexpr uint32_t kDaNameIid = 1;  // DebugAnnotation
constexpr uint32_t kDaUintValue = 3;
constexpr uint32_t kDaIntValue = 4;
constexpr uint32_t kDaDoubleValue = 5;
constexpr uint32_t kDaStringValue = 6;
}  // namespace field

enum EventType : uint64_t { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounter = 4 };
enum SequenceFlags : uint64_t { kIncrementalStateCleared = 1, kNeedsIncrementalState = 2 };

}  // namespace mspti_trace::proto
