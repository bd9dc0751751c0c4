// TaskTable (src/mspti/device/task_table.h): the device tasks in flight, found in one slot in the
// common case. Checked against a plain map of what was put in: keys sharing a home slot, entries
// displaced past it and removed in any order, a full probe window, and 8 threads at once (for TSan).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <thread>
#include <vector>

#include "device/task_table.h"

namespace {

using Table = mspti::device::TaskTable<uint64_t, 64, 8>;

// `n` distinct keys with the same home slot as `key` (the oracle: Table::home itself).
std::vector<uint64_t> same_home(uint64_t key, size_t n) {
    std::vector<uint64_t> out;
    for (uint32_t task = 0; out.size() < n && task < 1000000; ++task) {
        uint64_t k = Table::make_key(1, 3, task, true);
        if (k != key && Table::home(k) == Table::home(key)) out.push_back(k);
    }
    return out;
}

template <typename T>
uint64_t put(T &t, uint64_t key, uint64_t value) {
    uint64_t at = t.claim(key);
    if (at == T::kNone) return at;
    t.value(at) = value;
    t.publish(at, key);
    return at;
}

TEST(TaskTable, ConsecutiveTasksOfAStreamTakeHomesAFixedStrideApart) {
    for (uint32_t task = 0; task < 200; ++task) {
        uint64_t a = Table::make_key(2, 7, task, false), b = Table::make_key(2, 7, task + 1, false);
        EXPECT_EQ(Table::home(b), (Table::home(a) + Table::kStride) % Table::kSize) << "task " << task;
    }
    std::vector<bool> taken(Table::kSize);
    for (uint32_t task = 0; task < Table::kSize; ++task) {
        uint64_t h = Table::home(Table::make_key(2, 7, task, false));
        EXPECT_FALSE(taken[h]) << "task " << task << " shares home " << h;
        taken[h] = true;
    }
    EXPECT_NE(Table::make_key(2, 7, 5, false), Table::make_key(3, 7, 5, false));
    EXPECT_NE(Table::make_key(2, 7, 5, false), Table::make_key(2, 8, 5, false));
    EXPECT_EQ(Table::make_key(2, 7, 5, false), Table::make_key(2, 7, 5 + 65536, false)) << "16-bit task ids";
    EXPECT_NE(Table::make_key(2, 7, 5, true), Table::make_key(2, 7, 5 + 65536, true)) << "32-bit task ids";
}

TEST(TaskTable, DisplacedEntriesAreFoundWhateverIsRemovedFirst) {
    Table t;
    const uint64_t first = Table::make_key(1, 3, 11, true);
    std::vector<uint64_t> keys = same_home(first, 5);
    ASSERT_EQ(keys.size(), 5u);
    keys.insert(keys.begin(), first);
    std::map<uint64_t, uint64_t> oracle;
    for (uint64_t k : keys) {
        ASSERT_NE(put(t, k, k * 3), Table::kNone);
        oracle[k] = k * 3;
    }
    EXPECT_EQ(t.find(first), Table::home(first)) << "the first takes its home slot";
    // Remove the home slot's entry and then every other one, checking the rest after each removal.
    for (size_t i = 0; i < keys.size(); ++i) {
        uint64_t k = keys[(i * 4) % keys.size()];
        if (!oracle.count(k)) k = oracle.begin()->first;
        uint64_t at = t.find(k);
        ASSERT_NE(at, Table::kNone) << k;
        ASSERT_TRUE(t.remove(at, k));
        oracle.erase(k);
        EXPECT_EQ(t.find(k), Table::kNone) << "removed " << k;
        for (auto [key, value] : oracle) {
            uint64_t f = t.find(key);
            ASSERT_NE(f, Table::kNone) << "key " << key << " lost after removing " << k;
            EXPECT_EQ(t.value(f), value);
        }
    }
    EXPECT_EQ(t.count(), 0u);
    // Nothing displaced is left: a key of that home is placed at home again.
    EXPECT_EQ(put(t, keys[3], 1), Table::home(first));
}

TEST(TaskTable, AFullProbeWindowRefusesAndRecovers) {
    Table t;
    const uint64_t first = Table::make_key(1, 3, 21, true);
    std::vector<uint64_t> keys = same_home(first, 8);
    ASSERT_EQ(keys.size(), 8u);
    keys.insert(keys.begin(), first);
    for (size_t i = 0; i < 8; ++i) ASSERT_NE(put(t, keys[i], i), Table::kNone) << i;
    EXPECT_EQ(put(t, keys[8], 8), Table::kNone) << "8 probes, 8 taken";
    EXPECT_EQ(t.find(keys[8]), Table::kNone);
    for (size_t i = 0; i < 8; ++i) {
        uint64_t at = t.find(keys[i]);
        ASSERT_NE(at, Table::kNone) << i;
        EXPECT_EQ(t.value(at), i);
    }
    t.clear();
    EXPECT_EQ(t.count(), 0u);
    for (uint64_t k : keys) EXPECT_EQ(t.find(k), Table::kNone);
    EXPECT_EQ(put(t, keys[8], 8), Table::home(first)) << "clear() left no displaced count behind";
}

// Two streams of two devices whose homes start a few slots apart, each with 4,000 tasks in flight, in the
// table libmspti uses. When a stream's consecutive tasks took consecutive slots, the second stream's
// entries were displaced slot for slot onto the first one's, a run that outgrew the probe window: the
// virtual NPU's tasks of two devices lost their KERNEL records (counted as dropped) with 2,000 in flight.
TEST(TaskTable, StreamsWhoseHomesLieCloseKeepEveryEntry) {
    using Big = mspti::device::TaskTable<uint64_t, 1u << 16, 128>;
    static Big t;
    // The oracle for "close": Big::home itself, searched over stream ids of devices 0 and 1.
    uint64_t a = 0, b = 0, best = Big::kSize;
    for (uint32_t s0 = 0; s0 < 64; ++s0)
        for (uint32_t s1 = 0; s1 < 2048; ++s1) {
            uint64_t ka = Big::make_key(0, s0, 0, false), kb = Big::make_key(1, s1, 0, false);
            uint64_t gap = (Big::home(kb) - Big::home(ka)) & (Big::kSize - 1);
            if (gap > 0 && gap < best) best = gap, a = ka, b = kb;
        }
    ASSERT_LT(best, 64u) << "no two streams start close: the search found nothing to test";
    std::map<uint64_t, uint64_t> oracle;
    for (uint32_t task = 0; task < 4000; ++task)
        for (uint64_t base : {a, b}) {
            const uint64_t key = base | task;
            ASSERT_NE(put(t, key, key * 7), Big::kNone) << "task " << task << " of stream key " << base << " refused";
            oracle[key] = key * 7;
        }
    for (auto [key, value] : oracle) {
        uint64_t at = t.find(key);
        ASSERT_NE(at, Big::kNone) << key;
        EXPECT_EQ(t.value(at), value);
        ASSERT_TRUE(t.remove(at, key));
    }
    EXPECT_EQ(t.count(), 0u);
}

// 8 threads, each putting, finding and removing keys of its own stream; the streams' homes overlap.
TEST(TaskTable, EightThreadsKeepEveryEntry) {
    static Table t;
    std::atomic<uint64_t> lost{0}, refused{0};
    std::vector<std::thread> threads;
    for (uint32_t s = 0; s < 8; ++s) {
        threads.emplace_back([s, &lost, &refused] {
            for (uint32_t round = 0; round < 2000; ++round) {
                uint64_t keys[4];
                for (uint32_t i = 0; i < 4; ++i) {
                    keys[i] = Table::make_key(0, s, round * 4 + i, false);
                    if (put(t, keys[i], keys[i] ^ s) == Table::kNone) {
                        refused.fetch_add(1);
                        keys[i] = 0;
                    }
                }
                for (uint64_t k : keys) {
                    if (k == 0) continue;
                    uint64_t at = t.find(k);
                    if (at == Table::kNone || t.value(at) != (k ^ s) || !t.remove(at, k)) lost.fetch_add(1);
                }
            }
        });
    }
    for (auto &th : threads) th.join();
    EXPECT_EQ(lost.load(), 0u) << refused.load() << " puts refused (a full probe window)";
    EXPECT_EQ(t.count(), 0u);
}

}  // namespace
