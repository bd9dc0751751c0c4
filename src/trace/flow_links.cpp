#include "flow_links.h"

#include <algorithm>

namespace mspti_trace {

namespace {

constexpr size_t kDecidedKept = size_t{1} << 18;

}  // namespace

bool FlowLinks::hold(const Record &r, bool device) {
    uint64_t id = correlation_id(r);
    if (decided_.count(id) != 0) return false;
    auto [it, fresh] = held_.try_emplace(id);
    if (fresh) order_.push_back(id);
    (device ? it->second.device : it->second.api).push_back(r);
    ++held_records_;
    return true;
}

void FlowLinks::decide(uint64_t id) {
    if (!decided_.insert(id).second) return;
    decided_order_.push_back(id);
    if (decided_order_.size() > kDecidedKept) {
        decided_.erase(decided_order_.front());
        decided_order_.pop_front();
    }
}

void FlowLinks::emit(Entry &e, bool linked, std::vector<Released> &out) {
    size_t api = e.api.size();
    if (linked) {
        // The launch: the earliest start, the longest of equal starts, then arrival order.
        auto launch = [](const Record &a, const Record &b) {
            if (a.start != b.start) return a.start < b.start;
            if (a.end != b.end) return a.end > b.end;
            return a.seq < b.seq;
        };
        api = static_cast<size_t>(std::min_element(e.api.begin(), e.api.end(), launch) - e.api.begin());
        // Its device slices in start order (then arrival): flow numbers in that order.
        std::sort(e.device.begin(), e.device.end(), [](const Record &a, const Record &b) {
            return a.start != b.start ? a.start < b.start : a.seq < b.seq;
        });
    }
    uint64_t first = linked ? next_flow_ : 0;
    uint32_t n = linked ? static_cast<uint32_t>(e.device.size()) : 0;
    next_flow_ += n;
    for (size_t i = 0; i < e.api.size(); ++i) out.push_back({e.api[i], i == api ? first : 0, i == api ? n : 0});
    for (size_t i = 0; i < e.device.size(); ++i) out.push_back({e.device[i], linked ? first + i : 0, linked ? 1u : 0u});
    held_records_ -= e.api.size() + e.device.size();
}

void FlowLinks::release(uint64_t now, bool final, std::vector<Released> &out) {
    out.clear();
    std::deque<uint64_t> waiting;
    for (uint64_t id : order_) {
        auto it = held_.find(id);
        Entry &e = it->second;
        if (e.since == 0) e.since = now;  // arrived during this window
        bool linked = !e.api.empty() && !e.device.empty();
        bool expired = final || now >= e.since + kWaitNs || held_records_ > kMaxHeld;
        if (!linked && !expired) {
            waiting.push_back(id);
            continue;
        }
        emit(e, linked, out);
        held_.erase(it);
        decide(id);
    }
    order_.swap(waiting);
}

}  // namespace mspti_trace
