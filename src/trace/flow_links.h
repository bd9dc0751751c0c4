// Which API call's slice and which device slices carry a launch's flows (docs/trace.md, "Flows").
// A flow goes from the call that launched device work to that work, and nowhere else: a call
// that launched nothing (aclrtMalloc, aclrtFree) starts none, and a later call reusing the id
// (aclrtSynchronizeDevice takes the thread's latest) gets none. Both sides are known only once
// the device work has run, which may be long after the call returned, so records carrying a
// correlation id are held until their other side comes, or for at most kWaitNs.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "record.h"

namespace mspti_trace {

class FlowLinks {
public:
    static constexpr uint64_t kWaitNs = 2000000000ull;  // how long a side waits for the other
    static constexpr size_t kMaxHeld = size_t{1} << 16;  // records held at most; the oldest go first

    // A launch's flows: one per device slice, numbered from 1 in this process. The launching
    // call's slice carries all of them (`count` numbers from `flow`), each device slice its own.
    struct Released {
        Record record;
        uint64_t flow;  // the first flow number; 0: none
        uint32_t count;  // flow numbers from `flow`
    };

    // Holds a record of either side (device: kernel, copy, collective; else an API call);
    // false when its id is decided already: write it now, without a flow.
    bool hold(const Record &r, bool device);
    // At a window's end (`now`, epoch ns): the records to write in this window. A launch whose
    // both sides are held gets a flow from its earliest-starting call (the outermost; the first
    // to arrive of equal ones) to each of its device slices held then. Records waiting longer than
    // kWaitNs, and all at the end (`final`), are released without one.
    void release(uint64_t now, bool final, std::vector<Released> &out);
    size_t held() const { return held_records_; }

private:
    struct Entry {
        std::vector<Record> api, device;
        uint64_t since = 0;  // the window end by which it had arrived; 0: not yet known
    };
    void emit(Entry &e, bool linked, std::vector<Released> &out);
    void decide(uint64_t id);

    std::unordered_map<uint64_t, Entry> held_;  // by correlation id
    std::deque<uint64_t> order_;  // held ids, oldest first
    size_t held_records_ = 0;
    // Ids written already (a later record with one gets no flow); the oldest are forgotten first.
    std::unordered_set<uint64_t> decided_;
    std::deque<uint64_t> decided_order_;
    uint64_t next_flow_ = 1;
};

}  // namespace mspti_trace
