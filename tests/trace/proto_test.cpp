// The protobuf encoder behind the pftrace file: varints, fixed64, strings and nested messages,
// including one that outgrows the single byte reserved for its length.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "proto.h"

namespace mspti_trace::proto {
namespace {

std::string bytes(const Buffer &b) { return std::string(b.data(), b.size()); }

// The byte-at-a-time encoding, to check the word-at-a-time one against.
std::string reference_varint(uint64_t v) {
    std::string out;
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
    return out;
}

TEST(Proto, VarintOfEveryLengthMatchesTheByteAtATimeEncoding) {
    std::vector<uint64_t> values =
        {0, 1, 127, 128, 255, 300, 16383, 16384, UINT64_MAX, 1ull << 63, (1ull << 63) - 1, 1796048889633760677ull};
    for (int bit = 0; bit < 64; ++bit) {
        values.push_back(1ull << bit);
        values.push_back((1ull << bit) - 1);
        values.push_back((1ull << bit) + 1);
    }
    std::mt19937_64 random(7);
    for (int i = 0; i < 10000; ++i) values.push_back(random() >> (random() % 64));
    for (uint64_t v : values) {
        char buf[16];
        size_t n = static_cast<size_t>(put_varint(buf, v) - buf);
        EXPECT_EQ(std::string(buf, n), reference_varint(v)) << v;
    }
}

TEST(Proto, VarintsAndFixedWidth) {
    Buffer b;
    Writer w(b);
    w.uint(1, 0);
    w.uint(2, 300);
    w.uint(3, UINT64_MAX);
    w.sint(4, -1);
    w.fixed64(5, 0x0102030405060708ull);
    w.str(6, "ab");
    EXPECT_EQ(bytes(b), std::string("\x08\x00"
                                    "\x10\xac\x02"
                                    "\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
                                    "\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
                                    "\x29\x08\x07\x06\x05\x04\x03\x02\x01"
                                    "\x32\x02"
                                    "ab",
                                    2 + 3 + 11 + 11 + 9 + 4));
}

TEST(Proto, NestedMessageLongerThan127Bytes) {
    Buffer b;
    Writer w(b);
    size_t outer = w.begin(1);
    size_t inner = w.begin(2);
    std::string payload(200, 'x');
    w.str(3, payload);  // 3 + 200 bytes: the inner length needs two bytes
    w.end(inner);
    w.uint(4, 7);
    w.end(outer);
    std::string expect = "\x0a";
    expect += "\xd0\x01";  // outer: 1 + 2 + 203 + 2 = 208 bytes
    expect += "\x12\xcb\x01";  // inner: 203 bytes
    expect += "\x1a\xc8\x01" + payload;
    expect += "\x20\x07";
    EXPECT_EQ(bytes(b), expect);
}

TEST(Proto, BufferGrowsAndClears) {
    Buffer b;
    Writer w(b);
    for (int i = 0; i < 100000; ++i) w.uint(1, static_cast<uint64_t>(i));
    size_t size = b.size();
    EXPECT_GT(size, 200000u);
    EXPECT_EQ(static_cast<unsigned char>(b.data()[size - 4]), 0x08u);  // 99999 is three varint bytes
    b.clear();
    EXPECT_TRUE(b.empty());
    b.append("xy", 2);
    EXPECT_EQ(bytes(b), "xy");
}

}  // namespace
}  // namespace mspti_trace::proto
