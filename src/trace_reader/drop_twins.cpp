// mspti_pft_drop_twins: an API call's NODE_API twin (same name, start and end) dropped from a
// selection, with a hash of the kept category's rows.
#include <cstdint>
#include <new>
#include <vector>

#include "pftrace_columns.h"

extern "C" __attribute__((visibility("default"))) int64_t mspti_pft_drop_twins(size_t n, const int32_t *cat,
                                                                               const int32_t *name,
                                                                               const int64_t *start, const int64_t *end,
                                                                               int32_t keep_cat, int32_t drop_cat,
                                                                               uint8_t *sel) {
    try {
        // The keep_cat rows, by (name, start, end): open addressing over row indices, half full at most.
        size_t kept = 0;
        for (size_t i = 0; i < n; ++i) kept += cat[i] == keep_cat;
        if (kept == 0) return 0;
        size_t size = 64;
        while (size < kept * 2) size *= 2;
        std::vector<int64_t> slots(size, -1);
        const auto hash = [&](size_t i) {
            uint64_t h = static_cast<uint64_t>(static_cast<uint32_t>(name[i])) * 0x9E3779B97F4A7C15ULL;
            h ^= static_cast<uint64_t>(start[i]) + 0x7F4A7C15ULL + (h << 6) + (h >> 2);
            h ^= static_cast<uint64_t>(end[i]) + 0x9E3779B9ULL + (h << 6) + (h >> 2);
            h ^= h >> 33;
            h *= 0xff51afd7ed558ccdULL;
            h ^= h >> 33;
            return static_cast<size_t>(h) & (size - 1);
        };
        const auto same = [&](size_t i, size_t j) {
            return name[i] == name[j] && start[i] == start[j] && end[i] == end[j];
        };
        for (size_t i = 0; i < n; ++i) {
            if (cat[i] != keep_cat) continue;
            size_t h = hash(i);
            while (slots[h] >= 0 && !same(static_cast<size_t>(slots[h]), i)) h = (h + 1) & (size - 1);
            if (slots[h] < 0) slots[h] = static_cast<int64_t>(i);
        }
        int64_t dropped = 0;
        for (size_t i = 0; i < n; ++i) {
            if (cat[i] != drop_cat || sel[i] == 0) continue;
            size_t h = hash(i);
            while (slots[h] >= 0) {
                if (same(static_cast<size_t>(slots[h]), i)) {
                    sel[i] = 0;
                    ++dropped;
                    break;
                }
                h = (h + 1) & (size - 1);
            }
        }
        return dropped;
    } catch (const std::bad_alloc &) {
        return -1;
    }
}
