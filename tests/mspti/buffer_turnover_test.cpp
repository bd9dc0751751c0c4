// Buffers turning over (docs/architecture.md, "Client buffers ahead of need"): the engine asks
// for the next client buffer on its worker, ahead of need, with its pages faulted in; the
// contract stays as it was. A client may free every buffer in its complete callback, and one
// whose request callback declines now and then (NULL) or gives an unusable buffer (size 0) is
// counted exactly: delivered + dropped == marked, and every buffer given comes back once.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"

namespace {

// Each test runs in a process of its own (gtest_discover_tests), so the client is global.
struct Client {
    size_t bytes = 1 << 20;
    int decline_every = 0;  // every Nth request returns NULL (0: never)
    int zero_size_every = 0;  // every Nth request returns a buffer of size 0 (0: never)
    std::mutex mutex;
    uint64_t requests = 0;  // request callbacks run
    uint64_t given = 0;  // buffers handed to the engine (size 0 ones included)
    uint64_t completes = 0;
    uint64_t records = 0;
    std::map<std::string, uint64_t> by_name;
    std::set<uint8_t *> out;  // given and not yet back
    std::set<uint8_t *> zero_size;  // of those, the ones given with size 0
    uint64_t zero_size_back = 0;
    uint64_t bad_returns = 0;  // a buffer back that was not out, or a size-0 one with records
    uint8_t *last = nullptr;
    std::thread::id producer;  // requests run on this thread are counted
    uint64_t producer_requests = 0;
};
Client g;

void Request(uint8_t **buffer, size_t *size, size_t *max_records) {
    *max_records = 0;
    std::lock_guard<std::mutex> lock(g.mutex);
    ++g.requests;
    if (std::this_thread::get_id() == g.producer) ++g.producer_requests;
    if (g.decline_every != 0 && g.requests % g.decline_every == 0) {
        *buffer = nullptr;
        *size = 0;
        return;
    }
    *buffer = static_cast<uint8_t *>(std::malloc(g.bytes));
    *size = g.bytes;
    if (g.zero_size_every != 0 && g.requests % g.zero_size_every == 0) {
        *size = 0;
        g.zero_size.insert(*buffer);
    }
    ++g.given;
    g.out.insert(*buffer);
    g.last = *buffer;
}

void Complete(uint8_t *buffer, size_t, size_t valid) {
    std::map<std::string, uint64_t> names;
    uint64_t n = 0;
    msptiActivity *record = nullptr;
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
        ++n;
        if (record->kind == MSPTI_ACTIVITY_KIND_MARKER) ++names[reinterpret_cast<msptiActivityMarker *>(record)->name];
    }
    {
        std::lock_guard<std::mutex> lock(g.mutex);
        ++g.completes;
        g.records += n;
        for (auto &[name, count] : names) g.by_name[name] += count;
        if (g.out.erase(buffer) != 1) ++g.bad_returns;
        if (g.zero_size.erase(buffer) == 1) {
            ++g.zero_size_back;
            if (valid != 0) ++g.bad_returns;
        }
    }
    std::free(buffer);  // the client frees it here, as msPTI's samples do
}

// Polls `condition` under the client's lock until it holds; false after 60 s (a hang).
template <typename Condition>
bool WaitFor(Condition condition) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(g.mutex);
            if (condition()) return true;
        }
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::yield();
    }
}

msptiExtActivityStats MarkerStats() {
    msptiExtActivityStats s{};
    EXPECT_EQ(msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &s), MSPTI_SUCCESS);
    return s;
}

void Start() {
    ASSERT_EQ(msptiActivityRegisterCallbacks(&Request, &Complete), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
}

uint64_t EnvCount(const char *name, uint64_t fallback) {
    const char *text = std::getenv(name);
    return text != nullptr && std::strtoull(text, nullptr, 10) > 0 ? std::strtoull(text, nullptr, 10) : fallback;
}

// 4 threads, each marking with its own name; returns the marks made per thread.
uint64_t MarkFromFourThreads(uint64_t total) {
    const uint64_t each = total / 4;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([t, each] {
            const std::string name = "thread " + std::to_string(t);
            for (uint64_t i = 0; i < each; ++i) mstxMarkA(name.c_str(), nullptr);
        });
    for (std::thread &t : threads) t.join();
    return each;
}

}  // namespace

// MSPTI_TURNOVER_MARKS sets the number of marks: 10,000,000 unless set (1,000,000 in the
// sanitizer builds' suites: tests/mspti/CMakeLists.txt).
TEST(BufferTurnover, ClientThatFreesEachBufferInItsCompleteCallbackLosesNothing) {
    g.bytes = size_t{8} << 20;  // msPTI's samples' size
    // Lossless: on a loaded machine the worker may fall behind four producers; they wait for it
    // (bounded) instead of dropping, so that any record lost is the engine's fault.
    ASSERT_EQ(msptiExtActivitySetBufferLimit(1u << 20, MSPTI_EXT_BUFFER_LIMIT_WAIT, 600000), MSPTI_SUCCESS);
    Start();
    const uint64_t each = MarkFromFourThreads(EnvCount("MSPTI_TURNOVER_MARKS", 10000000));
    ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);

    msptiExtActivityStats s = MarkerStats();
    std::lock_guard<std::mutex> lock(g.mutex);
    EXPECT_EQ(s.produced, 4 * each);
    EXPECT_EQ(s.dropped, 0u);
    EXPECT_EQ(s.delivered, 4 * each);
    EXPECT_EQ(g.records, 4 * each);
    for (int t = 0; t < 4; ++t) EXPECT_EQ(g.by_name["thread " + std::to_string(t)], each) << "thread " << t;
    EXPECT_GE(g.completes, 4 * each * sizeof(msptiActivityMarker) / g.bytes);  // buffers did turn over
    EXPECT_TRUE(g.out.empty()) << g.out.size() << " buffers given were never handed back";
    EXPECT_EQ(g.bad_returns, 0u);
}

TEST(BufferTurnover, RequestsDeclinedOrGivenSizeZeroNowAndThenAreCountedExactly) {
    g.bytes = 64 << 10;  // small: many requests
    g.decline_every = 3;
    g.zero_size_every = 5;
    Start();
    const uint64_t each = MarkFromFourThreads(EnvCount("MSPTI_TURNOVER_DECLINE_MARKS", 400000));
    ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);

    msptiExtActivityStats s = MarkerStats();
    std::lock_guard<std::mutex> lock(g.mutex);
    EXPECT_EQ(s.produced, 4 * each);
    EXPECT_EQ(s.delivered + s.dropped, s.produced);
    EXPECT_EQ(s.delivered, g.records);  // the client read every record counted as delivered
    uint64_t by_name = 0;
    for (auto &[name, count] : g.by_name) by_name += count;
    EXPECT_EQ(by_name, g.records);
    EXPECT_GT(g.records, 0u);
    EXPECT_GT(g.requests / 3, 0u);  // some were declined
    EXPECT_GT(g.zero_size_back, 0u);  // some size-0 buffers were given, and came back
    EXPECT_TRUE(g.out.empty()) << g.out.size() << " buffers given were never handed back";
    EXPECT_TRUE(g.zero_size.empty());
    EXPECT_EQ(g.completes, g.given);
    EXPECT_EQ(g.bad_returns, 0u);
}

// The buffer that follows the one being filled is asked for on the worker, before the marking
// thread needs it, and its pages are made present there: the marking thread is idle while this
// test waits, so only the worker can ask for buffers beyond the one being filled, and only it
// can write their pages.
TEST(BufferTurnover, NextBufferIsAskedForAheadOfNeedOffTheMarkingThread) {
    g.bytes = 1 << 20;  // above malloc's mmap threshold: fresh, absent pages until written
    g.producer = std::this_thread::get_id();
    Start();
    for (int i = 0; i < 4096; ++i) mstxMarkA("ahead", nullptr);  // two quarter rings: a first buffer
    // One buffer being filled and two asked for ahead (main's engine stays at one: this fails).
    ASSERT_TRUE(WaitFor([] { return g.requests == 3 && g.completes == 0; }))
        << "requests " << g.requests << ", completes " << g.completes;
    uint8_t *ahead;
    {
        std::lock_guard<std::mutex> lock(g.mutex);
        EXPECT_LE(g.producer_requests, 1u);
        ahead = g.last;
    }
    // Its pages become present though nothing wrote a record there (mincore: resident).
    const long page = sysconf(_SC_PAGESIZE);
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(ahead) + page - 1) & ~uintptr_t(page - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(ahead) + g.bytes) & ~uintptr_t(page - 1);
    std::vector<unsigned char> resident((end - begin) / page);
    size_t absent = resident.size();
    EXPECT_TRUE(WaitFor([&] {
        if (mincore(reinterpret_cast<void *>(begin), end - begin, resident.data()) != 0) return false;
        absent = 0;
        for (unsigned char r : resident) absent += (r & 1) == 0;
        return absent == 0;
    })) << absent
        << " of " << resident.size() << " pages absent";

    // Then several buffers turn over with nothing lost, and all come back on the flush.
    const uint64_t marked = 4096 + 4 * (g.bytes / sizeof(msptiActivityMarker));
    for (uint64_t i = 4096; i < marked; ++i) mstxMarkA("ahead", nullptr);
    ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);
    msptiExtActivityStats s = MarkerStats();
    std::lock_guard<std::mutex> lock(g.mutex);
    EXPECT_GE(g.completes, 4u);
    EXPECT_EQ(s.produced, marked);
    EXPECT_EQ(s.delivered, marked);
    EXPECT_EQ(g.records, marked);
    EXPECT_TRUE(g.out.empty());
}
