// The Callback API's C entry points.
#include "callback/subscriber.h"
#include "device/cann_collector.h"

extern "C" {

msptiResult msptiSubscribe(msptiSubscriberHandle *subscriber, msptiCallbackFunc callback, void *userdata) {
    msptiResult result = mspti::callback::subscribe(subscriber, callback, userdata);
    if (result == MSPTI_SUCCESS) mspti::device::attach();  // as msPTI: subscribing starts collection
    return result;
}

msptiResult msptiUnsubscribe(msptiSubscriberHandle subscriber) { return mspti::callback::unsubscribe(subscriber); }

msptiResult msptiEnableCallback(uint32_t enable, msptiSubscriberHandle subscriber, msptiCallbackDomain domain,
                                msptiCallbackId cbid) {
    return mspti::callback::enable_callback(enable, subscriber, domain, cbid);
}

msptiResult msptiEnableDomain(uint32_t enable, msptiSubscriberHandle subscriber, msptiCallbackDomain domain) {
    return mspti::callback::enable_domain(enable, subscriber, domain);
}

}  // extern "C"
