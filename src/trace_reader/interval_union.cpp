// mspti_pft_union: the union of a selection of intervals (analyze's busy, kernel and
// collective sets), sorted and joined.
#include <algorithm>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

#include "pftrace_columns.h"

extern "C" __attribute__((visibility("default"))) int64_t mspti_pft_union(size_t n, const int64_t *start,
                                                                          const int64_t *end, const uint8_t *sel,
                                                                          int64_t *out_start, int64_t *out_end) {
    try {
        std::vector<std::pair<int64_t, int64_t>> iv;
        iv.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            if ((sel == nullptr || sel[i] != 0) && end[i] > start[i]) iv.emplace_back(start[i], end[i]);
        }
        const auto by_start = [](const auto &a, const auto &b) { return a.first < b.first; };
        if (!std::is_sorted(iv.begin(), iv.end(), by_start)) std::sort(iv.begin(), iv.end(), by_start);
        int64_t m = -1;
        for (const auto &[s, e] : iv) {
            if (m >= 0 && s <= out_end[m]) {  // touching or overlapping: one interval
                out_end[m] = std::max(out_end[m], e);
            } else {
                ++m;
                out_start[m] = s;
                out_end[m] = e;
            }
        }
        return m + 1;
    } catch (const std::bad_alloc &) {
        return -1;
    }
}
