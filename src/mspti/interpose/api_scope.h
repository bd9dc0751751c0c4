// ENTER/EXIT of the Callback API around one interposed call. The gate is two atomic loads;
// nothing else happens when the id is not enabled.
#pragma once

#include <cstdint>

#include "callback/subscriber.h"

namespace mspti::interpose {

class ApiScope {
public:
    ApiScope(msptiCallbackDomain domain, msptiCallbackId cbid, const char *name, uint64_t correlationId)
        : domain_(domain),
          cbid_(cbid),
          name_(name),
          correlation_(correlationId),
          entered_(callback::enabled(domain, cbid)) {
        if (__builtin_expect(entered_, 0)) fire(MSPTI_API_ENTER, nullptr);
    }

    // EXIT with a pointer to the call's return value. Fires only if ENTER fired, so a client
    // that enables an id mid-call never sees an unpaired EXIT.
    void exit(const void *result) {
        if (__builtin_expect(entered_, 0)) fire(MSPTI_API_EXIT, result);
    }

    ApiScope(const ApiScope &) = delete;
    ApiScope &operator=(const ApiScope &) = delete;

private:
    void fire(msptiApiCallbackSite site, const void *result) const {
        msptiCallbackData data{};
        data.callbackSite = site;
        data.functionName = name_;
        data.functionReturnValue = result;
        data.correlationId = correlation_;
        callback::dispatch(domain_, cbid_, &data);
    }

    msptiCallbackDomain domain_;
    msptiCallbackId cbid_;
    const char *name_;
    uint64_t correlation_;
    bool entered_;
};

}  // namespace mspti::interpose
