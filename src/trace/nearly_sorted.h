// Sorting for keys that arrive nearly in order (records come a few places off their start order,
// a range's slice comes when the range ends): an insertion sort while it stays cheap, std::sort
// once it does not. For a strict total order the results are the same as std::sort's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace mspti_trace {

template <class It>
void sort_nearly_sorted(It first, It last) {
    const size_t n = static_cast<size_t>(std::distance(first, last));
    if (n < 2) return;
    const size_t limit = 8 * n + 64;  // element moves before it gives up on insertion
    size_t moves = 0;
    for (It i = std::next(first); i != last; ++i) {
        if (!(*i < *std::prev(i))) continue;
        auto v = std::move(*i);
        It j = i;
        do {
            *j = std::move(*std::prev(j));
            --j;
            ++moves;
        } while (j != first && v < *std::prev(j));
        *j = std::move(v);
        if (moves > limit) {
            std::sort(first, last);
            return;
        }
    }
}

// Sorts `keys` made of consecutive groups, keys[bounds[i]..bounds[i+1]), each nearly sorted on its
// own (one producer's records in arrival order): each group alone, then merged pairwise, in
// n log(groups) rather than n log n. `scratch` is reused memory.
template <class T>
void sort_nearly_sorted_groups(std::vector<T> &keys, std::vector<size_t> &bounds, std::vector<T> &scratch) {
    for (size_t g = 0; g + 1 < bounds.size(); ++g)
        sort_nearly_sorted(keys.begin() + static_cast<long>(bounds[g]),
                           keys.begin() + static_cast<long>(bounds[g + 1]));
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());  // no empty groups
    scratch.resize(keys.size());
    while (bounds.size() > 2) {
        size_t out = 0;
        for (size_t g = 0; g + 1 < bounds.size(); g += 2) {
            auto a = keys.begin() + static_cast<long>(bounds[g]);
            auto b = keys.begin() + static_cast<long>(bounds[g + 1]);
            auto c = g + 2 < bounds.size() ? keys.begin() + static_cast<long>(bounds[g + 2]) : b;
            std::merge(a, b, b, c, scratch.begin() + static_cast<long>(bounds[g]));
            bounds[out++] = bounds[g];
        }
        bounds[out++] = keys.size();
        bounds.resize(out);
        keys.swap(scratch);
    }
}

}  // namespace mspti_trace
