// Marker names are copied into the buffers of their records and their interned copies freed, so a
// program that marks ever-new names ("step 1", "step 2", ...) keeps a flat memory footprint, and
// a name stays valid for as long as the client keeps the buffer of its record.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"

namespace {

// A client that checks every marker name during the callback and keeps nothing, or (hold mode)
// holds each buffer and keeps it for the test to read later.
struct Client {
    std::atomic<uint64_t> markers{0};
    std::atomic<uint64_t> bad_names{0};
    std::atomic<bool> hold{false};  // hold each buffer (the extension) and keep it
    std::atomic<bool> keep{false};  // keep each buffer, with no extension call
    std::mutex mutex;
    std::vector<std::pair<uint8_t *, size_t>> held;  // buffer, valid bytes
};
Client g_client;

void Request(uint8_t **buffer, size_t *size, size_t *max_records) {
    constexpr size_t kBytes = 1 << 20;
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBytes));
    *size = kBytes;
    *max_records = 0;
}

void Complete(uint8_t *buffer, size_t, size_t valid) {
    msptiActivity *record = nullptr;
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
        if (record->kind != MSPTI_ACTIVITY_KIND_MARKER) continue;
        auto *m = reinterpret_cast<msptiActivityMarker *>(record);
        g_client.markers.fetch_add(1);
        const char *name = m->name;
        if (m->flag == MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS && std::strncmp(name, "step ", 5) != 0 &&
            std::strncmp(name, "held ", 5) != 0)
            g_client.bad_names.fetch_add(1);
    }
    if (g_client.hold.load() || g_client.keep.load()) {
        if (g_client.hold.load()) {
            EXPECT_EQ(msptiExtActivityHoldBuffer(buffer), MSPTI_SUCCESS);
        }
        std::lock_guard<std::mutex> lock(g_client.mutex);
        g_client.held.emplace_back(buffer, valid);
        return;
    }
    std::free(buffer);
}

size_t RssKb() {
    FILE *f = std::fopen("/proc/self/status", "r");
    char line[256];
    size_t kb = 0;
    while (f != nullptr && std::fgets(line, sizeof(line), f) != nullptr)
        if (std::sscanf(line, "VmRSS: %zu kB", &kb) == 1) break;
    if (f != nullptr) std::fclose(f);
    return kb;
}

msptiExtNameStats NameStats() {
    msptiExtNameStats stats{};
    EXPECT_EQ(msptiExtMarkerGetNameStats(&stats), MSPTI_SUCCESS);
    return stats;
}

// Flushes until every retired name is freed (or 10 s pass). A flush frees the names retired
// before it; names sealed by a worker round still in progress are freed once that round has
// drained. The worker may be descheduled inside the round (in the client's request callback) for
// longer than many flushes take on a loaded machine, so the bound is time, and each retry yields.
msptiExtNameStats FlushUntilReclaimed() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    msptiExtNameStats stats{};
    for (;;) {
        msptiActivityFlushAll(1);
        stats = NameStats();
        if (stats.retired == 0 || std::chrono::steady_clock::now() > deadline) break;
        std::this_thread::sleep_for(std::chrono::microseconds(200));  // let the worker finish its round
    }
    return stats;
}

// Marks `count` distinct names from one reused buffer, as f"step {i}" does.
void MarkUniqueNames(const char *prefix, size_t first, size_t count) {
    char name[64];
    for (size_t i = first; i < first + count; ++i) {
        std::snprintf(name, sizeof(name), "%s %zu", prefix, i);
        mstxMarkA(name, nullptr);
    }
}

class MarkerNames : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(msptiActivityRegisterCallbacks(&Request, &Complete), MSPTI_SUCCESS);
        ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
    }
    void TearDown() override {
        msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
        msptiActivityFlushAll(1);
    }
};

}  // namespace

TEST_F(MarkerNames, EverNewNamesKeepMemoryFlat) {
    constexpr size_t kWarmUp = 200000, kRun = 1000000;
    MarkUniqueNames("step", 0, kWarmUp);
    msptiExtNameStats warm = FlushUntilReclaimed();
    size_t rss_before = RssKb();
    MarkUniqueNames("step", kWarmUp, kRun);
    msptiExtNameStats after = FlushUntilReclaimed();
    size_t rss_after = RssKb();
    std::printf("RSS %zu kB -> %zu kB over %zu unique names; names: %llu live, %llu bytes, %llu reclaimed\n",
                rss_before, rss_after, kRun, static_cast<unsigned long long>(after.live),
                static_cast<unsigned long long>(after.bytes), static_cast<unsigned long long>(after.reclaimed));
    EXPECT_EQ(g_client.markers.load(), kWarmUp + kRun);
    EXPECT_EQ(g_client.bad_names.load(), 0u);
    // Only the names a thread caches are kept (64 per thread), whatever ran before.
    EXPECT_EQ(after.retired, 0u);
    EXPECT_LE(after.live, 64u);
    EXPECT_LE(after.bytes, 64u * 300u);
    EXPECT_GE(after.reclaimed - warm.reclaimed, kRun - 64);
#if !defined(__SANITIZE_ADDRESS__)  // ASan keeps freed memory in quarantine
    // Interning each name for good would take about 70 MB here.
    EXPECT_LT(rss_after, rss_before + 24 * 1024) << "RSS grew by " << (rss_after - rss_before) << " kB";
#endif
}

// A client that keeps its buffers and reads them after later flushes needs no extension call:
// each name lives in the buffer of its record, while the interned copies are freed.
TEST_F(MarkerNames, KeptBuffersKeepTheirNamesWithoutAHold) {
    g_client.keep.store(true);
    MarkUniqueNames("held", 0, 1000);
    msptiActivityFlushAll(1);
    g_client.keep.store(false);
    MarkUniqueNames("step", 0, 1000);  // later buffers are handed back and freed
    msptiExtNameStats stats = FlushUntilReclaimed();
    EXPECT_EQ(stats.retired, 0u);  // nothing waits for the kept buffers
    EXPECT_LE(stats.live, 64u);
    std::vector<std::pair<uint8_t *, size_t>> kept;
    {
        std::lock_guard<std::mutex> lock(g_client.mutex);
        kept.swap(g_client.held);
    }
    ASSERT_FALSE(kept.empty());
    size_t index = 0;
    for (auto [buffer, valid] : kept) {
        msptiActivity *record = nullptr;
        while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
            auto *m = reinterpret_cast<msptiActivityMarker *>(record);
            EXPECT_EQ(std::string(m->name), "held " + std::to_string(index++));
            // The copy lies in the buffer, past the records.
            EXPECT_GE(reinterpret_cast<const uint8_t *>(m->name), buffer + valid);
        }
        std::free(buffer);
    }
    EXPECT_EQ(index, 1000u);
}

// A thread's name cache is keyed by the message's address, so a reused buffer whose text changes
// must be told apart by its text: short names are compared 16 bytes at a time (bytes after the
// NUL ignored), and a message whose 16 bytes would cross into the next page is compared byte by
// byte (the page after it is made unreadable: a read past the NUL there would crash the test).
// Every record must carry the text its message held when it was marked.
TEST_F(MarkerNames, AReusedBufferWhoseShortTextChangesGivesEachText) {
    g_client.keep.store(true);
    std::vector<std::string> expected;
    char reused[64];
    std::memset(reused, 'x', sizeof(reused));  // bytes after each NUL are not zero
    for (const char *text : {"abc", "abd", "ab", "abc", "", "a", "abcdefghijklmno", "abcdefghijklmnp",
                             "abcdefghijklmnop", "abcdefghijklmnoq", "abcdefghijklmno", "abc"}) {
        std::memcpy(reused, text, std::strlen(text) + 1);
        for (int i = 0; i < 3; ++i) {  // the first mark interns, the next two hit the cache
            mstxMarkA(reused, nullptr);
            expected.emplace_back(text);
        }
    }
    const long page = sysconf(_SC_PAGESIZE);
    auto *pages =
        static_cast<char *>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(pages, MAP_FAILED);
    ASSERT_EQ(mprotect(pages + page, page, PROT_NONE), 0);
    char *at_end = pages + page - 3;  // "pg" and its NUL end the readable page
    for (const char *text : {"pg", "ph", "pg"}) {
        std::memcpy(at_end, text, 3);
        for (int i = 0; i < 3; ++i) {
            mstxMarkA(at_end, nullptr);
            expected.emplace_back(text);
        }
    }
    msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
    msptiActivityFlushAll(1);
    g_client.keep.store(false);
    std::vector<std::pair<uint8_t *, size_t>> kept;
    {
        std::lock_guard<std::mutex> lock(g_client.mutex);
        kept.swap(g_client.held);
    }
    std::vector<std::string> got;
    for (auto [buffer, valid] : kept) {
        msptiActivity *record = nullptr;
        while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
            const char *name = reinterpret_cast<msptiActivityMarker *>(record)->name;
            got.emplace_back(name);
        }
        std::free(buffer);
    }
    EXPECT_EQ(got, expected);
    munmap(pages, 2 * page);
}

// The hold extension is kept for clients written against it: still checked, now without effect.
TEST_F(MarkerNames, HoldAndReleaseAreStillChecked) {
    EXPECT_EQ(msptiExtActivityHoldBuffer(nullptr), MSPTI_ERROR_INVALID_PARAMETER);
    uint8_t not_a_buffer[8];
    EXPECT_EQ(msptiExtActivityHoldBuffer(not_a_buffer), MSPTI_ERROR_INVALID_PARAMETER);  // not in its callback
    EXPECT_EQ(msptiExtActivityReleaseBuffer(not_a_buffer), MSPTI_ERROR_INVALID_PARAMETER);
    g_client.hold.store(true);
    MarkUniqueNames("held", 0, 1000);
    msptiActivityFlushAll(1);
    g_client.hold.store(false);
    std::vector<std::pair<uint8_t *, size_t>> held;
    {
        std::lock_guard<std::mutex> lock(g_client.mutex);
        held.swap(g_client.held);
    }
    ASSERT_FALSE(held.empty());
    for (auto [buffer, valid] : held) {
        EXPECT_EQ(msptiExtActivityReleaseBuffer(buffer), MSPTI_SUCCESS);
        EXPECT_EQ(msptiExtActivityReleaseBuffer(buffer), MSPTI_ERROR_INVALID_PARAMETER);  // once
        std::free(buffer);
    }
}

// Eight threads marking ever-new names: memory stays flat (names are freed at each full drain,
// whoever holds buffers), and every name is read back in its callback.
TEST_F(MarkerNames, EightThreadsOfEverNewNamesKeepMemoryFlat) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    constexpr size_t kPerThread = 50000;  // instrumented: fewer names, and RSS is not checked
#else
    constexpr size_t kPerThread = 1250000;  // 10 M names in all
#endif
    constexpr size_t kThreads = 8;
    auto run = [](const char *prefix, size_t per_thread) {
        std::vector<std::thread> threads;
        for (size_t t = 0; t < kThreads; ++t)
            threads.emplace_back([t, prefix, per_thread] { MarkUniqueNames(prefix, t * per_thread, per_thread); });
        for (auto &thread : threads) thread.join();
    };
    // No limit on buffers in flight: a record dropped there would read as a missing name.
    size_t limit;
    msptiExtBufferLimitPolicy policy;
    uint32_t wait_ms;
    ASSERT_EQ(msptiExtActivityGetBufferLimit(&limit, &policy, &wait_ms), MSPTI_SUCCESS);
    ASSERT_EQ(msptiExtActivitySetBufferLimit(1u << 20, policy, wait_ms), MSPTI_SUCCESS);
    uint64_t markers_before = g_client.markers.load();
    run("step", kPerThread / 10);  // warm-up: the allocator's arenas of eight threads
    FlushUntilReclaimed();
    size_t rss_before = RssKb();
    run("step", kPerThread);
    msptiExtNameStats after = FlushUntilReclaimed();
    size_t rss_after = RssKb();
    std::printf("RSS %zu kB -> %zu kB over %zu unique names from %zu threads; %llu live, %llu reclaimed\n", rss_before,
                rss_after, kThreads * kPerThread, kThreads, static_cast<unsigned long long>(after.live),
                static_cast<unsigned long long>(after.reclaimed));
    EXPECT_EQ(msptiExtActivitySetBufferLimit(limit, policy, wait_ms), MSPTI_SUCCESS);
    EXPECT_EQ(g_client.markers.load() - markers_before, kThreads * (kPerThread + kPerThread / 10));
    EXPECT_EQ(g_client.bad_names.load(), 0u);
    EXPECT_EQ(after.retired, 0u);
    EXPECT_LE(after.live, 64u);  // the eight threads are gone with their caches: the main thread's may remain
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    EXPECT_LT(rss_after, rss_before + 24 * 1024) << "RSS grew by " << (rss_after - rss_before) << " kB";
#endif
}
