// The mstx entry points libmspti installs into the mstx function table: each turns a mark or
// a range boundary into MARKER records (host, and device through the stream-trace hook).
#pragma once

#include <cstdint>

#include "mstx/ms_tools_ext.h"

namespace mspti::mstx {

void mark(const char *message, aclrtStream stream);
mstxRangeId range_start(const char *message, aclrtStream stream);
void range_end(mstxRangeId id);
mstxDomainHandle_t domain_create(const char *name);
void domain_destroy(mstxDomainHandle_t domain);
void domain_mark(mstxDomainHandle_t domain, const char *message, aclrtStream stream);
mstxRangeId domain_range_start(mstxDomainHandle_t domain, const char *message, aclrtStream stream);
void domain_range_end(mstxDomainHandle_t domain, mstxRangeId id);

// Enqueues a device trace task (mark id + flag) on a stream; returns 0 on success. Installed
// by the device layer; without it, markers on a stream give the host record only.
using StreamTraceFunc = int (*)(void *stream, uint64_t markId, uint32_t flag);
void set_stream_trace(StreamTraceFunc trace);

// A fresh marker id (process-unique, from 1); also used for internal HCCL markers.
uint64_t next_marker_id();

}  // namespace mspti::mstx
