// Reading protobuf's wire format: varints and the fields of a message, with the checks a damaged
// file needs (a field past the end of its message, a varint longer than 10 bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace mspti_trace::reader {

// A damaged message: the read stops at the packet holding it.
struct Bad {
    std::string why;
};

inline const char *const kPastEnd = "a field runs past the end of its message";

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
inline int try_varint(const uint8_t *&p, const uint8_t *end, uint64_t &v) {
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

}  // namespace mspti_trace::reader
