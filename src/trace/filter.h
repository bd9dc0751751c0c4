// The time window (--delay/--duration) and the capture range (--capture-range NAME): decides
// which records are written. Records must come in start order (markers first on ties).
// A capture range keeps what was launched inside it: host records by their start, device work
// (kernels, copies, collectives) by the launch with the same correlation id, however late it runs.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "config.h"
#include "record.h"

namespace mspti_trace {

class Filter {
public:
    explicit Filter(const Config &config);
    bool keep(const Record &r);
    uint64_t filtered() const { return filtered_; }

private:
    bool in_window(uint64_t t) const { return t >= begin_ && t < end_; }
    bool in_capture(uint64_t t) const;
    bool decide(const Record &r);
    bool captured(const Record &r);

    uint64_t begin_, end_;
    std::string capture_;
    std::vector<std::pair<uint64_t, uint64_t>> intervals_;  // capture ranges seen; open ones end at UINT64_MAX
    std::unordered_map<uint64_t, size_t> open_captures_;  // marker id -> index in intervals_
    // Ranges whose start was kept (common::range_key): their end is kept too. Not a pairing: the
    // filter only carries the start's decision to its end; the timeline pairs them.
    std::unordered_set<uint64_t> kept_starts_;
    // Correlation id -> whether the first host record carrying it (the launch) started inside a
    // capture range; the oldest ids are forgotten first.
    std::unordered_map<uint64_t, bool> launches_;
    std::deque<uint64_t> launch_order_;
    uint64_t filtered_ = 0;
};

}  // namespace mspti_trace
