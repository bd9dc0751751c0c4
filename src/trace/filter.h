// The time window (--delay/--duration) and the capture range (--capture-range NAME): decides
// which records are written. Records must come in start order (markers first on ties).
#pragma once

#include <cstdint>
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

    uint64_t begin_, end_;
    std::string capture_;
    std::vector<std::pair<uint64_t, uint64_t>> intervals_;  // capture ranges seen; open ones end at UINT64_MAX
    std::unordered_map<uint64_t, size_t> open_captures_;  // marker id -> index in intervals_
    std::unordered_set<uint64_t> kept_starts_;  // ranges whose start was kept (key: id, source)
    uint64_t filtered_ = 0;
};

}  // namespace mspti_trace
