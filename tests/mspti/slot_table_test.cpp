// SlotTable (src/mspti/common/slot_table.h), the lock-free table behind the open ranges, live
// allocations, HCCL ops and device-task slots. The multi-threaded cases are meant for TSan too.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "common/slot_table.h"

namespace {

using mspti::SlotTable;
using Small = SlotTable<std::atomic<uint64_t>, 64>;

TEST(SlotTable, ClaimPublishFindRemove) {
    Small t;
    uint64_t at = t.claim(5, 8);
    ASSERT_EQ(at, 5u);
    EXPECT_EQ(t.find(42, 5, 8), Small::kNone) << "a claimed slot is not findable before publish";
    t.value(at).store(420);
    t.publish(at, 42);
    uint64_t found = t.find(42, 5, 8);
    ASSERT_EQ(found, at);
    EXPECT_EQ(t.value(found).load(), 420u);
    EXPECT_EQ(t.count(), 1u);
    EXPECT_TRUE(t.remove(found, 42));
    EXPECT_FALSE(t.remove(found, 42)) << "a second remove of the same key loses";
    EXPECT_EQ(t.find(42, 5, 8), Small::kNone);
    EXPECT_EQ(t.count(), 0u);
}

TEST(SlotTable, ReservedKeysAreNeverStoredNorFound) {
    Small t;
    EXPECT_FALSE(Small::usable(Small::kFree));
    EXPECT_FALSE(Small::usable(Small::kClaimed));
    EXPECT_TRUE(Small::usable(1));
    // Every slot is free: looking up kFree must not match them, nor kClaimed a claimed slot.
    EXPECT_EQ(t.find(Small::kFree, 0, 64), Small::kNone);
    uint64_t at = t.claim(0, 1);
    ASSERT_EQ(at, 0u);
    EXPECT_EQ(t.find(Small::kClaimed, 0, 64), Small::kNone);
    EXPECT_EQ(t.count(), 0u) << "claimed, not published";
}

TEST(SlotTable, SearchesWrapAroundTheEnd) {
    Small t;
    uint64_t first = t.claim(62, 4);
    t.publish(first, 7);
    uint64_t second = t.claim(62, 4);
    t.publish(second, 8);
    uint64_t third = t.claim(62, 4);
    t.publish(third, 9);
    EXPECT_EQ(first, 62u);
    EXPECT_EQ(second, 63u);
    EXPECT_EQ(third, 0u);
    EXPECT_EQ(t.find(9, 62, 4), 0u);
    EXPECT_EQ(t.find(9, 62, 2), Small::kNone) << "outside the probed window";
}

TEST(SlotTable, AFullWindowRefusesAClaimAndAFreedSlotIsReused) {
    Small t;
    for (uint64_t k = 1; k <= 4; ++k) t.publish(t.claim(10, 4), k);
    EXPECT_EQ(t.claim(10, 4), Small::kNone);
    uint64_t at = t.find(3, 10, 4);
    t.release(at);
    EXPECT_EQ(t.claim(10, 4), at);
}

TEST(SlotTable, EvictionTakesAPublishedSlotOnlyIfItsKeyIsUnchanged) {
    Small t;
    uint64_t at = t.claim(0, 1);
    t.publish(at, 11);
    EXPECT_FALSE(t.try_claim(at, 12));
    EXPECT_TRUE(t.try_claim(at, 11));
    EXPECT_EQ(t.key(at), Small::kClaimed);
    EXPECT_FALSE(t.remove(at, 11)) << "the evicted key is gone";
    t.publish(at, 13);
    EXPECT_EQ(t.find(13, 0, 1), at);
}

// Threads insert, look up and remove their own keys in one shared window, so every claim competes
// with the others: each published key must be found with the value written before it.
TEST(SlotTable, ConcurrentInsertFindRemoveKeepValuesWithTheirKeys) {
    static SlotTable<std::atomic<uint64_t>, 256> t;
    constexpr int kThreads = 4;
    constexpr uint64_t kRounds = 20000;
    std::atomic<int> ready{0};
    std::atomic<uint64_t> full{0}, wrong{0};
    std::vector<std::thread> threads;
    for (int n = 0; n < kThreads; ++n) {
        threads.emplace_back([&, n] {
            ready.fetch_add(1);
            while (ready.load() < kThreads) std::this_thread::yield();
            for (uint64_t r = 1; r <= kRounds; ++r) {
                uint64_t key = (r << 8) | static_cast<uint64_t>(n + 1);
                uint64_t at = t.claim(0, 16);
                if (at == decltype(t)::kNone) {
                    full.fetch_add(1);
                    continue;
                }
                t.value(at).store(key * 3, std::memory_order_relaxed);
                t.publish(at, key);
                uint64_t found = t.find(key, 0, 16);
                if (found != at || t.value(found).load(std::memory_order_relaxed) != key * 3) wrong.fetch_add(1);
                if (!t.remove(found, key)) wrong.fetch_add(1);
            }
        });
    }
    for (std::thread &th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0u);
    EXPECT_EQ(full.load(), 0u) << "4 threads hold at most 4 of the 16 slots";
    EXPECT_EQ(t.count(), 0u);
}

// Several threads remove (or evict) the same key at once: exactly one of them wins each time.
TEST(SlotTable, ExactlyOneOfConcurrentRemovesAndEvictionsWins) {
    static SlotTable<std::atomic<uint64_t>, 64> t;
    constexpr int kThreads = 3;
    constexpr uint64_t kRounds = 2000;
    std::atomic<uint64_t> round{0};
    std::atomic<int> arrived{0};
    std::atomic<uint64_t> wins{0};
    std::vector<std::thread> threads;
    for (int n = 0; n < kThreads; ++n) {
        threads.emplace_back([&, n] {
            for (uint64_t r = 1; r <= kRounds; ++r) {
                while (round.load(std::memory_order_acquire) < r) std::this_thread::yield();
                uint64_t at = t.find(r, 0, 4);
                bool won = false;
                if (at != decltype(t)::kNone) {
                    won = n == 0 ? t.try_claim(at, r) : t.remove(at, r);
                    if (won && n == 0) t.release(at);  // the evictor frees what it took
                }
                if (won) wins.fetch_add(1);
                arrived.fetch_add(1, std::memory_order_acq_rel);
            }
        });
    }
    for (uint64_t r = 1; r <= kRounds; ++r) {
        while (arrived.load(std::memory_order_acquire) != static_cast<int>((r - 1) * kThreads))
            std::this_thread::yield();
        t.publish(t.claim(0, 4), r);
        round.store(r, std::memory_order_release);
    }
    for (std::thread &th : threads) th.join();
    EXPECT_EQ(wins.load(), kRounds);
    EXPECT_EQ(t.count(), 0u);
}

}  // namespace
