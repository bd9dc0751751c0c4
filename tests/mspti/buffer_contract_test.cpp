// Buffers the client hands us that cannot hold records still come back through the complete
// callback (the client owns them), and their records are counted as dropped.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

#include <gtest/gtest.h>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"

namespace {

constexpr size_t kGoodSize = 4096;

// The first request gets `bad` (with `bad_size`); later ones get good buffers.
struct Client {
    std::mutex mutex;
    uint8_t *bad = nullptr;
    size_t bad_size = 0;
    bool bad_given = false;
    std::vector<std::pair<uint8_t *, size_t>> completed;  // (buffer, validSize)
    uint64_t records = 0;
};
Client g_client;
size_t g_max_records = 0;  // what the request callback reports as maxNumRecords

void Request(uint8_t **buffer, size_t *size, size_t *max_records) {
    std::lock_guard<std::mutex> lock(g_client.mutex);
    *max_records = g_max_records;
    if (!g_client.bad_given) {
        g_client.bad_given = true;
        *buffer = g_client.bad;
        *size = g_client.bad_size;
        return;
    }
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kGoodSize));
    *size = kGoodSize;
}

void Complete(uint8_t *buffer, size_t, size_t valid) {
    uint64_t n = 0;
    msptiActivity *record = nullptr;
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) ++n;
    std::lock_guard<std::mutex> lock(g_client.mutex);
    g_client.completed.emplace_back(buffer, valid);
    g_client.records += n;
    if (buffer != g_client.bad) std::free(buffer);
}

void ExpectBadBufferHandedBackEmpty() {
    msptiActivityRegisterCallbacks(&Request, &Complete);
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
    for (int i = 0; i < 100; ++i) mstxMarkA("after a bad buffer", nullptr);
    msptiActivityFlushAll(1);
    for (int i = 0; i < 100; ++i) mstxMarkA("after a bad buffer", nullptr);
    msptiActivityFlushAll(1);

    std::lock_guard<std::mutex> lock(g_client.mutex);
    int bad_returns = 0;
    for (auto &[buffer, valid] : g_client.completed) {
        if (buffer != g_client.bad) continue;
        ++bad_returns;
        EXPECT_EQ(valid, 0u);
    }
    EXPECT_EQ(bad_returns, 1);
    msptiExtActivityStats s{};
    ASSERT_EQ(msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &s), MSPTI_SUCCESS);
    EXPECT_EQ(s.produced, 200u);
    EXPECT_EQ(s.produced, s.delivered + s.dropped);
    EXPECT_EQ(s.delivered, g_client.records);
    EXPECT_GE(g_client.records, 100u);  // the second flush, at least, found good buffers
}

}  // namespace

TEST(BufferContract, AZeroSizeBufferIsHandedBackThroughComplete) {
    static uint64_t storage[8];
    g_client.bad = reinterpret_cast<uint8_t *>(storage);
    g_client.bad_size = 0;
    ExpectBadBufferHandedBackEmpty();
}

TEST(BufferContract, AMisalignedBufferIsHandedBackEmpty) {
    static uint64_t storage[kGoodSize / 8 + 1];
    g_client.bad = reinterpret_cast<uint8_t *>(storage) + 4;
    g_client.bad_size = kGoodSize;
    ExpectBadBufferHandedBackEmpty();
}

// One record is 56 bytes: a 16-byte buffer cannot hold any, so it comes back empty and what it
// was asked for is dropped (counted), not written past its end.
TEST(BufferContract, ABufferSmallerThanARecordIsHandedBackEmpty) {
    alignas(8) static uint8_t storage[16];
    g_client.bad = storage;
    g_client.bad_size = sizeof(storage);
    ExpectBadBufferHandedBackEmpty();
    msptiExtActivityStats s{};
    ASSERT_EQ(msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &s), MSPTI_SUCCESS);
    EXPECT_GE(s.dropped, 1u);
}

// maxNumRecords is accepted and ignored, as in msPTI: a buffer is filled by its size alone, so a
// client that sets it loses nothing and gets more records per buffer than it named.
TEST(BufferContract, ANonZeroMaxNumRecordsIsIgnored) {
    g_max_records = 3;
    g_client.bad_given = true;  // good buffers only
    msptiActivityRegisterCallbacks(&Request, &Complete);
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
    for (int i = 0; i < 50; ++i) mstxMarkA("capped?", nullptr);
    msptiActivityFlushAll(1);
    msptiExtActivityStats s{};
    ASSERT_EQ(msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &s), MSPTI_SUCCESS);
    EXPECT_EQ(s.produced, 50u);
    EXPECT_EQ(s.delivered, 50u);
    EXPECT_EQ(s.dropped, 0u);
    std::lock_guard<std::mutex> lock(g_client.mutex);
    EXPECT_EQ(g_client.records, 50u);
    size_t most = 0;
    for (auto &[buffer, valid] : g_client.completed)
        most = std::max(most, valid / msptiExtRecordSize(MSPTI_ACTIVITY_KIND_MARKER));
    EXPECT_GT(most, g_max_records);
}
