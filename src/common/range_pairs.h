// Pairs mstx range halves by key, in either order (an end may come before its start: records of
// different threads and the device arrive out of order), in a table of bounded size: when it is
// full the oldest open half is pushed out and handed to the caller. Header-only: the Monitor
// (src/monitor/range_table.*) and the trace tool's timeline (src/trace/timeline.cpp) both pair
// with it. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <utility>

namespace mspti::common {

/// A marker's pairing key: its id and whether it is a device half (host and device halves of
/// one range pair apart).
inline uint64_t range_key(uint64_t id, bool device) { return (id << 1) | (device ? 1u : 0u); }

/**
 * Open range halves: a start keeps a `Start` (what the caller needs of it), an end its timestamp.
 */
template <typename Start>
class RangePairs {
public:
    /// What adding a half did.
    enum class Added {
        kPaired,  ///< It met its other half, which left the table.
        kOpened,  ///< It waits in the table.
        kReplaced  ///< It replaced the same half with its key (msPTI's record of it is overwritten too).
    };

    /// At most `capacity` open halves (0 is taken as 1).
    explicit RangePairs(size_t capacity = SIZE_MAX) : capacity_(capacity == 0 ? 1 : capacity) {}

    /**
     * Adds a start. kPaired: `end` is its end's timestamp. `evicted(const Start *start, uint64_t
     * end)` is called for each half pushed out (start nullptr for an end).
     */
    template <typename Evicted>
    Added add_start(uint64_t key, const Start &start, uint64_t &end, Evicted &&evicted) {
        auto found = index_.find(key);
        if (found != index_.end()) {
            Entry &e = *found->second;
            if (!e.has_start) {
                end = e.end;
                erase(found);
                return Added::kPaired;
            }
            e.start = start;
            return Added::kReplaced;
        }
        make_room(evicted);
        open(Entry{key, true, start, 0});
        return Added::kOpened;
    }

    /// Adds an end at `ts`. kPaired: `start` is its start's.
    template <typename Evicted>
    Added add_end(uint64_t key, uint64_t ts, Start &start, Evicted &&evicted) {
        auto found = index_.find(key);
        if (found != index_.end()) {
            Entry &e = *found->second;
            if (e.has_start) {
                start = std::move(e.start);
                erase(found);
                return Added::kPaired;
            }
            e.end = ts;
            return Added::kReplaced;
        }
        make_room(evicted);
        open(Entry{key, false, Start{}, ts});
        return Added::kOpened;
    }

    /// Calls `f(const Start &)` for each start still waiting for its end, oldest first.
    template <typename F>
    void for_each_open_start(F &&f) const {
        for (const Entry &e : order_)
            if (e.has_start) f(e.start);
    }

    void clear() {
        index_.clear();
        order_.clear();
    }

    /// Open halves held now.
    size_t size() const { return index_.size(); }

private:
    struct Entry {
        uint64_t key;
        bool has_start;  // else it is an end
        Start start;
        uint64_t end;
    };
    using Iterator = typename std::list<Entry>::iterator;

    void erase(typename std::unordered_map<uint64_t, Iterator>::iterator at) {
        order_.erase(at->second);
        index_.erase(at);
    }
    template <typename Evicted>
    void make_room(Evicted &evicted) {
        while (index_.size() >= capacity_) {
            Entry &oldest = order_.front();
            evicted(oldest.has_start ? &oldest.start : nullptr, oldest.end);
            index_.erase(oldest.key);
            order_.pop_front();
        }
    }
    void open(Entry e) {
        order_.push_back(std::move(e));
        index_.emplace(order_.back().key, std::prev(order_.end()));
    }

    size_t capacity_;
    std::list<Entry> order_;  // oldest first
    std::unordered_map<uint64_t, Iterator> index_;
};

}  // namespace mspti::common
