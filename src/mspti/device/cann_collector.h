// libmspti's device side: what the runtime and the device report through Ascend's profiling
// interfaces becomes msPTI records. Host reports come from libprofapi.so (registered callbacks:
// API spans, task tracks, HCCL op info, type names, hash ids, device states); device timings from
// libascend_hal.so's channels (STARS SoC log: kernel and collective begin/end; TS-FW: step traces of
// markers and HCCL brackets), read by HalChannelReader. The same path serves the virtual NPU and an
// Ascend device.
//
// Records: KERNEL (task track "KERNEL*" + SoC log; correlation id taken at the track, on the
// enqueuing thread), COMMUNICATION (track "HCCL" + op info + SoC log), API/NODE_API (node launch
// 10000/5; a collective's launch gives its API record only), ACL_API (20000), RUNTIME_API (5000),
// device MARKER and HCCL (step traces of tag 11).
#pragma once

#include <cstdint>

#include "mspti/mspti_ext.h"

namespace mspti::device {

/// What the libraries found allow.
struct CannAvailability {
    bool profapi = false;
    bool hal = false;
};

/// Loads the libraries (once they are found), registers the report callbacks, sets the profiling
/// command and starts or stops the channels for the kinds enabled now. Cheap when nothing changed.
CannAvailability attach();
/// attach() unless attached already: one relaxed load on the fast path.
void attach_lazily();
/// Whether `kind` can be collected here; when not, *why names the missing library.
bool kind_available(int kind, const char **why);

/// Whether records of `kind` come from the device's channels (KERNEL, COMMUNICATION, MARKER, HCCL).
bool is_device_kind(int kind);

/// Enqueues a marker's device half on `stream` (aclrtProfTrace, 18 bytes: {markId, flag, tag 11}).
int stream_trace(void *stream, uint64_t markId, uint32_t flag);

/// Fills `out` with what the channel reader and the collector counted (msptiExtDeviceGetStats):
/// all zero in a process that never collected from a device.
void device_stats(msptiExtDeviceStats *out);

/// msptiActivityFlushAll: the device flushes its channels and what they held is parsed into records.
void flush_device();

/// fork(): holds every lock of the device side across the fork; the child forgets the parent's
/// channels and poll thread (a child opens its own device).
void fork_prepare();
void fork_parent();
void fork_child();

}  // namespace mspti::device
