/**
 * @file mspti_callback.h
 * @brief The Callback API: ENTER/EXIT callbacks around interposed runtime and HCCL calls.
 *
 * One subscriber at a time. Callbacks fire on the calling thread, before (ENTER) and
 * after (EXIT) the interposed function, for the callback ids enabled with
 * msptiEnableCallback() or msptiEnableDomain(). They need libmspti.so to interpose
 * the runtime (LD_PRELOAD).
 */
#ifndef MSPTI_CALLBACK_H
#define MSPTI_CALLBACK_H

#include <stdint.h>

#include "mspti_result.h"
#include "mspti_cbid.h"

#if defined(__GNUC__) && defined(MSPTI_LIB)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Callback domains. */
typedef enum {
    MSPTI_CB_DOMAIN_INVALID = 0,
    MSPTI_CB_DOMAIN_RUNTIME = 1, /**< ACL runtime entry points (msptiCallbackIdRuntime). */
    MSPTI_CB_DOMAIN_HCCL = 2,    /**< HCCL entry points (msptiCallbackIdHccl). */
    MSPTI_CB_DOMAIN_SIZE = 3,
    MSPTI_CB_DOMAIN_FORCE_INT = 0x7fffffff
} msptiCallbackDomain;

/** @brief A callback id within its domain. */
typedef uint32_t msptiCallbackId;

/** @brief Whether a callback fires before or after the call. */
typedef enum {
    MSPTI_API_ENTER = 0,  /**< Before the real function runs. */
    MSPTI_API_EXIT = 1,   /**< After it returned. */
    MSPTI_API_CBSITE_FORCE_INT = 0x7fffffff
} msptiApiCallbackSite;

/** @brief What a callback receives (natural layout, not packed). */
typedef struct {
    msptiApiCallbackSite callbackSite; /**< ENTER or EXIT. */
    const char *functionName;          /**< Interposed function's name, e.g. "aclrtMalloc". */
    const void *functionParams;        /**< Reserved; NULL. */
    const void *functionReturnValue;   /**< At EXIT, points at the function's return value; NULL at ENTER. */
    const char *symbolName;            /**< Reserved; NULL. */
    uint64_t correlationId;            /**< Correlation id of this call, or 0 if it has none. */
    uint64_t reserved1;                /**< Reserved; 0. */
    uint64_t reserved2;                /**< Reserved; 0. */
    uint64_t *correlationData;         /**< Reserved; NULL. */
} msptiCallbackData;

/** @brief A callback: userdata as given to msptiSubscribe(). */
typedef void (*msptiCallbackFunc)(void *userdata, msptiCallbackDomain domain, msptiCallbackId cbid,
                                  const msptiCallbackData *cbdata);

/** @brief Opaque subscriber handle. */
struct msptiSubscriber_st;
/** @brief Handle returned by msptiSubscribe(). */
typedef struct msptiSubscriber_st *msptiSubscriberHandle;

/**
 * @brief Registers the (single) subscriber. No callback id is enabled yet.
 * @param[out] subscriber Receives the handle.
 * @param callback Called for enabled ids; may be NULL.
 * @param userdata Passed to callback.
 * @return MSPTI_SUCCESS; MSPTI_ERROR_INVALID_PARAMETER if subscriber is NULL;
 *         MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED if one is registered already.
 */
msptiResult msptiSubscribe(msptiSubscriberHandle *subscriber, msptiCallbackFunc callback, void *userdata);

/**
 * @brief Removes the subscriber. Activity kinds stay enabled.
 * @return MSPTI_SUCCESS (also when nobody is subscribed); MSPTI_ERROR_INVALID_PARAMETER
 *         for a handle that is not the current subscriber.
 */
msptiResult msptiUnsubscribe(msptiSubscriberHandle subscriber);

/**
 * @brief Enables (enable != 0) or disables one callback id.
 * @return MSPTI_SUCCESS (a no-op when nobody is subscribed); MSPTI_ERROR_WITHOUT_LD_PRELOAD when
 *         libmspti.so is not interposing the runtime; MSPTI_ERROR_INVALID_PARAMETER for a foreign
 *         handle, a domain other than RUNTIME or HCCL, or cbid >= 64.
 */
msptiResult msptiEnableCallback(uint32_t enable, msptiSubscriberHandle subscriber, msptiCallbackDomain domain,
                                msptiCallbackId cbid);

/**
 * @brief Enables (enable != 0) or disables every callback id of a domain.
 * @return As msptiEnableCallback().
 */
msptiResult msptiEnableDomain(uint32_t enable, msptiSubscriberHandle subscriber, msptiCallbackDomain domain);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__) && defined(MSPTI_LIB)
#pragma GCC visibility pop
#endif

#endif /* MSPTI_CALLBACK_H */
