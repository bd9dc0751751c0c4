// msptiActivityGetNextRecord walks from *record (NULL = first), CUPTI-style.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "mspti/mspti.h"

namespace {

struct alignas(8) Buffer {
    uint8_t bytes[256] = {};
};

size_t Put(Buffer &b, size_t offset, msptiActivityKind kind, size_t size) {
    std::memcpy(b.bytes + offset, &kind, sizeof(kind));
    return offset + size;
}

}  // namespace

TEST(GetNextRecord, NullArguments) {
    msptiActivity *record = nullptr;
    EXPECT_EQ(msptiActivityGetNextRecord(nullptr, 56, &record), MSPTI_ERROR_INVALID_PARAMETER);
    Buffer b;
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, 56, nullptr), MSPTI_ERROR_INVALID_PARAMETER);
}

TEST(GetNextRecord, WalksMixedKindsWithTheirStrides) {
    Buffer b;
    size_t end = Put(b, 0, MSPTI_ACTIVITY_KIND_MARKER, 56);
    end = Put(b, end, MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, 24);
    end = Put(b, end, MSPTI_ACTIVITY_KIND_COMMUNICATION, 72);
    end = Put(b, end, MSPTI_ACTIVITY_KIND_API, 48);
    std::vector<size_t> offsets;
    msptiActivity *record = nullptr;
    while (msptiActivityGetNextRecord(b.bytes, end, &record) == MSPTI_SUCCESS)
        offsets.push_back(reinterpret_cast<uint8_t *>(record) - b.bytes);
    EXPECT_EQ(offsets, (std::vector<size_t>{0, 56, 80, 152}));
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, end, &record), MSPTI_ERROR_MAX_LIMIT_REACHED);
}

TEST(GetNextRecord, EndOfBufferIsMaxLimitReached) {
    Buffer b;
    Put(b, 0, MSPTI_ACTIVITY_KIND_MARKER, 56);
    msptiActivity *record = nullptr;
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, 56, &record), MSPTI_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uint8_t *>(record), b.bytes);
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, 56, &record), MSPTI_ERROR_MAX_LIMIT_REACHED);
    record = nullptr;
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, 1, &record), MSPTI_ERROR_MAX_LIMIT_REACHED);
    record = nullptr;
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, 0, &record), MSPTI_ERROR_MAX_LIMIT_REACHED);
}

TEST(GetNextRecord, StartingAgainFromNullRestarts) {
    Buffer b;
    Put(b, Put(b, 0, MSPTI_ACTIVITY_KIND_MARKER, 56), MSPTI_ACTIVITY_KIND_KERNEL, 56);
    msptiActivity *record = nullptr;
    ASSERT_EQ(msptiActivityGetNextRecord(b.bytes, 112, &record), MSPTI_SUCCESS);
    record = nullptr;  // a consumer that stopped early and starts over gets the first record again
    ASSERT_EQ(msptiActivityGetNextRecord(b.bytes, 112, &record), MSPTI_SUCCESS);
    EXPECT_EQ(record->kind, MSPTI_ACTIVITY_KIND_MARKER);
}

TEST(GetNextRecord, UnknownKindIsInner) {
    Buffer b;
    size_t end = Put(b, 0, MSPTI_ACTIVITY_KIND_MARKER, 56);
    end = Put(b, end, static_cast<msptiActivityKind>(13), 56);
    msptiActivity *record = nullptr;
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, end, &record), MSPTI_SUCCESS);
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, end, &record), MSPTI_ERROR_INNER);
    Buffer invalid;
    record = nullptr;
    EXPECT_EQ(msptiActivityGetNextRecord(invalid.bytes, 56, &record), MSPTI_ERROR_INNER);  // kind 0
}

TEST(GetNextRecord, RecordOutsideTheBufferIsRejected) {
    Buffer b, other;
    Put(b, 0, MSPTI_ACTIVITY_KIND_MARKER, 56);
    auto *foreign = reinterpret_cast<msptiActivity *>(other.bytes);
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, 56, &foreign), MSPTI_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(foreign, reinterpret_cast<msptiActivity *>(other.bytes));  // unchanged
}

TEST(GetNextRecord, TruncatedLastRecordIsNotReturned) {
    Buffer b;
    Put(b, Put(b, 0, MSPTI_ACTIVITY_KIND_MARKER, 56), MSPTI_ACTIVITY_KIND_MARKER, 56);
    msptiActivity *record = nullptr;
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, 100, &record), MSPTI_SUCCESS);
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, 100, &record), MSPTI_ERROR_MAX_LIMIT_REACHED);
}

TEST(GetNextRecord, AHugeValidSizeDoesNotWrapAround) {
    // buffer + SIZE_MAX wraps around the address space; the walk must still follow the records.
    Buffer b;
    Put(b, Put(b, 0, MSPTI_ACTIVITY_KIND_MARKER, 56), MSPTI_ACTIVITY_KIND_KERNEL, 56);
    for (size_t valid : {SIZE_MAX, SIZE_MAX - 8, SIZE_MAX / 2 + 1}) {
        msptiActivity *record = nullptr;
        ASSERT_EQ(msptiActivityGetNextRecord(b.bytes, valid, &record), MSPTI_SUCCESS);
        EXPECT_EQ(reinterpret_cast<uint8_t *>(record), b.bytes);
        ASSERT_EQ(msptiActivityGetNextRecord(b.bytes, valid, &record), MSPTI_SUCCESS) << valid;
        EXPECT_EQ(reinterpret_cast<uint8_t *>(record), b.bytes + 56);
        // Past the two records the buffer holds zeros: an unknown kind, reported, not a crash.
        EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, valid, &record), MSPTI_ERROR_INNER);
    }
}

TEST(GetNextRecord, ARecordBeforeTheBufferIsRejected) {
    Buffer b;
    Put(b, 64, MSPTI_ACTIVITY_KIND_MARKER, 56);
    auto *before = reinterpret_cast<msptiActivity *>(b.bytes);
    EXPECT_EQ(msptiActivityGetNextRecord(b.bytes + 64, SIZE_MAX, &before), MSPTI_ERROR_INVALID_PARAMETER);
}

TEST(GetNextRecord, ARecordPointerTooCloseToTheEndIsRejected) {
    // *record inside the valid bytes but with no room for a record header there: the kind must
    // not be read past the valid bytes (found by the GetNextRecord fuzzer).
    constexpr size_t kValid = 64;
    auto *bytes = static_cast<uint8_t *>(std::aligned_alloc(8, kValid));
    std::memset(bytes, 0, kValid);
    Buffer b;
    Put(b, 0, MSPTI_ACTIVITY_KIND_MARKER, 56);
    std::memcpy(bytes, b.bytes, kValid);
    auto *near_end = reinterpret_cast<msptiActivity *>(bytes + kValid - 2);
    EXPECT_EQ(msptiActivityGetNextRecord(bytes, kValid, &near_end), MSPTI_ERROR_INVALID_PARAMETER);
    std::free(bytes);
}

TEST(GetNextRecord, AnyKindValueIsReportedNotTrusted) {
    Buffer b;
    for (int kind : {0, -1, 13, 0x7fffffff, static_cast<int>(0x80000000u)}) {
        std::memcpy(b.bytes, &kind, sizeof(kind));
        msptiActivity *record = nullptr;
        EXPECT_EQ(msptiActivityGetNextRecord(b.bytes, sizeof(b.bytes), &record), MSPTI_ERROR_INNER) << kind;
    }
}

TEST(GetNextRecord, ARunOfOneKindIsWalkedUpToTheValidBytesWhateverTheirCount) {
    // Records followed by one of their own kind take a shorter path: for every valid size, the
    // walk returns exactly the records that lie whole inside it, at their offsets.
    Buffer b;
    size_t end = 0;
    for (int i = 0; i < 4; ++i) end = Put(b, end, MSPTI_ACTIVITY_KIND_MARKER, 56);
    for (size_t valid = 0; valid <= end; ++valid) {
        std::vector<size_t> offsets;
        msptiActivity *record = nullptr;
        msptiResult r;
        while ((r = msptiActivityGetNextRecord(b.bytes, valid, &record)) == MSPTI_SUCCESS)
            offsets.push_back(reinterpret_cast<uint8_t *>(record) - b.bytes);
        EXPECT_EQ(r, MSPTI_ERROR_MAX_LIMIT_REACHED) << "valid " << valid;
        std::vector<size_t> expected;
        for (size_t at = 0; at + 56 <= valid; at += 56) expected.push_back(at);
        EXPECT_EQ(offsets, expected) << "valid " << valid;
    }
}
