// Buffers turning over (docs/architecture.md, "Client buffers ahead of need"): once the buffer
// being filled is half full, the engine asks for the next one on its worker, ahead of need, with
// its pages faulted in; the contract stays as it was. A client may free every buffer in its
// complete callback, and one whose request callback declines now and then (NULL) or gives an
// unusable buffer (size 0) is counted exactly: delivered + dropped == marked, and every buffer
// given comes back once by the flush at the end of collection (no kind enabled). A client sees
// the requests and completes msPTI's library would show it: one of each for a workload that fits
// one buffer, and no empty complete before the end of collection.
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
    uint64_t empty_completes = 0;  // completes with no record (valid == 0)
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
        if (valid == 0) ++g.empty_completes;
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

// The end of collection: no kind enabled, then a flush, which hands back every buffer.
void Finish() {
    ASSERT_EQ(msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);
}

// Marks that fill `fraction` of a buffer of the client's size (records only: one name each).
uint64_t MarksFilling(double fraction) {
    return static_cast<uint64_t>(fraction * static_cast<double>(g.bytes) / sizeof(msptiActivityMarker));
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
    Finish();

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
    Finish();

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

// The buffer that follows the one being filled is asked for on the worker once that one is half
// full, before the marking thread needs it, and its pages are made present there: the marking
// thread is idle while this test waits, so only the worker can ask for a buffer beyond the one
// being filled, and only it can write its pages.
TEST(BufferTurnover, NextBufferIsAskedForAheadOfNeedOffTheMarkingThread) {
    g.bytes = 1 << 20;  // above malloc's mmap threshold: fresh, absent pages until written
    g.producer = std::this_thread::get_id();
    Start();
    const uint64_t first = MarksFilling(0.7);  // past half of the first buffer
    for (uint64_t i = 0; i < first; ++i) mstxMarkA("ahead", nullptr);
    // One buffer being filled and one asked for ahead (main's engine stays at one: this fails).
    ASSERT_TRUE(WaitFor([] { return g.requests == 2 && g.completes == 0; }))
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

    // Then several buffers turn over with nothing lost, and all come back at the end.
    const uint64_t marked = first + 4 * MarksFilling(1.0);
    for (uint64_t i = first; i < marked; ++i) mstxMarkA("ahead", nullptr);
    Finish();
    msptiExtActivityStats s = MarkerStats();
    std::lock_guard<std::mutex> lock(g.mutex);
    EXPECT_GE(g.completes, 4u);
    EXPECT_EQ(s.produced, marked);
    EXPECT_EQ(s.delivered, marked);
    EXPECT_EQ(g.records, marked);
    EXPECT_TRUE(g.out.empty());
}

// msPTI's samples print each request and complete (msPTI's HCCL sample: one of each). A workload
// that fits well within one buffer must show exactly that: no buffer asked for ahead of need,
// none handed back empty, whichever flush comes first. (Asking ahead of need from the first
// record showed 3 of each.)
TEST(BufferTurnover, WorkloadWithinOneBufferSeesOneRequestAndOneComplete) {
    g.bytes = size_t{8} << 20;  // msPTI's samples' size
    Start();
    const uint64_t marks = MarksFilling(0.4);  // below the half that asks ahead
    for (uint64_t i = 0; i < marks; ++i) mstxMarkA("small", nullptr);
    ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);  // an ordinary flush: the kind still enabled
    {
        std::lock_guard<std::mutex> lock(g.mutex);
        EXPECT_EQ(g.requests, 1u);
        EXPECT_EQ(g.completes, 1u);
        EXPECT_EQ(g.empty_completes, 0u);
        EXPECT_EQ(g.records, marks);
        EXPECT_TRUE(g.out.empty());
    }
    Finish();  // nothing more to hand back
    std::lock_guard<std::mutex> lock(g.mutex);
    EXPECT_EQ(g.requests, 1u);
    EXPECT_EQ(g.completes, 1u);
}

// A workload of many buffers, flushed now and then while the kind stays enabled, each time with a
// buffer asked for ahead of need and not used yet: no flush hands that one back empty; it is kept
// for the records that follow (so at most one buffer stays out after an ordinary flush). At the
// end of collection it comes back, the one empty complete the client ever sees.
TEST(BufferTurnover, OrdinaryFlushesKeepTheBufferAskedForAheadAndTheEndHandsItBack) {
    g.bytes = 1 << 20;
    Start();
    const uint64_t per_round = MarksFilling(0.7);  // each round starts a buffer and fills it past half
    constexpr int kRounds = 6;
    for (int round = 0; round < kRounds; ++round) {
        for (uint64_t i = 0; i < per_round; ++i) mstxMarkA("many", nullptr);
        // The worker asks for the buffer to follow (nothing else would: the marking is done).
        ASSERT_TRUE(WaitFor([] { return g.out.size() == 2; }))
            << "round " << round << ": " << g.out.size() << " buffers out";
        ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);
        std::lock_guard<std::mutex> lock(g.mutex);
        EXPECT_EQ(g.empty_completes, 0u) << "round " << round;
        EXPECT_EQ(g.out.size(), 1u) << "round " << round;  // the one asked for ahead, kept
        EXPECT_EQ(g.completes, static_cast<uint64_t>(round) + 1);
        EXPECT_EQ(g.records, (round + 1) * per_round);
    }
    Finish();
    msptiExtActivityStats s = MarkerStats();
    std::lock_guard<std::mutex> lock(g.mutex);
    EXPECT_TRUE(g.out.empty()) << g.out.size() << " buffers given were never handed back";
    EXPECT_EQ(g.empty_completes, 1u);  // the last one asked for ahead, never used
    EXPECT_EQ(g.requests, static_cast<uint64_t>(kRounds) + 1);  // one a round, plus the first
    EXPECT_EQ(g.completes, g.given);
    EXPECT_EQ(s.delivered, kRounds * per_round);
    EXPECT_EQ(g.records, kRounds * per_round);
    EXPECT_EQ(g.bad_returns, 0u);
}
