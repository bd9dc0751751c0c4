/**
 * @file ms_tools_ext.h
 * @brief The mstx marker API: marks, ranges and domains, compatible with MindStudio's mstx.
 *
 * Header-only. Every call goes through one table of function pointers per
 * binary. The table starts out pointing at initialisers: the first call loads
 * the tool once, either the library named by the environment variable
 * `MSTX_INJECTION_PATH` or, without it, an `InitInjectionMstx` already loaded
 * in the process (libmspti.so linked directly or preloaded), and lets it fill
 * the table. With no tool every call is a load and a branch.
 *
 * Define `MSTX_NO_IMPL` to get the declarations only.
 */
#ifndef MS_TOOLS_EXT_H
#define MS_TOOLS_EXT_H

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Id of a range; 0 means the range was not started. */
typedef uint64_t mstxRangeId;
/** @brief A device stream (the ACL runtime's aclrtStream); NULL for host-only markers. */
typedef void *aclrtStream;
/** @brief Opaque domain registration. */
struct mstxDomainRegistration_st;
/** @brief A marker domain created by mstxDomainCreateA(). */
typedef struct mstxDomainRegistration_st *mstxDomainHandle_t;

/** @brief Success of the injection protocol. */
#define MSTX_SUCCESS 0
/** @brief Failure of the injection protocol. */
#define MSTX_FAIL 1

/** @brief Tool id returned by mstxGetToolId() when no tool provides one. */
#define MSTX_TOOL_INVALID_ID 0
/** @brief Tool id of msprof. */
#define MSTX_TOOL_MSPROF_ID 0x1000
/** @brief Tool id of msopprof. */
#define MSTX_TOOL_MSOPPROF_ID 0x1001
/** @brief Tool id of mssanitizer. */
#define MSTX_TOOL_MSSANITIZER_ID 0x1002
/** @brief Tool id of msleaks. */
#define MSTX_TOOL_MSLEAKS_ID 0x1003

/** @brief Function-table modules of the injection protocol. */
typedef enum {
    MSTX_API_MODULE_INVALID = 0,
    MSTX_API_MODULE_CORE = 1,        /**< Marks and ranges without a domain. */
    MSTX_API_MODULE_CORE_DOMAIN = 2, /**< Domains. */
    MSTX_API_MODULE_CORE_MEM = 3,    /**< Memory regions (not provided by this header). */
    MSTX_API_MODULE_SIZE
} mstxFuncModule;

/** @brief Slots of the ::MSTX_API_MODULE_CORE table. */
typedef enum {
    MSTX_API_CORE_INVALID = 0,
    MSTX_API_CORE_MARK_A = 1,
    MSTX_API_CORE_RANGE_START_A = 2,
    MSTX_API_CORE_RANGE_END = 3,
    MSTX_API_CORE_GET_TOOL_ID = 4,
    MSTX_API_CORE_SIZE = 5
} mstxImplCoreFuncId;

/** @brief Slots of the ::MSTX_API_MODULE_CORE_DOMAIN table. */
typedef enum {
    MSTX_API_CORE2_INVALID = 0,
    MSTX_API_CORE2_DOMAIN_CREATE_A = 1,
    MSTX_API_CORE2_DOMAIN_DESTROY = 2,
    MSTX_API_CORE2_DOMAIN_MARK_A = 3,
    MSTX_API_CORE2_DOMAIN_RANGE_START_A = 4,
    MSTX_API_CORE2_DOMAIN_RANGE_END = 5,
    MSTX_API_CORE2_SIZE = 6
} mstxImplCore2FuncId;

/** @brief Generic function pointer stored in a table slot. */
typedef void (*mstxFuncPointer)(void);
/** @brief A module's table: an array of pointers to the slots. */
typedef mstxFuncPointer **mstxFuncTable;
/** @brief Hands a tool the table of one module. Returns ::MSTX_SUCCESS or ::MSTX_FAIL. */
typedef int (*mstxGetModuleFuncTableFunc)(mstxFuncModule module, mstxFuncTable *outTable, unsigned int *outSize);
/** @brief The tool's entry point, exported as `InitInjectionMstx`. */
typedef int (*mstxInitInjectionFunc)(mstxGetModuleFuncTableFunc getFuncTable);

/** @cond MSTX_INTERNAL */
typedef void (*mstxMarkAFunc_t)(const char *message, aclrtStream stream);
typedef mstxRangeId (*mstxRangeStartAFunc_t)(const char *message, aclrtStream stream);
typedef void (*mstxRangeEndFunc_t)(mstxRangeId id);
typedef void (*mstxGetToolIdFunc_t)(uint64_t *id);
typedef mstxDomainHandle_t (*mstxDomainCreateAFunc_t)(const char *name);
typedef void (*mstxDomainDestroyFunc_t)(mstxDomainHandle_t domain);
typedef void (*mstxDomainMarkAFunc_t)(mstxDomainHandle_t domain, const char *message, aclrtStream stream);
typedef mstxRangeId (*mstxDomainRangeStartAFunc_t)(mstxDomainHandle_t domain, const char *message,
                                                   aclrtStream stream);
typedef void (*mstxDomainRangeEndFunc_t)(mstxDomainHandle_t domain, mstxRangeId id);
/** @endcond */

#ifndef MSTX_NO_IMPL
#include "mstx_detail/mstx_impl.h"
#else
/** @brief Instantaneous mark; with a stream, also marks the point the stream reaches. */
void mstxMarkA(const char *message, aclrtStream stream);
/** @brief Starts a range; returns its id, or 0 if no tool records it. */
mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream);
/** @brief Ends a range started by mstxRangeStartA(). */
void mstxRangeEnd(mstxRangeId id);
/** @brief Creates (or finds) a domain; NULL if no tool, or the name is invalid or "default". */
mstxDomainHandle_t mstxDomainCreateA(const char *name);
/** @brief Marks a domain destroyed; its handle stays valid for re-creation. */
void mstxDomainDestroy(mstxDomainHandle_t domain);
/** @brief mstxMarkA() in a domain. */
void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message, aclrtStream stream);
/** @brief mstxRangeStartA() in a domain. */
mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message, aclrtStream stream);
/** @brief mstxRangeEnd() in a domain. */
void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id);
/** @brief The loaded tool's id, or ::MSTX_TOOL_INVALID_ID. */
void mstxGetToolId(uint64_t *id);
#endif

#ifdef __cplusplus
}
#endif

#endif /* MS_TOOLS_EXT_H */
