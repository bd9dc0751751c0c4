// mspti_pft_group: durations summed per pair of keys (summary's tables), one hash lookup a row.
#include <algorithm>
#include <cstdint>
#include <new>
#include <vector>

#include "pftrace_columns.h"

namespace {

// (a, b) -> group index: open addressing, linear probing, kept at most half full.
class PairIndex {
public:
    // The group of key, added as `next` when new (throws std::bad_alloc when memory runs out).
    int64_t find_or_add(uint64_t key, int64_t next, bool &added) {
        if ((used_ + 1) * 2 > slots_.size()) grow();
        size_t i = mix(key) & (slots_.size() - 1);
        while (slots_[i].group >= 0) {
            if (slots_[i].key == key) {
                added = false;
                return slots_[i].group;
            }
            i = (i + 1) & (slots_.size() - 1);
        }
        slots_[i] = Slot{key, next};
        ++used_;
        added = true;
        return next;
    }

private:
    struct Slot {
        uint64_t key;
        int64_t group;
    };
    static size_t mix(uint64_t k) {
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        return static_cast<size_t>(k);
    }
    void grow() {
        std::vector<Slot> old(std::max<size_t>(64, slots_.size() * 2), Slot{0, -1});
        old.swap(slots_);
        for (const Slot &s : old) {
            if (s.group < 0) continue;
            size_t i = mix(s.key) & (slots_.size() - 1);
            while (slots_[i].group >= 0) i = (i + 1) & (slots_.size() - 1);
            slots_[i] = s;
        }
    }
    std::vector<Slot> slots_;
    size_t used_ = 0;
};

}  // namespace

extern "C" __attribute__((visibility("default"))) int64_t mspti_pft_group(
    size_t n, const int32_t *a, const int32_t *b, const int64_t *start, const int64_t *end, const int64_t *bytes,
    const uint8_t *sel, int32_t *out_a, int32_t *out_b, int64_t *out_count, int64_t *out_total, int64_t *out_min,
    int64_t *out_max, int64_t *out_bytes) {
    try {
        PairIndex index;
        int64_t groups = 0;
        for (size_t i = 0; i < n; ++i) {
            if (sel != nullptr && sel[i] == 0) continue;
            const int32_t ka = a != nullptr ? a[i] : 0;
            const uint64_t key = static_cast<uint64_t>(static_cast<uint32_t>(ka)) << 32 | static_cast<uint32_t>(b[i]);
            // Unsigned arithmetic: wraps as numpy's int64 does, without undefined behaviour.
            const int64_t dur = static_cast<int64_t>(static_cast<uint64_t>(end[i]) - static_cast<uint64_t>(start[i]));
            const int64_t nb = bytes != nullptr ? bytes[i] : 0;
            bool added = false;
            const int64_t g = index.find_or_add(key, groups, added);
            if (added) {
                ++groups;
                out_a[g] = ka;
                out_b[g] = b[i];
                out_count[g] = 1;
                out_total[g] = dur;
                out_min[g] = out_max[g] = dur;
                out_bytes[g] = nb;
                continue;
            }
            ++out_count[g];
            out_total[g] = static_cast<int64_t>(static_cast<uint64_t>(out_total[g]) + static_cast<uint64_t>(dur));
            out_min[g] = std::min(out_min[g], dur);
            out_max[g] = std::max(out_max[g], dur);
            out_bytes[g] = static_cast<int64_t>(static_cast<uint64_t>(out_bytes[g]) + static_cast<uint64_t>(nb));
        }
        return groups;
    } catch (const std::bad_alloc &) {
        return -1;
    }
}
