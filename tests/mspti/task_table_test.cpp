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

uint64_t put(Table &t, uint64_t key, uint64_t value) {
    uint64_t at = t.claim(key);
    if (at == Table::kNone) return at;
    t.value(at) = value;
    t.publish(at, key);
    return at;
}

TEST(TaskTable, ConsecutiveTasksOfAStreamTakeConsecutiveSlots) {
    for (uint32_t task = 0; task < 200; ++task) {
        uint64_t a = Table::make_key(2, 7, task, false), b = Table::make_key(2, 7, task + 1, false);
        EXPECT_EQ(Table::home(b), (Table::home(a) + 1) % Table::kSize) << "task " << task;
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
