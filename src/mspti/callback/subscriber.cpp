#include "callback/subscriber.h"

#include <mutex>

#include "common/diagnostics.h"
#include "interpose/interposition.h"

namespace mspti::callback {
namespace {

// Subscriber objects are recycled round-robin instead of freed, so that a callback racing with
// msptiUnsubscribe never reads freed memory. The handle given to the client is not the slot's
// address but a token carrying the subscription's generation, so a handle kept from an earlier
// subscription never matches a later one that reuses its slot.
constexpr unsigned kSubscriberSlots = 64;
msptiSubscriber_st g_slots[kSubscriberSlots];
uint64_t g_generation = 0;  // subscriptions so far; guarded by g_mutex
uintptr_t g_current_token = 0;  // handle of the live subscription (0: none); guarded by g_mutex
std::atomic<msptiSubscriber_st *> g_current{nullptr};
std::atomic<uint64_t> g_enabled_ids[MSPTI_CB_DOMAIN_SIZE];
std::mutex g_mutex;

// Defined callback ids per domain (msptiEnableDomain sets exactly these).
constexpr uint64_t kRuntimeIds = ((1ull << MSPTI_CBID_RUNTIME_SIZE) - 1) & ~1ull;
constexpr uint64_t kHcclIds = ((1ull << MSPTI_CBID_HCCL_SIZE) - 1) & ~1ull;

// Odd, so it is never the address of an object nor NULL; unique per subscription.
msptiSubscriberHandle token_handle(uint64_t generation) {
    return reinterpret_cast<msptiSubscriberHandle>(static_cast<uintptr_t>(generation * 2 + 1));
}

bool is_current(msptiSubscriberHandle subscriber) {
    return g_current_token != 0 && reinterpret_cast<uintptr_t>(subscriber) == g_current_token;
}

void clear_enabled() {
    for (auto &bits : g_enabled_ids) bits.store(0, std::memory_order_relaxed);
}

// Checks shared by EnableCallback and EnableDomain, in msPTI's order. Returns SUCCESS with
// `proceed` false for the "nobody subscribed" no-op.
msptiResult check(const char *api, msptiSubscriberHandle subscriber, msptiCallbackDomain domain, bool &proceed) {
    proceed = false;
    if (!interpose::interposing())
        return fail(MSPTI_ERROR_WITHOUT_LD_PRELOAD,
                    "%s: libmspti.so is not interposing the runtime; load it with LD_PRELOAD", api);
    msptiSubscriber_st *current = g_current.load(std::memory_order_acquire);
    if (current == nullptr) {
        log(LogLevel::Warning, "%s: nobody is subscribed; nothing to enable", api);
        return MSPTI_SUCCESS;
    }
    if (!is_current(subscriber))
        return fail(MSPTI_ERROR_INVALID_PARAMETER, "%s: %p is not the current subscriber", api,
                    static_cast<void *>(subscriber));
    if (domain != MSPTI_CB_DOMAIN_RUNTIME && domain != MSPTI_CB_DOMAIN_HCCL)
        return fail(MSPTI_ERROR_INVALID_PARAMETER, "%s: domain %d is not RUNTIME (1) or HCCL (2)", api,
                    static_cast<int>(domain));
    proceed = true;
    return MSPTI_SUCCESS;
}

}  // namespace

msptiResult subscribe(msptiSubscriberHandle *subscriber, msptiCallbackFunc callback, void *userdata) {
    if (subscriber == nullptr) return fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiSubscribe: subscriber is NULL");
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_current.load(std::memory_order_relaxed) != nullptr)
        return fail(MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
                    "msptiSubscribe: a subscriber is registered already; call msptiUnsubscribe first");
    uint64_t generation = ++g_generation;
    msptiSubscriber_st *slot = &g_slots[generation % kSubscriberSlots];
    slot->callback.store(callback, std::memory_order_relaxed);
    slot->userdata.store(userdata, std::memory_order_relaxed);
    clear_enabled();
    g_current.store(slot, std::memory_order_release);
    msptiSubscriberHandle handle = token_handle(generation);
    g_current_token = reinterpret_cast<uintptr_t>(handle);
    *subscriber = handle;
    return MSPTI_SUCCESS;
}

msptiResult unsubscribe(msptiSubscriberHandle subscriber) {
    std::lock_guard<std::mutex> lock(g_mutex);
    msptiSubscriber_st *current = g_current.load(std::memory_order_relaxed);
    if (current == nullptr) return MSPTI_SUCCESS;
    if (!is_current(subscriber))
        return fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiUnsubscribe: %p is not the current subscriber",
                    static_cast<void *>(subscriber));
    clear_enabled();
    g_current.store(nullptr, std::memory_order_release);
    g_current_token = 0;
    return MSPTI_SUCCESS;
}

msptiResult enable_callback(uint32_t enable, msptiSubscriberHandle subscriber, msptiCallbackDomain domain,
                            msptiCallbackId cbid) {
    std::lock_guard<std::mutex> lock(g_mutex);
    bool proceed;
    msptiResult result = check("msptiEnableCallback", subscriber, domain, proceed);
    if (!proceed) return result;
    if (cbid >= 64)
        return fail(MSPTI_ERROR_INVALID_PARAMETER, "msptiEnableCallback: callback id %u is not below 64", cbid);
    uint64_t bit = 1ull << cbid;
    if (enable != 0) {
        g_enabled_ids[domain].fetch_or(bit, std::memory_order_relaxed);
    } else {
        g_enabled_ids[domain].fetch_and(~bit, std::memory_order_relaxed);
    }
    return MSPTI_SUCCESS;
}

msptiResult enable_domain(uint32_t enable, msptiSubscriberHandle subscriber, msptiCallbackDomain domain) {
    std::lock_guard<std::mutex> lock(g_mutex);
    bool proceed;
    msptiResult result = check("msptiEnableDomain", subscriber, domain, proceed);
    if (!proceed) return result;
    uint64_t ids = domain == MSPTI_CB_DOMAIN_RUNTIME ? kRuntimeIds : kHcclIds;
    if (enable != 0) {
        g_enabled_ids[domain].fetch_or(ids, std::memory_order_relaxed);
    } else {
        g_enabled_ids[domain].fetch_and(~ids, std::memory_order_relaxed);
    }
    return MSPTI_SUCCESS;
}

bool enabled(msptiCallbackDomain domain, msptiCallbackId cbid) {
    if (domain <= MSPTI_CB_DOMAIN_INVALID || domain >= MSPTI_CB_DOMAIN_SIZE || cbid >= 64) return false;
    return (g_enabled_ids[domain].load(std::memory_order_relaxed) >> cbid & 1u) != 0 &&
           g_current.load(std::memory_order_acquire) != nullptr;
}

void dispatch(msptiCallbackDomain domain, msptiCallbackId cbid, const msptiCallbackData *data) {
    if (!enabled(domain, cbid)) return;
    msptiSubscriber_st *current = g_current.load(std::memory_order_acquire);
    if (current == nullptr) return;
    msptiCallbackFunc callback = current->callback.load(std::memory_order_relaxed);
    if (callback != nullptr) callback(current->userdata.load(std::memory_order_relaxed), domain, cbid, data);
}

bool subscribed() { return g_current.load(std::memory_order_acquire) != nullptr; }

void fork_prepare() { g_mutex.lock(); }

void fork_release() { g_mutex.unlock(); }

}  // namespace mspti::callback
