// libc_sec: every function against libboundscheck's contract, error cases included.
#include "securec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

constexpr size_t kTooBig = SECUREC_STRING_MAX_LEN + 1;  // also SECUREC_MEM_MAX_LEN + 1

// Format and string arguments the compiler cannot see as constants (a NULL format would warn).
const char *opaque(const char *s) {
    static const char *volatile slot;
    slot = s;
    return slot;
}

// --- memset_s ---------------------------------------------------------------------------

TEST(MemsetS, FillsCountBytes) {
    unsigned char buf[8] = {};
    EXPECT_EQ(memset_s(buf, sizeof(buf), 0xab, 5), EOK);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(buf[i], i < 5 ? 0xab : 0) << i;
    EXPECT_EQ(memset_s(buf, sizeof(buf), 1, 0), EOK);
    EXPECT_EQ(buf[0], 0xab);
}

TEST(MemsetS, BadDestMaxIsErangeAndWritesNothing) {
    unsigned char buf[4] = {7, 7, 7, 7};
    EXPECT_EQ(memset_s(buf, 0, 0, 1), ERANGE);
    EXPECT_EQ(memset_s(buf, kTooBig, 0, 1), ERANGE);
    EXPECT_EQ(buf[0], 7);
}

TEST(MemsetS, NullDestIsEinval) { EXPECT_EQ(memset_s(nullptr, 4, 0, 1), EINVAL); }

TEST(MemsetS, CountAboveDestMaxFillsDestMaxAndReports) {
    unsigned char buf[8] = {};
    EXPECT_EQ(memset_s(buf, 4, 0x5a, 6), ERANGE_AND_RESET);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(buf[i], i < 4 ? 0x5a : 0) << i;
}

// --- memcpy_s / memmove_s ----------------------------------------------------------------

TEST(MemcpyS, Copies) {
    char dst[8] = {};
    EXPECT_EQ(memcpy_s(dst, sizeof(dst), "abcdefg", 8), EOK);
    EXPECT_STREQ(dst, "abcdefg");
    EXPECT_EQ(memcpy_s(dst, sizeof(dst), "xyz", 0), EOK);  // count 0: nothing
    EXPECT_STREQ(dst, "abcdefg");
    EXPECT_EQ(memcpy_s(dst, sizeof(dst), dst, 8), EOK);  // onto itself
}

TEST(MemcpyS, BadDestMaxIsErange) {
    char dst[4] = {'k', 'k', 'k', 'k'};
    EXPECT_EQ(memcpy_s(dst, 0, "ab", 2), ERANGE);
    EXPECT_EQ(memcpy_s(dst, kTooBig, "ab", 2), ERANGE);
    EXPECT_EQ(dst[0], 'k');
}

TEST(MemcpyS, NullArgumentsAreEinval) {
    char dst[4] = {'k', 'k', 'k', 'k'};
    EXPECT_EQ(memcpy_s(nullptr, 4, "ab", 2), EINVAL);
    EXPECT_EQ(memcpy_s(dst, sizeof(dst), nullptr, 2), EINVAL_AND_RESET);
    for (char c : dst) EXPECT_EQ(c, 0);
}

TEST(MemcpyS, CountAboveDestMaxClearsDest) {
    char dst[4] = {'k', 'k', 'k', 'k'};
    EXPECT_EQ(memcpy_s(dst, sizeof(dst), "abcdef", 6), ERANGE_AND_RESET);
    for (char c : dst) EXPECT_EQ(c, 0);
}

TEST(MemcpyS, OverlapClearsDest) {
    char buf[16] = "0123456789";
    EXPECT_EQ(memcpy_s(buf + 2, 8, buf, 4), EOVERLAP_AND_RESET);
    for (int i = 2; i < 10; ++i) EXPECT_EQ(buf[i], 0) << i;
    EXPECT_EQ(buf[0], '0');
    char buf2[16] = "0123456789";
    EXPECT_EQ(memcpy_s(buf2, 8, buf2 + 2, 4), EOVERLAP_AND_RESET);
    EXPECT_EQ(buf2[0], 0);
}

TEST(MemmoveS, OverlapIsAllowed) {
    char buf[16] = "0123456789";
    EXPECT_EQ(memmove_s(buf + 2, 8, buf, 4), EOK);
    EXPECT_STREQ(buf, "0101236789");
    EXPECT_EQ(memmove_s(buf, 16, buf + 1, 3), EOK);
    EXPECT_STREQ(buf, "1011236789");
}

TEST(MemmoveS, ErrorCases) {
    char dst[4] = {'k', 'k', 'k', 'k'};
    EXPECT_EQ(memmove_s(dst, 0, "ab", 2), ERANGE);
    EXPECT_EQ(memmove_s(dst, kTooBig, "ab", 2), ERANGE);
    EXPECT_EQ(dst[0], 'k');
    EXPECT_EQ(memmove_s(nullptr, 4, "ab", 2), EINVAL);
    EXPECT_EQ(memmove_s(dst, sizeof(dst), nullptr, 2), EINVAL_AND_RESET);
    EXPECT_EQ(dst[0], 0);
    dst[0] = 'k';
    EXPECT_EQ(memmove_s(dst, sizeof(dst), "abcdef", 5), ERANGE_AND_RESET);
    for (char c : dst) EXPECT_EQ(c, 0);
}

// --- strcpy_s / strncpy_s ----------------------------------------------------------------

TEST(StrcpyS, CopiesWhatFits) {
    char dst[6] = "zzzzz";
    EXPECT_EQ(strcpy_s(dst, sizeof(dst), "hello"), EOK);  // 5 + '\0' == 6
    EXPECT_STREQ(dst, "hello");
    EXPECT_EQ(strcpy_s(dst, sizeof(dst), ""), EOK);
    EXPECT_STREQ(dst, "");
    EXPECT_EQ(strcpy_s(dst, sizeof(dst), opaque(dst)), EOK);  // onto itself
}

TEST(StrcpyS, ErrorCases) {
    char dst[6] = "zzzzz";
    EXPECT_EQ(strcpy_s(dst, 0, "a"), ERANGE);
    EXPECT_EQ(strcpy_s(dst, kTooBig, "a"), ERANGE);
    EXPECT_STREQ(dst, "zzzzz");
    EXPECT_EQ(strcpy_s(nullptr, 6, "a"), EINVAL);
    EXPECT_EQ(strcpy_s(dst, sizeof(dst), nullptr), EINVAL_AND_RESET);
    EXPECT_STREQ(dst, "");
    strcpy(dst, "zzzzz");
    EXPECT_EQ(strcpy_s(dst, sizeof(dst), "toolong"), ERANGE_AND_RESET);
    EXPECT_STREQ(dst, "");
    char buf[16] = "abc";
    EXPECT_EQ(strcpy_s(buf + 1, 8, buf), EOVERLAP_AND_RESET);
    EXPECT_EQ(buf[1], '\0');
}

TEST(StrncpyS, CopiesAtMostCount) {
    char dst[8] = "zzzzzzz";
    EXPECT_EQ(strncpy_s(dst, sizeof(dst), "abcdef", 3), EOK);
    EXPECT_STREQ(dst, "abc");
    EXPECT_EQ(strncpy_s(dst, sizeof(dst), "ab", 100), EOK);  // count beyond the source: the source
    EXPECT_STREQ(dst, "ab");
    EXPECT_EQ(strncpy_s(dst, sizeof(dst), "abcdefghij", 7), EOK);  // 7 + '\0' == 8
    EXPECT_STREQ(dst, "abcdefg");
    EXPECT_EQ(strncpy_s(dst, sizeof(dst), "abc", 0), EOK);
    EXPECT_STREQ(dst, "");
}

TEST(StrncpyS, ErrorCases) {
    char dst[8] = "zzzzzzz";
    EXPECT_EQ(strncpy_s(dst, 0, "a", 1), ERANGE);
    EXPECT_EQ(strncpy_s(dst, kTooBig, "a", 1), ERANGE);
    EXPECT_STREQ(dst, "zzzzzzz");
    EXPECT_EQ(strncpy_s(nullptr, 8, "a", 1), EINVAL);
    EXPECT_EQ(strncpy_s(dst, sizeof(dst), nullptr, 1), EINVAL_AND_RESET);
    EXPECT_STREQ(dst, "");
    strcpy(dst, "zzzzzzz");
    EXPECT_EQ(strncpy_s(dst, sizeof(dst), "a", kTooBig), ERANGE_AND_RESET);
    EXPECT_STREQ(dst, "");
    strcpy(dst, "zzzzzzz");
    EXPECT_EQ(strncpy_s(dst, sizeof(dst), "abcdefghij", 8), ERANGE_AND_RESET);
    EXPECT_STREQ(dst, "");
    char buf[16] = "abcdef";
    EXPECT_EQ(strncpy_s(buf + 2, 8, buf, 4), EOVERLAP_AND_RESET);
    EXPECT_EQ(buf[2], '\0');
}

// --- strcat_s / strncat_s ----------------------------------------------------------------

TEST(StrcatS, Appends) {
    char dst[8] = "abc";
    EXPECT_EQ(strcat_s(dst, sizeof(dst), "defg"), EOK);  // 7 + '\0' == 8
    EXPECT_STREQ(dst, "abcdefg");
    EXPECT_EQ(strcat_s(dst, sizeof(dst), ""), EOK);
    EXPECT_STREQ(dst, "abcdefg");
}

TEST(StrcatS, ErrorCases) {
    char dst[8] = "abc";
    EXPECT_EQ(strcat_s(dst, 0, "d"), ERANGE);
    EXPECT_EQ(strcat_s(dst, kTooBig, "d"), ERANGE);
    EXPECT_STREQ(dst, "abc");
    EXPECT_EQ(strcat_s(nullptr, 8, "d"), EINVAL);
    EXPECT_EQ(strcat_s(dst, sizeof(dst), nullptr), EINVAL_AND_RESET);
    EXPECT_STREQ(dst, "");
    strcpy(dst, "abc");
    EXPECT_EQ(strcat_s(dst, sizeof(dst), "defgh"), ERANGE_AND_RESET);  // 8 + '\0' > 8
    EXPECT_STREQ(dst, "");
    char full[4] = {'a', 'b', 'c', 'd'};  // no '\0' within destMax
    EXPECT_EQ(strcat_s(full, sizeof(full), "x"), EINVAL_AND_RESET);
    EXPECT_EQ(full[0], '\0');
    char buf[16] = "ab";
    EXPECT_EQ(strcat_s(buf, sizeof(buf), opaque(buf + 1)), EOVERLAP_AND_RESET);
    EXPECT_STREQ(buf, "");
}

TEST(StrncatS, AppendsAtMostCount) {
    char dst[8] = "ab";
    EXPECT_EQ(strncat_s(dst, sizeof(dst), "cdefghij", 3), EOK);
    EXPECT_STREQ(dst, "abcde");
    EXPECT_EQ(strncat_s(dst, sizeof(dst), "xy", 50), EOK);
    EXPECT_STREQ(dst, "abcdexy");
    EXPECT_EQ(strncat_s(dst, sizeof(dst), "zz", 0), EOK);
    EXPECT_STREQ(dst, "abcdexy");
}

TEST(StrncatS, ErrorCases) {
    char dst[8] = "ab";
    EXPECT_EQ(strncat_s(dst, 0, "c", 1), ERANGE);
    EXPECT_EQ(strncat_s(dst, kTooBig, "c", 1), ERANGE);
    EXPECT_STREQ(dst, "ab");
    EXPECT_EQ(strncat_s(nullptr, 8, "c", 1), EINVAL);
    EXPECT_EQ(strncat_s(dst, sizeof(dst), nullptr, 1), EINVAL_AND_RESET);
    EXPECT_STREQ(dst, "");
    strcpy(dst, "ab");
    EXPECT_EQ(strncat_s(dst, sizeof(dst), "c", kTooBig), ERANGE_AND_RESET);
    EXPECT_STREQ(dst, "");
    strcpy(dst, "ab");
    EXPECT_EQ(strncat_s(dst, sizeof(dst), "cdefghij", 6), ERANGE_AND_RESET);
    EXPECT_STREQ(dst, "");
    char full[4] = {'a', 'b', 'c', 'd'};
    EXPECT_EQ(strncat_s(full, sizeof(full), "x", 1), EINVAL_AND_RESET);
    EXPECT_EQ(full[0], '\0');
    char buf[16] = "abcd";
    EXPECT_EQ(strncat_s(buf, sizeof(buf), opaque(buf + 1), 2), EOVERLAP_AND_RESET);
    EXPECT_STREQ(buf, "");
}

// --- sprintf_s / vsprintf_s --------------------------------------------------------------

int call_vsprintf_s(char *dst, size_t destMax, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    const int n = vsprintf_s(dst, destMax, fmt, args);
    va_end(args);
    return n;
}

int call_vsnprintf_s(char *dst, size_t destMax, size_t count, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    const int n = vsnprintf_s(dst, destMax, count, fmt, args);
    va_end(args);
    return n;
}

TEST(SprintfS, FormatsAndReturnsLength) {
    char dst[16];
    EXPECT_EQ(sprintf_s(dst, sizeof(dst), "%s-%d", "rank", 7), 6);
    EXPECT_STREQ(dst, "rank-7");
    EXPECT_EQ(sprintf_s(dst, 8, "%s", "1234567"), 7);  // exactly fits
    EXPECT_STREQ(dst, "1234567");
    EXPECT_EQ(call_vsprintf_s(dst, sizeof(dst), "%03u|%.2f", 5u, 1.5), 8);
    EXPECT_STREQ(dst, "005|1.50");
}

TEST(SprintfS, TooLongIsAnErrorAndClears) {
    char dst[8] = "zzzzzzz";
    EXPECT_EQ(sprintf_s(dst, sizeof(dst), "%s", "12345678"), -1);
    EXPECT_STREQ(dst, "");
    strcpy(dst, "zzzzzzz");
    EXPECT_EQ(call_vsprintf_s(dst, sizeof(dst), "%d", 123456789), -1);
    EXPECT_STREQ(dst, "");
}

TEST(SprintfS, BadParameters) {
    char dst[8] = "zzzzzzz";
    EXPECT_EQ(sprintf_s(dst, sizeof(dst), opaque(nullptr)), -1);  // NULL format: cleared
    EXPECT_STREQ(dst, "");
    strcpy(dst, "zzzzzzz");
    EXPECT_EQ(sprintf_s(nullptr, 8, "%d", 1), -1);
    EXPECT_EQ(sprintf_s(dst, 0, "%d", 1), -1);  // nothing may be written
    EXPECT_EQ(sprintf_s(dst, kTooBig, "%d", 1), -1);
    EXPECT_STREQ(dst, "zzzzzzz");
    EXPECT_EQ(call_vsprintf_s(dst, sizeof(dst), opaque(nullptr)), -1);
    EXPECT_STREQ(dst, "");
}

// --- snprintf_s / vsnprintf_s ------------------------------------------------------------

TEST(SnprintfS, FormatsWithinCount) {
    char dst[16];
    EXPECT_EQ(snprintf_s(dst, sizeof(dst), sizeof(dst) - 1, "%s=%d", "x", 42), 4);
    EXPECT_STREQ(dst, "x=42");
    EXPECT_EQ(snprintf_s(dst, 8, 7, "%s", "1234567"), 7);
    EXPECT_STREQ(dst, "1234567");
    EXPECT_EQ(snprintf_s(dst, sizeof(dst), static_cast<size_t>(-1), "%d", 12), 2);
    EXPECT_EQ(call_vsnprintf_s(dst, sizeof(dst), 5, "%c%c", 'o', 'k'), 2);
    EXPECT_STREQ(dst, "ok");
}

TEST(SnprintfS, TruncatesToCountWithMinusOne) {
    char dst[16];
    EXPECT_EQ(snprintf_s(dst, sizeof(dst), 4, "%s", "abcdefgh"), -1);
    EXPECT_STREQ(dst, "abcd");  // the truncated text stays
    EXPECT_EQ(call_vsnprintf_s(dst, sizeof(dst), 0, "%s", "abc"), -1);
    EXPECT_STREQ(dst, "");
}

TEST(SnprintfS, OutputBeyondDestMaxIsAnErrorAndClears) {
    char dst[8] = "zzzzzzz";
    EXPECT_EQ(snprintf_s(dst, sizeof(dst), 8, "%s", "12345678"), -1);  // count >= destMax
    EXPECT_STREQ(dst, "");
    strcpy(dst, "zzzzzzz");
    EXPECT_EQ(snprintf_s(dst, sizeof(dst), static_cast<size_t>(-1), "%s", "123456789"), -1);
    EXPECT_STREQ(dst, "");
}

TEST(SnprintfS, BadParameters) {
    char dst[8] = "zzzzzzz";
    EXPECT_EQ(snprintf_s(dst, sizeof(dst), 4, opaque(nullptr)), -1);
    EXPECT_STREQ(dst, "");
    strcpy(dst, "zzzzzzz");
    EXPECT_EQ(snprintf_s(dst, sizeof(dst), SECUREC_STRING_MAX_LEN, "%d", 1), -1);  // count too large
    EXPECT_STREQ(dst, "");
    strcpy(dst, "zzzzzzz");
    EXPECT_EQ(snprintf_s(nullptr, 8, 4, "%d", 1), -1);
    EXPECT_EQ(snprintf_s(dst, 0, 4, "%d", 1), -1);
    EXPECT_EQ(snprintf_s(dst, kTooBig, 4, "%d", 1), -1);
    EXPECT_STREQ(dst, "zzzzzzz");
    EXPECT_EQ(call_vsnprintf_s(dst, sizeof(dst), 4, opaque(nullptr)), -1);
    EXPECT_STREQ(dst, "");
}

// --- sscanf_s / vsscanf_s ----------------------------------------------------------------

int call_vsscanf_s(const char *in, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    const int n = vsscanf_s(in, fmt, args);
    va_end(args);
    return n;
}

TEST(SscanfS, Integers) {
    int d = 0, i = 0, x = 0;
    unsigned u = 0;
    long l = 0;
    long long ll = 0;
    short h = 0;
    signed char hh = 0;
    size_t z = 0;
    ASSERT_EQ(sscanf_s("-12 0x1f 0x10 4000000000 -7 123456789012 -3 -4 99", "%d %i %x %u %ld %lld %hd %hhd %zu", &d, &i,
                       &x, &u, &l, &ll, &h, &hh, &z),
              9);
    EXPECT_EQ(d, -12);
    EXPECT_EQ(i, 31);
    EXPECT_EQ(x, 16);
    EXPECT_EQ(u, 4000000000u);
    EXPECT_EQ(l, -7);
    EXPECT_EQ(ll, 123456789012LL);
    EXPECT_EQ(h, -3);
    EXPECT_EQ(hh, -4);
    EXPECT_EQ(z, 99u);
    unsigned o = 0;
    void *p = nullptr;
    ASSERT_EQ(sscanf_s("017 0xdeadbeef", "%o %p", &o, &p), 2);
    EXPECT_EQ(o, 15u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p), 0xdeadbeefu);
}

TEST(SscanfS, WidthsLiteralsAndSuppression) {
    int a = 0, b = 0;
    ASSERT_EQ(sscanf_s("12345", "%2d%3d", &a, &b), 2);
    EXPECT_EQ(a, 12);
    EXPECT_EQ(b, 345);
    ASSERT_EQ(sscanf_s("device=3, size=8", "device=%d, size=%d", &a, &b), 2);
    EXPECT_EQ(a, 3);
    EXPECT_EQ(b, 8);
    ASSERT_EQ(sscanf_s("7 8", "%*d %d", &a), 1);
    EXPECT_EQ(a, 8);
    ASSERT_EQ(sscanf_s("50%", "%d%%", &a), 1);
    int n = -1;
    ASSERT_EQ(sscanf_s("  42xyz", "%d%n", &a, &n), 1);  // %n is not counted
    EXPECT_EQ(n, 4);
}

TEST(SscanfS, Floats) {
    float f = 0;
    double d = 0;
    long double ld = 0;
    ASSERT_EQ(sscanf_s("1.5 -2.25e2 3.125", "%f %lf %Lf", &f, &d, &ld), 3);
    EXPECT_FLOAT_EQ(f, 1.5f);
    EXPECT_DOUBLE_EQ(d, -225.0);
    EXPECT_EQ(ld, 3.125L);
}

TEST(SscanfS, StringsTakeTheirSize) {
    char s[8], c[3], set[8];
    int tail = 0;
    ASSERT_EQ(sscanf_s("hello abcxyz 9", "%s %3c%[a-z] %d", s, 8u, c, 3u, set, 8u, &tail), 4);
    EXPECT_STREQ(s, "hello");
    EXPECT_EQ(std::string(c, 3), "abc");
    EXPECT_STREQ(set, "xyz");
    EXPECT_EQ(tail, 9);
    ASSERT_EQ(sscanf_s("key:value", "%[^:]:%s", set, 8u, s, 8u), 2);
    EXPECT_STREQ(set, "key");
    EXPECT_STREQ(s, "value");
    ASSERT_EQ(sscanf_s("]]a", "%[]]", set, 8u), 1);  // ']' first is part of the set
    EXPECT_STREQ(set, "]]");
    ASSERT_EQ(sscanf_s("abcdef", "%3s", s, 8u), 1);
    EXPECT_STREQ(s, "abc");
    ASSERT_EQ(call_vsscanf_s("one two", "%*s %s", s, 8u), 1);
    EXPECT_STREQ(s, "two");
}

TEST(SscanfS, FieldLargerThanBufferClearsItAndStops) {
    char s[4] = "zzz";
    int after = -1;
    EXPECT_EQ(sscanf_s("toolong 5", "%s %d", s, 4u, &after), 0);
    EXPECT_EQ(s[0], '\0');
    EXPECT_EQ(after, -1);
    int first = 0;
    strcpy(s, "zzz");
    EXPECT_EQ(sscanf_s("1 abcd", "%d %s", &first, s, 4u), 1);  // 4 + '\0' > 4
    EXPECT_EQ(first, 1);
    EXPECT_EQ(s[0], '\0');
    char c[2] = {'z', 'z'};
    EXPECT_EQ(sscanf_s("abc", "%3c", c, 2u), 0);
    EXPECT_EQ(c[0], '\0');
    char set[2] = "z";
    EXPECT_EQ(sscanf_s("aaa", "%[a]", set, 2u), 0);
    EXPECT_EQ(set[0], '\0');
}

TEST(SscanfS, MatchingFailureReturnsFieldsSoFar) {
    int a = 0, b = -1;
    EXPECT_EQ(sscanf_s("abc", "%d", &a), 0);
    EXPECT_EQ(sscanf_s("5 x", "%d %d", &a, &b), 1);
    EXPECT_EQ(a, 5);
    EXPECT_EQ(b, -1);
    EXPECT_EQ(sscanf_s("5;6", "%d,%d", &a, &b), 1);
    char set[4];
    EXPECT_EQ(sscanf_s("123", "%[a-z]", set, 4u), 0);
}

TEST(SscanfS, InputEndingBeforeTheFirstConversionIsEof) {
    int a = 0;
    EXPECT_EQ(sscanf_s("", "%d", &a), -1);
    EXPECT_EQ(sscanf_s("   ", "%d", &a), -1);
    EXPECT_EQ(sscanf_s("x", "x%d", &a), -1);
    char c[2];
    EXPECT_EQ(sscanf_s("a", "%2c", c, 2u), -1);  // fewer characters than the width
    EXPECT_EQ(sscanf_s("4", "%d %d", &a, &a), 1);  // after the first conversion: its count
}

TEST(SscanfS, BadParametersAreEof) {
    int a = 0;
    EXPECT_EQ(sscanf_s(nullptr, "%d", &a), -1);
    EXPECT_EQ(sscanf_s("1", opaque(nullptr)), -1);
    EXPECT_EQ(sscanf_s("1", "%d", static_cast<int *>(nullptr)), -1);
    EXPECT_EQ(sscanf_s("ab", "%s", static_cast<char *>(nullptr), 4u), -1);
    EXPECT_EQ(sscanf_s("1", opaque("%y"), &a), -1);  // unknown conversion
    char set[4];
    EXPECT_EQ(sscanf_s("a", opaque("%[a"), set, 4u), -1);  // unterminated scan set
    EXPECT_EQ(call_vsscanf_s(nullptr, "%d", &a), -1);
}

}  // namespace
