/*
 * mstx.i: the mstx marker functions of the header-only mstx API (include/mstx/ms_tools_ext.h: the
 * module's own function table, filled by the tool in the process: our libmspti.so, or msPTI's
 * through libprofapi; msPTI's library exports no mstx functions), language-neutral. Streams are `aclrtStream` (void *): each language maps its
 * stream objects onto it with an `in` typemap; NULL means a host-only marker.
 */

%{
#include "mstx/ms_tools_ext.h"
%}

typedef uint64_t mstxRangeId;
struct mstxDomainRegistration_st;
typedef struct mstxDomainRegistration_st *mstxDomainHandle_t;

%rename(mstx_mark) mstxMarkA;
%rename(mstx_range_start) mstxRangeStartA;
%rename(mstx_range_end) mstxRangeEnd;
%rename(mstx_domain_create) mstxDomainCreateA;
%rename(mstx_domain_destroy) mstxDomainDestroy;
%rename(mstx_domain_mark) mstxDomainMarkA;
%rename(mstx_domain_range_start) mstxDomainRangeStartA;
%rename(mstx_domain_range_end) mstxDomainRangeEnd;

/** Instantaneous mark; with a stream, also marks the point the stream reaches. */
void mstxMarkA(const char *message, aclrtStream stream = NULL);
/** Starts a range; returns its id, or 0 if no tool records it. */
mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream = NULL);
/** Ends a range started by mstx_range_start(). */
void mstxRangeEnd(mstxRangeId id);
/** Creates (or finds) a domain; NULL if no tool, or the name is invalid or "default". */
mstxDomainHandle_t mstxDomainCreateA(const char *name);
/** Marks a domain destroyed; its handle stays valid for re-creation. */
void mstxDomainDestroy(mstxDomainHandle_t domain);
/** mstx_mark() in a domain. */
void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message, aclrtStream stream = NULL);
/** mstx_range_start() in a domain. */
mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message, aclrtStream stream = NULL);
/** mstx_range_end() in a domain. */
void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id);
