// The Callback API's state: the single subscriber and the enabled callback ids per domain.
// Interposed entry points ask enabled() (two atomic loads) and call dispatch() around the call.
#pragma once

#include <atomic>
#include <cstdint>

#include "mspti/mspti_callback.h"

struct msptiSubscriber_st {
    std::atomic<msptiCallbackFunc> callback{nullptr};
    std::atomic<void *> userdata{nullptr};
};

namespace mspti::callback {

msptiResult subscribe(msptiSubscriberHandle *subscriber, msptiCallbackFunc callback, void *userdata);
msptiResult unsubscribe(msptiSubscriberHandle subscriber);
msptiResult enable_callback(uint32_t enable, msptiSubscriberHandle subscriber, msptiCallbackDomain domain,
                            msptiCallbackId cbid);
msptiResult enable_domain(uint32_t enable, msptiSubscriberHandle subscriber, msptiCallbackDomain domain);

// Whether a subscriber exists and `cbid` of `domain` is enabled.
bool enabled(msptiCallbackDomain domain, msptiCallbackId cbid);

// Calls the subscriber for (domain, cbid) if enabled.
void dispatch(msptiCallbackDomain domain, msptiCallbackId cbid, const msptiCallbackData *data);

// Whether anyone is subscribed.
bool subscribed();

// fork(): holds the subscriber lock across the fork (see core/fork_guard.h).
void fork_prepare();
void fork_release();

}  // namespace mspti::callback
