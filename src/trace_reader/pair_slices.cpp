// BEGIN/END events paired per track into the slice columns, and the collectives' bytes,
// bandwidth and communicator taken from their args.
#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#include "decoder.h"

namespace mspti_trace::reader {

namespace {

// A track's events by time, equal times in file order. The writer writes each track nearly in
// time order: an insertion sort while it stays cheap (a track in order costs one comparison an
// event), std::stable_sort once it does not. Both are stable: the result is the same.
void sort_by_time(std::vector<uint32_t> &idx, const std::vector<Ev> &evs) {
    const size_t limit = 8 * idx.size() + 64;  // element moves before giving up on insertion
    size_t moves = 0;
    for (size_t i = 1; i < idx.size(); ++i) {
        const uint32_t v = idx[i];
        const uint64_t t = evs[v].ts;
        if (!(t < evs[idx[i - 1]].ts)) continue;
        size_t j = i;
        do {
            idx[j] = idx[j - 1];
            --j;
            ++moves;
        } while (j > 0 && t < evs[idx[j - 1]].ts);
        idx[j] = v;
        if (moves > limit) {
            std::stable_sort(idx.begin(), idx.end(), [&evs](uint32_t a, uint32_t b) { return evs[a].ts < evs[b].ts; });
            return;
        }
    }
}

}  // namespace

void Decoder::pair() {
    size_t n = 0;
    for (const auto &g : groups_) n += g.size() / 2;
    for (auto *v : {&s_.slice_start, &s_.slice_end, &s_.slice_arg_first, &s_.slice_bytes}) v->reserve(n);
    for (auto *v : {&s_.slice_group, &s_.slice_name, &s_.slice_cat, &s_.slice_arg_count, &s_.slice_comm}) {
        v->reserve(n);
    }
    s_.slice_bw.reserve(n);
    if (groups_.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) throw std::bad_alloc();
    s_.group_track.reserve(groups_.size());
    s_.group_has_track.reserve(groups_.size());
    for (const TrackKey &k : group_keys_) {
        s_.group_track.push_back(k.uuid);
        s_.group_has_track.push_back(k.has);
    }
    constexpr uint64_t kMaxTime = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    std::vector<uint32_t> stack;
    for (size_t g = 0; g < groups_.size(); ++g) {
        std::vector<uint32_t> &idx = groups_[g];
        sort_by_time(idx, evs_);
        stack.clear();
        for (const uint32_t i : idx) {
            if (evs_[i].begin) {
                stack.push_back(i);
                continue;
            }
            if (stack.empty()) continue;
            const Ev &b = evs_[stack.back()];
            stack.pop_back();
            if (b.ts > kMaxTime || evs_[i].ts > kMaxTime) {
                ++s_.n_bad_times;
                continue;
            }
            s_.slice_start.push_back(static_cast<int64_t>(b.ts));
            s_.slice_end.push_back(static_cast<int64_t>(evs_[i].ts));
            s_.slice_group.push_back(static_cast<int32_t>(g));
            s_.slice_name.push_back(b.name < 0 ? unknown_name_ : b.name);
            s_.slice_cat.push_back(b.cat < 0 ? no_cat_ : b.cat);
            const int64_t first = b.args < 0 ? -1 : arg_ranges_[b.args].first;
            const int32_t count = b.args < 0 ? 0 : arg_ranges_[b.args].second;
            s_.slice_arg_first.push_back(first);
            s_.slice_arg_count.push_back(count);
            if (b.cat >= 0 && std::find(wanted_cats_.begin(), wanted_cats_.end(), b.cat) != wanted_cats_.end()) {
                extras(first, count);
            } else {
                s_.slice_bytes.push_back(0);
                s_.slice_bw.push_back(std::numeric_limits<double>::quiet_NaN());
                s_.slice_comm.push_back(MSPTI_PFT_COMM_NONE);
            }
        }
        std::vector<uint32_t>().swap(idx);
    }
    std::vector<Ev>().swap(evs_);
}

// A collective's bytes, bandwidth and communicator from its args (pftrace_columns.h): the
// rules of reader_common.extras() and num(), which read them from a dict (the last key wins).
void Decoder::extras(int64_t first, int32_t count) {
    int64_t at_bytes = -1, at_bw = -1, at_comm = -1;
    for (int64_t i = first; i >= 0 && i < first + count; ++i) {
        const int32_t k = s_.arg_key[i];
        if (k == key_bytes_) {
            at_bytes = i;
        } else if (k == key_bw_) {
            at_bw = i;
        } else if (k == key_comm_) {
            at_comm = i;
        }
    }
    int64_t nbytes = 0;
    if (at_bytes >= 0) {
        const int64_t v = s_.arg_int[at_bytes];
        switch (s_.arg_type[at_bytes]) {
        case MSPTI_PFT_ARG_UINT: nbytes = v >= 0 ? v : 0; break;  // past INT64_MAX: out of range
        case MSPTI_PFT_ARG_INT: nbytes = v; break;
        case MSPTI_PFT_ARG_DOUBLE: {
            const double t = std::trunc(s_.arg_double[at_bytes]);  // NaN and inf fail both tests
            if (t >= -9223372036854775808.0 && t < 9223372036854775808.0) nbytes = static_cast<int64_t>(t);
            break;
        }
        default: break;
        }
    }
    double bw = std::numeric_limits<double>::quiet_NaN();
    if (at_bw >= 0) {
        switch (s_.arg_type[at_bw]) {
        case MSPTI_PFT_ARG_UINT: bw = static_cast<double>(static_cast<uint64_t>(s_.arg_int[at_bw])); break;
        case MSPTI_PFT_ARG_INT: bw = static_cast<double>(s_.arg_int[at_bw]); break;
        case MSPTI_PFT_ARG_DOUBLE: bw = s_.arg_double[at_bw]; break;
        default: break;
        }
    }
    int32_t comm = MSPTI_PFT_COMM_FROM_ROW;
    if (at_comm >= 0) {
        const int32_t t = s_.arg_type[at_comm];
        comm = t == MSPTI_PFT_ARG_STRING ? s_.arg_str[at_comm]
               : t == MSPTI_PFT_ARG_NONE ? MSPTI_PFT_COMM_FROM_ROW
                                         : MSPTI_PFT_COMM_NOT_STRING;
    }
    s_.slice_bytes.push_back(nbytes);
    s_.slice_bw.push_back(bw);
    s_.slice_comm.push_back(comm);
}

}  // namespace mspti_trace::reader
