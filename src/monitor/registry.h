// Which subscriptions receive which records: one immutable snapshot per change, which the delivery
// thread holds while it delivers a buffer (so a start() or stop() never changes a list under it).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "mspti/mspti_activity.h"
#include "monitor/subscription.h"

namespace mspti::detail {

using SubList = std::vector<std::shared_ptr<Subscription>>;

struct Registry {
    static constexpr int kKinds = MSPTI_ACTIVITY_KIND_COUNT;
    using Lists = std::array<SubList, kKinds>;  // per kind, in start order
    uint64_t version = 0;
    Lists batch;  // batch subscriptions
    Lists run;  // per-record subscriptions of a binding, handed a run at a time
    Lists record;  // per-record subscriptions
    Lists &of(Subscription::Path path) {
        return path == Subscription::Path::Batch ? batch : path == Subscription::Path::Run ? run : record;
    }
    SubList &list_of(const Subscription &s) { return of(s.path())[s.kind()]; }
};

}  // namespace mspti::detail
