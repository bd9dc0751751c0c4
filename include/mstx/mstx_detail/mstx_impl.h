/**
 * @file mstx_impl.h
 * @brief Implementation of the mstx header: the per-binary function table and its one-time initialiser.
 *
 * Included by ms_tools_ext.h; not to be included directly.
 */
#ifndef MSTX_IMPL_H
#define MSTX_IMPL_H

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** @cond MSTX_INTERNAL */

/* One table per binary: weak, hidden definitions merge across translation units. */
#define MSTX_SHARED __attribute__((weak, visibility("hidden")))
/* glibc's RTLD_DEFAULT, spelled out so that the header does not need _GNU_SOURCE. */
#define MSTX_RTLD_DEFAULT ((void *)0)

/* mstxContext.state: NONE, DONE, or, while a thread initialises, its process id. A child forked
 * meanwhile finds its parent's id there: that thread does not exist in the child, so the child
 * initialises for itself instead of waiting for it forever. */
enum { MSTX_INIT_NONE = 0, MSTX_INIT_DONE = -1 };

typedef struct {
    int state;
    mstxMarkAFunc_t markA;
    mstxRangeStartAFunc_t rangeStartA;
    mstxRangeEndFunc_t rangeEnd;
    mstxGetToolIdFunc_t getToolId;
    mstxDomainCreateAFunc_t domainCreateA;
    mstxDomainDestroyFunc_t domainDestroy;
    mstxDomainMarkAFunc_t domainMarkA;
    mstxDomainRangeStartAFunc_t domainRangeStartA;
    mstxDomainRangeEndFunc_t domainRangeEnd;
    mstxFuncPointer *coreTable[MSTX_API_CORE_SIZE];
    mstxFuncPointer *domainTable[MSTX_API_CORE2_SIZE];
} mstxContext_t;

/* What the tool writes during initialisation; published slot by slot once it returns, so a
 * concurrent caller sees either the initialiser (and waits) or the final function, never a
 * half-initialised table. */
typedef struct {
    mstxFuncPointer core[MSTX_API_CORE_SIZE];
    mstxFuncPointer domain[MSTX_API_CORE2_SIZE];
} mstxStagedTable_t;

MSTX_SHARED mstxStagedTable_t mstxStaged;

MSTX_SHARED void mstxInitOnce(void);
MSTX_SHARED void mstxMarkA_init(const char *message, aclrtStream stream);
MSTX_SHARED mstxRangeId mstxRangeStartA_init(const char *message, aclrtStream stream);
MSTX_SHARED void mstxRangeEnd_init(mstxRangeId id);
MSTX_SHARED void mstxGetToolId_init(uint64_t *id);
MSTX_SHARED mstxDomainHandle_t mstxDomainCreateA_init(const char *name);
MSTX_SHARED void mstxDomainDestroy_init(mstxDomainHandle_t domain);
MSTX_SHARED void mstxDomainMarkA_init(mstxDomainHandle_t domain, const char *message, aclrtStream stream);
MSTX_SHARED mstxRangeId mstxDomainRangeStartA_init(mstxDomainHandle_t domain, const char *message,
                                                   aclrtStream stream);
MSTX_SHARED void mstxDomainRangeEnd_init(mstxDomainHandle_t domain, mstxRangeId id);

MSTX_SHARED mstxContext_t mstxContext = {
    MSTX_INIT_NONE,
    mstxMarkA_init, mstxRangeStartA_init, mstxRangeEnd_init, mstxGetToolId_init,
    mstxDomainCreateA_init, mstxDomainDestroy_init, mstxDomainMarkA_init,
    mstxDomainRangeStartA_init, mstxDomainRangeEnd_init,
    { NULL }, { NULL }
};

/* A slot changes once, from its initialiser to the tool's function (or NULL); either value is
 * valid to call, so a relaxed load is enough (on x86-64 and Arm it is a plain load). */
#define MSTX_LOAD(slot) __atomic_load_n(&mstxContext.slot, __ATOMIC_RELAXED)

MSTX_SHARED int mstxGetModuleFuncTable(mstxFuncModule module, mstxFuncTable *outTable, unsigned int *outSize)
{
    unsigned int i;
    if (outTable == NULL || outSize == NULL) {
        return MSTX_FAIL;
    }
    switch (module) {
    case MSTX_API_MODULE_CORE:
        for (i = 0; i < MSTX_API_CORE_SIZE; ++i) {
            mstxContext.coreTable[i] = i == 0 ? NULL : &mstxStaged.core[i];
        }
        *outTable = mstxContext.coreTable;
        *outSize = MSTX_API_CORE_SIZE;
        return MSTX_SUCCESS;
    case MSTX_API_MODULE_CORE_DOMAIN:
        for (i = 0; i < MSTX_API_CORE2_SIZE; ++i) {
            mstxContext.domainTable[i] = i == 0 ? NULL : &mstxStaged.domain[i];
        }
        *outTable = mstxContext.domainTable;
        *outSize = MSTX_API_CORE2_SIZE;
        return MSTX_SUCCESS;
    default:
        return MSTX_FAIL;
    }
}

/* Finds the tool: MSTX_INJECTION_PATH first, else an InitInjectionMstx already in the process. */
MSTX_SHARED mstxInitInjectionFunc mstxFindInjection(void)
{
    const char *path = getenv("MSTX_INJECTION_PATH");
    if (path != NULL && path[0] != '\0') {
        void *lib = dlopen(path, RTLD_LAZY);
        return lib == NULL ? NULL : (mstxInitInjectionFunc)dlsym(lib, "InitInjectionMstx");
    }
    return (mstxInitInjectionFunc)dlsym(MSTX_RTLD_DEFAULT, "InitInjectionMstx");
}

#define MSTX_PUBLISH(slot, value) __atomic_store_n(&mstxContext.slot, (value), __ATOMIC_RELEASE)

/* Moves what the tool wrote (or NULL everywhere, for a failed or missing tool) into the live slots. */
MSTX_SHARED void mstxPublishTable(int ok)
{
    if (!ok) {
        memset(&mstxStaged, 0, sizeof(mstxStaged));
    }
    MSTX_PUBLISH(markA, (mstxMarkAFunc_t)mstxStaged.core[MSTX_API_CORE_MARK_A]);
    MSTX_PUBLISH(rangeStartA, (mstxRangeStartAFunc_t)mstxStaged.core[MSTX_API_CORE_RANGE_START_A]);
    MSTX_PUBLISH(rangeEnd, (mstxRangeEndFunc_t)mstxStaged.core[MSTX_API_CORE_RANGE_END]);
    MSTX_PUBLISH(getToolId, (mstxGetToolIdFunc_t)mstxStaged.core[MSTX_API_CORE_GET_TOOL_ID]);
    MSTX_PUBLISH(domainCreateA, (mstxDomainCreateAFunc_t)mstxStaged.domain[MSTX_API_CORE2_DOMAIN_CREATE_A]);
    MSTX_PUBLISH(domainDestroy, (mstxDomainDestroyFunc_t)mstxStaged.domain[MSTX_API_CORE2_DOMAIN_DESTROY]);
    MSTX_PUBLISH(domainMarkA, (mstxDomainMarkAFunc_t)mstxStaged.domain[MSTX_API_CORE2_DOMAIN_MARK_A]);
    MSTX_PUBLISH(domainRangeStartA,
                 (mstxDomainRangeStartAFunc_t)mstxStaged.domain[MSTX_API_CORE2_DOMAIN_RANGE_START_A]);
    MSTX_PUBLISH(domainRangeEnd, (mstxDomainRangeEndFunc_t)mstxStaged.domain[MSTX_API_CORE2_DOMAIN_RANGE_END]);
}

MSTX_SHARED void mstxInitOnce(void)
{
    const int self = (int)getpid();
    for (;;) {
        int seen = __atomic_load_n(&mstxContext.state, __ATOMIC_ACQUIRE);
        if (seen == MSTX_INIT_DONE) {
            return;
        }
        if (seen == self) { /* another thread of this process is initialising: wait for it */
            sched_yield();
            continue;
        }
        /* Nobody has started, or it was started in another process (this one is a child forked
         * while a thread of its parent initialised): claim it. */
        if (__atomic_compare_exchange_n(&mstxContext.state, &seen, self, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            mstxInitInjectionFunc init = mstxFindInjection();
            memset(&mstxStaged, 0, sizeof(mstxStaged));
            mstxPublishTable(init != NULL && init(mstxGetModuleFuncTable) == MSTX_SUCCESS);
            __atomic_store_n(&mstxContext.state, MSTX_INIT_DONE, __ATOMIC_RELEASE);
            return;
        }
    }
}

MSTX_SHARED void mstxMarkA_init(const char *message, aclrtStream stream)
{
    mstxMarkAFunc_t f;
    mstxInitOnce();
    f = MSTX_LOAD(markA);
    if (f != NULL) f(message, stream);
}

MSTX_SHARED mstxRangeId mstxRangeStartA_init(const char *message, aclrtStream stream)
{
    mstxRangeStartAFunc_t f;
    mstxInitOnce();
    f = MSTX_LOAD(rangeStartA);
    return f != NULL ? f(message, stream) : 0;
}

MSTX_SHARED void mstxRangeEnd_init(mstxRangeId id)
{
    mstxRangeEndFunc_t f;
    mstxInitOnce();
    f = MSTX_LOAD(rangeEnd);
    if (f != NULL) f(id);
}

MSTX_SHARED void mstxGetToolId_init(uint64_t *id)
{
    mstxGetToolIdFunc_t f;
    mstxInitOnce();
    f = MSTX_LOAD(getToolId);
    if (f != NULL) {
        f(id);
    } else if (id != NULL) {
        *id = MSTX_TOOL_INVALID_ID;
    }
}

MSTX_SHARED mstxDomainHandle_t mstxDomainCreateA_init(const char *name)
{
    mstxDomainCreateAFunc_t f;
    mstxInitOnce();
    f = MSTX_LOAD(domainCreateA);
    return f != NULL ? f(name) : NULL;
}

MSTX_SHARED void mstxDomainDestroy_init(mstxDomainHandle_t domain)
{
    mstxDomainDestroyFunc_t f;
    mstxInitOnce();
    f = MSTX_LOAD(domainDestroy);
    if (f != NULL) f(domain);
}

MSTX_SHARED void mstxDomainMarkA_init(mstxDomainHandle_t domain, const char *message, aclrtStream stream)
{
    mstxDomainMarkAFunc_t f;
    mstxInitOnce();
    f = MSTX_LOAD(domainMarkA);
    if (f != NULL) f(domain, message, stream);
}

MSTX_SHARED mstxRangeId mstxDomainRangeStartA_init(mstxDomainHandle_t domain, const char *message,
                                                   aclrtStream stream)
{
    mstxDomainRangeStartAFunc_t f;
    mstxInitOnce();
    f = MSTX_LOAD(domainRangeStartA);
    return f != NULL ? f(domain, message, stream) : 0;
}

MSTX_SHARED void mstxDomainRangeEnd_init(mstxDomainHandle_t domain, mstxRangeId id)
{
    mstxDomainRangeEndFunc_t f;
    mstxInitOnce();
    f = MSTX_LOAD(domainRangeEnd);
    if (f != NULL) f(domain, id);
}

/** @endcond */

/** @brief Instantaneous mark; with a stream, also marks the point the stream reaches. */
static inline void mstxMarkA(const char *message, aclrtStream stream)
{
    mstxMarkAFunc_t f = MSTX_LOAD(markA);
    if (f != NULL) f(message, stream);
}

/** @brief Starts a range; returns its id, or 0 if no tool records it. */
static inline mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream)
{
    mstxRangeStartAFunc_t f = MSTX_LOAD(rangeStartA);
    return f != NULL ? f(message, stream) : 0;
}

/** @brief Ends a range started by mstxRangeStartA(). */
static inline void mstxRangeEnd(mstxRangeId id)
{
    mstxRangeEndFunc_t f = MSTX_LOAD(rangeEnd);
    if (f != NULL) f(id);
}

/** @brief The loaded tool's id, or ::MSTX_TOOL_INVALID_ID. */
static inline void mstxGetToolId(uint64_t *id)
{
    mstxGetToolIdFunc_t f = MSTX_LOAD(getToolId);
    if (f != NULL) {
        f(id);
    } else if (id != NULL) {
        *id = MSTX_TOOL_INVALID_ID;
    }
}

/** @brief Creates (or finds) a domain; NULL if no tool, or the name is invalid or "default". */
static inline mstxDomainHandle_t mstxDomainCreateA(const char *name)
{
    mstxDomainCreateAFunc_t f = MSTX_LOAD(domainCreateA);
    return f != NULL ? f(name) : NULL;
}

/** @brief Marks a domain destroyed; its handle stays valid for re-creation. */
static inline void mstxDomainDestroy(mstxDomainHandle_t domain)
{
    mstxDomainDestroyFunc_t f = MSTX_LOAD(domainDestroy);
    if (f != NULL) f(domain);
}

/** @brief mstxMarkA() in a domain. */
static inline void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message, aclrtStream stream)
{
    mstxDomainMarkAFunc_t f = MSTX_LOAD(domainMarkA);
    if (f != NULL) f(domain, message, stream);
}

/** @brief mstxRangeStartA() in a domain. */
static inline mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message,
                                                aclrtStream stream)
{
    mstxDomainRangeStartAFunc_t f = MSTX_LOAD(domainRangeStartA);
    return f != NULL ? f(domain, message, stream) : 0;
}

/** @brief mstxRangeEnd() in a domain. */
static inline void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id)
{
    mstxDomainRangeEndFunc_t f = MSTX_LOAD(domainRangeEnd);
    if (f != NULL) f(domain, id);
}

#endif /* MSTX_IMPL_H */
